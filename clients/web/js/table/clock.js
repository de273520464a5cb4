// The match clock at the table (docs/protocol.md, "Clocks, claims and rematches"): both seats'
// time, counting down locally from the view's `remaining_ms` (no synced clock needed: the count
// starts when the view arrives), a warning colour when the server says `warning`, and a polite
// live region that speaks only when something changes (whose clock runs, the warning, a timeout),
// never every second. Also the claim: when the opponent is gone, when the win can be claimed,
// then the button.

import { api } from "../api.js";
import { h, replaceChildren, toast } from "../dom.js";
import { who } from "../words.js";

const TICK_MS = 250;

/** "2:05", "0:09", "1 d 3:00:00". */
export function formatMs(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  if (days) return `${days} d ${hours}:${String(minutes).padStart(2, "0")}:${seconds}`;
  if (hours) return `${hours}:${String(minutes).padStart(2, "0")}:${seconds}`;
  return `${minutes}:${seconds}`;
}

/** Words for a screen reader: "2 minutes 5 seconds". */
function spokenMs(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const parts = [];
  const units = [
    [86400, "day"],
    [3600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  let rest = total;
  for (const [size, name] of units) {
    const n = Math.floor(rest / size);
    rest %= size;
    if (n) parts.push(`${n} ${name}${n === 1 ? "" : "s"}`);
  }
  return parts.join(" ") || "no time";
}

function ensureRegion(t) {
  if (t.clock) return t.clock;
  const box = h("div", { class: "clock-bar", "data-testid": "clock" });
  const live = h("p", { class: "sr-only", "aria-live": "polite", "data-testid": "clock-live" });
  const claim = h("div", { class: "claim-area", hidden: true });
  t.el.scorebar.after(box, claim);
  box.after(live);
  t.clock = { box, live, claim, base: null, timer: 0, spoken: "", seats: [], claimState: "" };
  t.clock.timer = setInterval(() => tick(t), TICK_MS);
  return t.clock;
}

/** Stop the countdown (the table is going away). */
export function stopClock(t) {
  if (t.clock) clearInterval(t.clock.timer);
}

function elapsed(c) {
  return c.base ? performance.now() - c.base.at : 0;
}

/** Each seat's time left now: [{move, bank, total, running}] by seat. */
function times(view, c) {
  const clock = view.clock;
  const gone = view.status === "active" ? elapsed(c) : 0;
  return clock.seats.map((seat, i) => {
    const running = clock.running === i;
    const used = running ? gone : 0;
    const move = Math.max(0, seat.move_ms - used);
    const bank = Math.max(0, seat.bank_ms - Math.max(0, used - seat.move_ms));
    return { move, bank, total: move + bank, running, timeouts: seat.timeouts };
  });
}

export function renderClock(t) {
  const v = t.s.view;
  if (!v) return;
  if (!v.clock && !v.claim_at && !t.clock) return;
  const c = ensureRegion(t);
  if (!c.base || c.base.view !== v) {
    const before = c.base?.view;
    c.base = { view: v, at: performance.now() };
    speak(t, before, v);
  }
  drawClock(t);
  drawClaim(t);
}

function tick(t) {
  if (!t.s.view || !t.clock) return;
  drawClock(t);
  drawClaim(t);
}

function drawClock(t) {
  const v = t.s.view;
  const c = t.clock;
  if (!v.clock) {
    c.box.hidden = true;
    return;
  }
  c.box.hidden = false;
  const tc = v.clock.time_control;
  const warnMs = tc.kind === "realtime" ? 10_000 : tc.move_seconds * 100;
  const now = times(v, c);
  const order = v.seat === 1 ? [1, 0] : [0, 1];
  const key = order.map((seat) => `${seat}:${Math.ceil(now[seat].total / 1000)}:${now[seat].running}`).join("|");
  if (key === c.drawn) return;
  c.drawn = key;
  replaceChildren(
    c.box,
    order.map((seat) => {
      const x = now[seat];
      const warning = x.running && v.status === "active" && (x.total <= warnMs || (v.clock.warning && x.total <= warnMs + 1000));
      return h(
        "div",
        {
          class: `seat-clock${x.running && v.status === "active" ? " running" : ""}${warning ? " warning" : ""}`,
          "data-seat": String(seat),
          role: "timer",
          "aria-label": `${who(v, seat)}: ${spokenMs(x.total)} left`,
        },
        h("span", { class: "clock-name" }, who(v, seat)),
        h("span", { class: "clock-time" }, formatMs(x.total)),
        h("span", { class: "clock-detail" }, x.running ? `move ${formatMs(x.move)} + bank ${formatMs(x.bank)}` : `bank ${formatMs(x.bank)}`),
      );
    }),
  );
}

/** Speak (politely) what changed: whose clock runs, the warning, a timeout. */
function speak(t, before, v) {
  const c = t.clock;
  const clock = v.clock;
  if (!clock || v.status !== "active") return;
  const parts = [];
  if (clock.last_timeout !== null && clock.last_timeout !== before?.clock?.last_timeout) {
    parts.push(clock.last_timeout === v.seat ? "Your time ran out: the server played a safe move for you." : `${who(v, clock.last_timeout)} ran out of time: the server played for them.`);
  }
  const running = clock.running;
  if (clock.warning && !(before?.clock?.warning && before.clock.running === running)) {
    parts.push(running === v.seat ? `Hurry: ${spokenMs(clock.remaining_ms)} left.` : `${who(v, running)} has ${spokenMs(clock.remaining_ms)} left.`);
  } else if (running !== before?.clock?.running && running === v.seat) {
    parts.push(`Your clock is running: ${spokenMs(clock.remaining_ms)}.`);
  }
  const text = parts.join(" ");
  if (text && text !== c.spoken) {
    c.spoken = text;
    c.live.textContent = text;
  }
}

function drawClaim(t) {
  const v = t.s.view;
  const c = t.clock;
  if (t.watching || !v.claim_at || v.status !== "active") {
    c.claim.hidden = true;
    c.claimState = "";
    return;
  }
  const left = Math.max(0, v.claim_in_ms - elapsed(c));
  const ready = left <= 0;
  const state = ready ? "ready" : `wait:${Math.ceil(left / 1000)}`;
  if (state === c.claimState) return;
  c.claimState = state;
  c.claim.hidden = false;
  const opponent = who(v, 1 - v.seat);
  replaceChildren(
    c.claim,
    h(
      "p",
      { class: "claim-note", role: ready ? "status" : null },
      ready ? `${opponent} has left the match. You can claim the win, or wait for them.` : `${opponent} is disconnected. If they do not come back, you can claim the win in ${formatMs(left)}.`,
    ),
    ready
      ? h(
          "button",
          {
            class: "btn primary",
            type: "button",
            "data-testid": "claim",
            onclick: async (e) => {
              e.target.disabled = true;
              try {
                await api("POST", `/api/matches/${encodeURIComponent(t.matchId)}/claim`);
              } catch (err) {
                toast(err.message, "error");
                e.target.disabled = false;
              }
            },
          },
          "Claim the win",
        )
      : null,
  );
}
