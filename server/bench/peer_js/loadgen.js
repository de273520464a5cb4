// The one load generator of the peer benchmark: it drives the Gin Rummy server (REST to create
// players and matches, the WebSocket /ws protocol) or a boardgame.io server (its lobby, then its
// socket.io transport) with the same scripted players, pace and phases.
//
// Usage: node loadgen.js CONFIG_JSON. CONFIG: {target: "ours"|"bgio", url, urls (ours: the
// replicas; the two seats of match i play on replicas i and i + 1, modulo their count), matches, mode:
// "hvh"|"hvc" (ours only: human vs human, or human vs the computer), difficulty, think (seconds;
// a player pauses uniform 0.5x..1.5x of it before each move in the paced phase, not at all when
// saturated), deflate (offer permessage-deflate as browsers do)}.
//
// Talks to its caller by lines: it prints {"event":"ready"} once every match is set up and its
// players hold their first state, then runs each phase named on stdin ("paced", "saturated")
// until the next line, printing {"event":"phase",...} with its figures, and exits on "stop".
// A move is counted when its sender hears it applied: ours acknowledges with `ack` after the
// commit; boardgame.io sends the new state (it writes to its storage afterwards). It counts in
// the phase it was sent in if that phase is still running; with `bySend` (the load benchmark's
// scale mode) whenever its answer comes, every phase's figures printed on "stop" after
// `graceMs`, with each move's latency (`latencies_ms`) when `latencies` is set.
'use strict';

const http = require('http');
const readline = require('readline');
const WebSocket = require('ws');
const { io } = require('socket.io-client');

const config = JSON.parse(process.argv[2]);
const PER_ADDRESS = 25; // players per loopback address (ours allows 30 new identities a minute each)
const GAME = 'gin-lite';
const FIRST_STATE_MS = 20000; // a seat's first state after it connects, at the most
const REQUEST_MS = 20000; // a REST answer, at the most

let phase = null; // {name, think, started, moves, newMatches, latencies, errors}
let setupErrors = 0;
let unavailable = 0; // REST calls answered 503 unavailable, and tried again
let busy = 0; // of those, refused by a busy server (with Retry-After), tried again after it
let refusedSetups = 0; // matches never set up: the server stayed busy for BUSY_FOR_MS
let cameBack = 0; // matches set up after the server first refused them as busy
const BUSY_FOR_MS = config.busyForMs ?? 60000; // how long a player keeps coming back to a busy server
let settingUp = true;
let stopping = false;

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function localAddress(index) {
  // As the Python load's (server/bench/load/clients.py): 127.0.0.2 to 127.0.0.251, then 127.0.1.2...
  const group = Math.floor(index / PER_ADDRESS);
  return `127.0.${Math.floor(group / 250)}.${2 + (group % 250)}`;
}

function request(method, url, body, headers, local) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      url,
      {
        method,
        localAddress: local,
        headers: { 'content-type': 'application/json', ...(data ? { 'content-length': data.length } : {}), ...headers },
        agent: false,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (res.statusCode >= 300) {
            const retryAfter = Number(res.headers['retry-after']) || null; // a busy server's 503: when to come back
            reject(Object.assign(new Error(`${method} ${url}: ${res.statusCode} ${text}`), { status: res.statusCode, retryAfter }));
          }
          else resolve(text ? JSON.parse(text) : {});
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(REQUEST_MS, () => req.destroy(new Error(`${method} ${url}: no answer in ${REQUEST_MS / 1000} s`)));
    if (data) req.write(data);
    req.end();
  });
}

function within(promise, ms, what) {
  // A setup step that never ends fails its match (counted) instead of holding the run.
  let timer;
  const late = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} in ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function later(retryAfter, refusals) {
  // A busy server's Retry-After, doubled for each refusal before the last (up to a minute: a
  // crowd turned away does not come back all at once, again and again), give or take half.
  const seconds = Math.min(60, retryAfter * 2 ** (refusals - 1));
  return new Promise((r) => setTimeout(r, 1000 * seconds * (0.5 + Math.random())));
}

function pause() {
  const think = phase ? phase.think : config.think; // between phases: the pace
  if (think <= 0) return Promise.resolve();
  const ms = 1000 * think * (0.5 + Math.random());
  return new Promise((r) => setTimeout(r, ms));
}

function counted(sentAt, phaseAtSend) {
  // A move counts in the phase it was sent in: if that phase is still running, or at any time
  // with config.bySend.
  if (phaseAtSend && (phase === phaseAtSend || config.bySend)) {
    phaseAtSend.moves += 1;
    phaseAtSend.latencies.push(performance.now() - sentAt);
  }
}

