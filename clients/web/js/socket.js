// The WebSocket half of protocol v1: one connection to /ws for one match. Says hello (with the
// last version seen), hands every `state` to the page, sends actions with an id and the current
// version, and reconnects with backoff when the connection drops. It never changes the game on
// its own: only the server's `state` messages do.

const FATAL_CLOSE = {
  1008: "This page's address is not allowed by the server.",
  4001: "This link or your saved identity is not valid for this match.",
  4004: "There is no such match.",
  4008: "The server closed the connection after too many errors.",
};

export class MatchSocket {
  /**
   * @param {object} o
   * @param {string} o.matchId
   * @param {string} o.token  a seat's player token or the match's watch token
   * @param {(view: object, version: number) => void} o.onState
   * @param {(msg: object) => void} [o.onError]   an `error` message from the server
   * @param {(msg: object) => void} [o.onAck]
   * @param {(status: "connecting"|"open"|"reconnecting"|"closed", detail?: string) => void} [o.onStatus]
   * @param {() => string|undefined} [o.pace]  the computer's pace to say in every hello
   */
  constructor({ matchId, token, onState, onError, onAck, onStatus, pace }) {
    Object.assign(this, { matchId, token, onState, onError, onAck, onStatus, pace });
    this.version = null;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.counter = 0;
    this.retryTimer = 0;
    this.pingTimer = 0;
    this.pongTimer = 0;
    this.stateReceived = false;
    this.onOnline = () => this.retryNow();
    this.onVisible = () => {
      if (document.visibilityState === "visible") this.retryNow();
    };
    window.addEventListener("online", this.onOnline);
    document.addEventListener("visibilitychange", this.onVisible);
  }

  get url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.status(this.attempt === 0 && !this.stateReceived ? "connecting" : "reconnecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.hello();
      this.startPings();
    });
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", (event) => this.closed(ws, event));
    // An "error" event is always followed by "close", which decides what to do next.
  }

  /** Say hello on the open socket (again, to change the pace: the server answers with a state). */
  hello() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const hello = { type: "hello", match: this.matchId, token: this.token };
    if (this.version !== null) hello.version = this.version;
    const pace = this.pace?.();
    if (pace) hello.pace = pace;
    this.ws.send(JSON.stringify(hello));
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    clearTimeout(this.pongTimer);
    switch (msg.type) {
      case "state":
        this.attempt = 0;
        this.stateReceived = true;
        if (typeof msg.version === "number") this.version = msg.version;
        this.status("open");
        this.onState?.(msg.view, msg.version);
        break;
      case "ack":
        this.onAck?.(msg);
        break;
      case "error":
        this.onError?.(msg);
        break;
      default:
        break; // pong and anything newer than this client: nothing to do
    }
  }

  closed(ws, event) {
    if (ws !== this.ws) return;
    this.stopPings();
    this.ws = null;
    if (this.stopped) return;
    const fatal = FATAL_CLOSE[event.code];
    if (fatal) {
      this.stopped = true;
      this.status("closed", fatal);
      return;
    }
    this.scheduleRetry();
  }

  scheduleRetry() {
    if (this.stopped) return;
    this.status("reconnecting");
    // 0.5 s, 1 s, 2 s ... capped at 10 s, with jitter so many clients do not return in step.
    const base = Math.min(10000, 500 * 2 ** this.attempt);
    const delay = base / 2 + Math.random() * (base / 2);
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  retryNow() {
    if (this.stopped || this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  /** Force a fresh connection (and so a fresh full state), e.g. after a stale version. */
  resync() {
    if (this.stopped) return;
    if (this.ws) this.ws.close(4000, "resync");
    else this.retryNow();
  }

  startPings() {
    this.stopPings();
    // The server pings too; these pings let the client notice a dead link on its side.
    this.pingTimer = setInterval(() => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
      this.ws.send(JSON.stringify({ type: "ping" }));
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => this.ws?.close(4000, "no pong"), 10000);
    }, 25000);
  }

  stopPings() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && this.stateReceived;
  }

  /** Send an action from `legal_actions`; returns its id, or null when not connected. */
  act(action) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || this.version === null) return null;
    this.counter += 1;
    const id = `c${Date.now().toString(36)}-${this.counter}`;
    this.ws.send(JSON.stringify({ type: "act", id, version: this.version, action }));
    return id;
  }

  status(s, detail) {
    this.onStatus?.(s, detail);
  }

  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.stopPings();
    window.removeEventListener("online", this.onOnline);
    document.removeEventListener("visibilitychange", this.onVisible);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(1000, "leaving");
    }
  }
}