function error(what) {
  if (phase) phase.errors[what] = (phase.errors[what] || 0) + 1;
  else setupErrors += 1;
}

// ---- ours ----------------------------------------------------------------------------------

function choose(view) {
  // A plain choice among legal_actions only (as server/bench/load/players.py): knock with the
  // least deadwood when allowed, else discard to the least deadwood, else draw, take or pass.
  const legal = view.hand.legal_actions;
  const dd = view.hand.discard_deadwood || {};
  const score = (a) => (a.card in dd ? dd[a.card] : 99);
  const knocks = legal.filter((a) => a.kind === 'knock');
  if (knocks.length) return knocks.reduce((b, a) => (score(a) < score(b) ? a : b));
  const discards = legal.filter((a) => a.kind === 'discard');
  if (discards.length) {
    const best = Math.min(...discards.map(score));
    const tied = discards.filter((a) => score(a) === best);
    return tied[Math.floor(Math.random() * tied.length)];
  }
  return legal[Math.floor(Math.random() * legal.length)];
}

class OursSeat {
  constructor(index) {
    this.index = index;
    this.local = localAddress(index);
    const urls = config.urls || [config.url];
    this.url = urls[(Math.floor(index / 2) + (index % 2)) % urls.length];
    this.token = null;
    this.matchId = null;
    this.actedOn = -1;
    this.pending = null;
    this.ids = 0;
    this.firstState = null;
    this.onFinished = null;
  }

  async post(path, body) {
    // 503 unavailable (the database busy) says: try again in a moment. Setup does, a few times.
    // With Retry-After the server is busy with the players it has (it changed nothing): come
    // back after it (longer after each refusal: later()) for up to BUSY_FOR_MS (then the call
    // is refused).
    const started = performance.now();
    let refusals = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await request('POST', this.url + path, body, this.token ? { authorization: `Bearer ${this.token}` } : {}, this.local);
      } catch (e) {
        if (e.status !== 503 || stopping) throw e;
        unavailable += 1;
        if (e.retryAfter) {
          busy += 1;
          refusals += 1;
          // During the setup the player gives its setup slot up at once and comes back on its
          // own (OursMatch.comeBack): the setup goes on with the next one.
          if (settingUp || performance.now() - started >= BUSY_FOR_MS) throw Object.assign(e, { refused: true });
          await later(e.retryAfter, refusals);
          continue;
        }
        if (attempt >= 10) throw e;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  async connect() {
    this.token = (await this.post('/api/players', { name: `Peer ${this.index}` })).token;
    await this.open();
  }

  async open() {
    this.turnedAway = false;
    const url = this.url.replace('http', 'ws') + '/ws';
    this.ws = new WebSocket(url, { localAddress: this.local, perMessageDeflate: config.deflate });
    await new Promise((resolve, reject) => {
      this.ws.once('open', resolve);
      this.ws.once('error', reject);
    });
    this.ws.on('message', (data) => this.received(JSON.parse(data)));
    this.ws.on('close', () => {
      if (!stopping && !this.turnedAway) error('socket_closed');
    });
  }

  hello(matchId) {
    this.matchId = matchId;
    this.actedOn = -1;
    this.pending = null;
    const first = new Promise((resolve, reject) => {
      this.firstState = resolve;
      this.ws.once('close', () => this.firstState && reject(new Error('socket closed before its first state')));
    });
    this.ws.send(JSON.stringify({ type: 'hello', match: matchId, token: this.token }));
    return within(first, FIRST_STATE_MS, 'no first state');
  }

  received(msg) {
    if (msg.type === 'ack') {
      const p = this.pending;
      if (p && msg.id === p.id) counted(p.sentAt, p.phase);
      else error('unexpected_ack');
      this.pending = null;
      return;
    }
    if (msg.type === 'error') {
      error(String(msg.code));
      this.pending = null;
      return;
    }
    if (msg.type !== 'state' || msg.view.match_id !== this.matchId) return;
    if (this.firstState) {
      this.firstState();
      this.firstState = null;
    }
    if (msg.view.status === 'finished') {
      if (this.onFinished) this.onFinished(this);
      return;
    }
    if (!msg.view.hand.legal_actions.length || msg.version === this.actedOn || stopping) return;
    this.actedOn = msg.version;
    this.act(msg.version, msg.view);
  }

  async act(version, view) {
    await pause();
    if (stopping || this.actedOn !== version) return;
    const id = `a${++this.ids}`;
    this.pending = { id, sentAt: performance.now(), phase };
    this.ws.send(JSON.stringify({ type: 'act', id, version, action: choose(view) }));
  }
}

class OursMatch {
  // Human vs human: seat A creates the match and invites B; a finished match is followed by a
  // new one. Human vs the computer: one seat, matches against the computer one after another.
  constructor(index) {
    this.a = new OursSeat(2 * index);
    this.b = config.mode === 'hvh' ? new OursSeat(2 * index + 1) : null;
    this.starting = false;
  }

  async setup() {
    await this.a.connect();
    if (this.b) await this.b.connect();
    for (const seat of [this.a, this.b]) if (seat) seat.onFinished = () => this.next();
    await this.start();
  }

  async start(open = false) {
    // open: the seats' sockets are opened once the match is made (coming back after a refusal).
    const body = this.b ? { opponent: 'human' } : { opponent: 'computer', difficulty: config.difficulty };
    const match = await this.a.post('/api/matches', body);
    if (open) for (const seat of [this.a, this.b]) if (seat) await seat.open();
    const waits = [];
    if (this.b) {
      await this.b.post(`/api/matches/${match.match_id}/join`, { invite: match.invite.code });
      waits.push(this.b.hello(match.match_id));
    }
    waits.push(this.a.hello(match.match_id));
    await Promise.all(waits);
  }

  next() {
    if (this.starting || stopping) return;
    this.starting = true;
    if (phase) phase.newMatches += 1; // boardgame.io's benchmark game never ends: it starts none
    this.start()
      .catch((e) => {
        if (e.refused) this.turnAway();
        error(e.refused ? 'refused' : 'new_match');
      })
      .finally(() => (this.starting = false));
  }

  close() {
    for (const seat of [this.a, this.b]) if (seat && seat.ws) seat.ws.terminate();
  }

  async comeBack(retryAfter) {
    // Refused at setup by a busy server: leave, and come back after its Retry-After (the same
    // identity; a new socket once the match is made) for up to BUSY_FOR_MS, as a person would;
    // true once seated.
    const until = performance.now() + BUSY_FOR_MS;
    this.turnAway();
    for (let refusals = 1; ; refusals++) {
      if (stopping || performance.now() >= until) return false;
      await later(retryAfter, refusals);
      try {
        await this.start(true);
        return true;
      } catch (e) {
        if (!e.refused) throw e;
        retryAfter = e.retryAfter;
      }
    }
  }

  turnAway() {
    // Refused by a full server: leave, as a person would, before the server's hello deadline
    // closes the socket (which the run would count as an error).
    for (const seat of [this.a, this.b]) if (seat) seat.turnedAway = true;
    this.close();
  }
}

// ---- boardgame.io --------------------------------------------------------------------------

class BgioSeat {
  constructor(index, matchID, playerID) {
    this.index = index;
    this.matchID = matchID;
    this.playerID = playerID;
    this.credentials = null;
    this.pending = null;
    this.actedOn = -1;
    this.firstState = null;
  }

  async join() {
    const joined = await request(
      'POST',
      `${config.url}/games/${GAME}/${this.matchID}/join`,
      { playerID: this.playerID, playerName: `Peer ${this.index}` },
      {},
      localAddress(this.index),
    );
    this.credentials = joined.playerCredentials;
  }

  async connect() {
    this.socket = io(`${config.url}/${GAME}`, {
      transports: ['websocket'],
      localAddress: localAddress(this.index),
      perMessageDeflate: config.deflate ? { threshold: 1024 } : false,
      reconnection: false,
      forceNew: true,
    });
    // A socket lost before its first state fails this seat's setup (and is counted).
    const first = new Promise((resolve, reject) => {
      this.firstState = resolve;
      this.socket.on('connect_error', (e) => reject(new Error(`connect: ${e.message}`)));
      this.socket.on('disconnect', (why) => {
        if (this.firstState) reject(new Error(`socket lost before its first state: ${why}`));
        else if (!stopping) error('socket_closed');
      });
    });
    this.socket.on('sync', (matchID, info) => this.state(info.state));
    this.socket.on('update', (matchID, state) => this.state(state));
    this.socket.on('connect', () => this.socket.emit('sync', this.matchID, this.playerID, this.credentials, 2));
    await within(first, FIRST_STATE_MS, 'no first state');
  }

  state(state) {
    if (this.firstState) {
      this.firstState();
      this.firstState = null;
    }
    const p = this.pending;
    if (p && state._stateID > p.stateID) {
      counted(p.sentAt, p.phase);
      this.pending = null;
    }
    if (state.ctx.currentPlayer !== this.playerID || state._stateID === this.actedOn || stopping) return;
    this.actedOn = state._stateID;
    this.act(state);
  }

  async act(state) {
    await pause();
    if (stopping || this.actedOn !== state._stateID) return;
    const G = state.G;
    let move;
    let args;
    if (!G.drawn) {
      move = 'draw';
      args = [G.discard.length && Math.random() < 0.3 ? 'discard' : 'stock'];
    } else {
      move = 'discard';
      args = [G.hand[Math.floor(Math.random() * G.hand.length)]];
    }
    const action = { type: 'MAKE_MOVE', payload: { type: move, args, playerID: this.playerID, credentials: this.credentials } };
    this.pending = { stateID: state._stateID, sentAt: performance.now(), phase };
    this.socket.emit('update', action, state._stateID, this.matchID, this.playerID);
  }
}

class BgioMatch {
  constructor(index) {
    this.index = index;
  }

  async setup() {
    const created = await request('POST', `${config.url}/games/${GAME}/create`, { numPlayers: 2 }, {}, localAddress(2 * this.index));
    this.seats = [new BgioSeat(2 * this.index, created.matchID, '0'), new BgioSeat(2 * this.index + 1, created.matchID, '1')];
    // Both seats join before either connects, as players take their seats in a lobby before
    // the table opens. A join racing a connection loses its credentials under FlatFile: the
    // server's connection handler rewrites the match's metadata from a copy read before the
    // join (boardgame.io 0.50, Master.onConnectionChange), and the seat's sync then goes
    // unanswered for good.
    for (const seat of this.seats) await seat.join();
    for (const seat of this.seats) await seat.connect();
  }

  close() {
    for (const seat of this.seats || []) if (seat.socket) seat.socket.disconnect();
  }
}

// ---- the run -------------------------------------------------------------------------------

function setupFailed(e) {
  setupErrors += 1;
  if (setupErrors <= 3) process.stderr.write(`setup: ${e.message}\n`);
}

async function limited(count, limit, fn) {
  let next = 0;
  async function worker() {
    while (next < count) {
      const i = next++;
      try {
        await fn(i);
      } catch (e) {
        setupFailed(e);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

function quantile(sorted, q) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main() {
  const Match = config.target === 'bgio' ? BgioMatch : OursMatch;
  const matches = Array.from({ length: config.matches }, (_, i) => new Match(i));
  const setupStart = performance.now();
  // Node exits when nothing is left to wait for: a setup waiting only on lost sockets would end
  // the process silently, so a timer keeps it alive until the setup is over.
  const alive = setInterval(() => {}, 1000);
  // A player a busy server refuses leaves its setup slot to the next one and comes back on its
  // own; the setup ends when every player is seated, has failed or has given up.
  const returning = [];
  const comeBack = (match, e) =>
    match.comeBack(e.retryAfter).then((seated) => (seated ? (cameBack += 1) : (refusedSetups += 1)), setupFailed);
  await limited(matches.length, 32, (i) =>
    matches[i].setup().catch((e) => {
      if (!e.refused) throw e;
      returning.push(comeBack(matches[i], e));
    }),
  );
  await Promise.all(returning);
  settingUp = false;
  clearInterval(alive);
  emit({ event: 'ready', matches: matches.length, setup_errors: setupErrors, refused_setups: refusedSetups, came_back: cameBack, unavailable, busy, setup_seconds: (performance.now() - setupStart) / 1000 });
  const lines = readline.createInterface({ input: process.stdin });
  const ended = []; // with bySend: the phases over, printed on "stop"
  const report = (p) => {
    const sorted = p.latencies.sort((x, y) => x - y);
    emit({
      event: 'phase',
      name: p.name,
      seconds: p.seconds,
      moves: p.moves,
      new_matches: p.newMatches,
      p50_ms: quantile(sorted, 0.5),
      p99_ms: quantile(sorted, 0.99),
      ...(config.latencies ? { latencies_ms: sorted.map((x) => Math.round(x * 100) / 100) } : {}),
      errors: p.errors,
    });
  };
  const finish = () => {
    if (!phase) return;
    phase.seconds = (performance.now() - phase.started) / 1000;
    if (config.bySend) ended.push(phase);
    else report(phase);
    phase = null;
  };
  for await (const line of lines) {
    const name = line.trim();
    finish();
    if (name === 'stop') break;
    phase = { name, think: name === 'saturated' ? 0 : config.think, started: performance.now(), moves: 0, newMatches: 0, latencies: [], errors: {} };
  }
  if (ended.length) {
    await new Promise((r) => setTimeout(r, config.graceMs || 0)); // the last answers of the last phase
    ended.forEach(report);
  }
  stopping = true;
  for (const m of matches) m.close();
  // Exit once everything printed has left: to a pipe stdout is written asynchronously, and an
  // exit before that cut a long line (a phase's latencies) at 64 KB.
  process.stdout.write('', () => process.exit(0));
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
