// The table's layout and its top: the regions every other part draws into (built once per
// match), the connection banner and pill, the score bar, the status line with its hint, and the
// summaries of seats whose cards are hidden (the opponent; both seats for a watcher).

import { cardBack, cardShort } from "../cards.js";
import { h, replaceChildren } from "../dom.js";
import { describeEvent, playerName, statusText, who } from "../words.js";
import { can, deadwoodAfter, discardPhase, knockChances, knockLimitNote, knockLimitWords, multiplierNote, myTurn } from "./view.js";

/** The empty regions of the table, already in `root`. */
export function buildTable(root, { watching }) {
  const el = {
    heading: h("h1", { class: "sr-only", tabindex: "-1", id: "play-heading" }, watching ? "Watching a match" : "Your match"),
    connBanner: h("div", { class: "conn-banner", role: "status", hidden: true }),
    scorebar: h("div", { class: "scorebar" }),
    opponent: h("div", { class: "seat-area opponent-area" }),
    piles: h("div", { class: "piles" }),
    statusLine: h("p", { class: "status-line", id: "status-line" }),
    hint: h("p", { class: "hint", id: "hand-hint" }),
    advice: h("div", { class: "advice-slot" }),
    handArea: h("div", { class: "seat-area my-area" }),
    actions: h("div", { class: "actions" }),
    side: h("aside", { class: "side", "aria-label": "This hand and the match" }),
    finished: h("div", { class: "finished-area" }),
    waiting: h("div", { class: "waiting-area" }),
    dialog: h("dialog", { class: "result-dialog", "aria-labelledby": "result-title" }),
  };
  el.felt = h(
    "div",
    { class: "felt", role: "region", "aria-label": "Card table" },
    el.opponent,
    el.piles,
    el.statusLine,
    el.hint,
    el.advice,
    el.handArea,
    el.actions,
  );
  el.table = h(
    "section",
    // "loading" until the first view: nothing of the table is drawn empty, to move once it fills
    { class: "play loading", "aria-labelledby": "play-heading" },
    el.heading,
    el.connBanner,
    el.scorebar,
    h("div", { class: "play-main" }, h("div", { class: "table-col" }, el.waiting, el.felt, el.finished), el.side),
    el.dialog,
  );
  replaceChildren(root, el.table);
  return el;
}

const PILL_TEXT = { open: "Online", connecting: "Connecting\u2026", reconnecting: "Reconnecting\u2026", closed: "Offline" };

export function renderConn({ s, el }) {
  const text =
    s.conn === "reconnecting"
      ? "Connection lost: reconnecting\u2026"
      : s.conn === "connecting"
        ? "Connecting\u2026"
        : s.conn === "closed"
          ? `Disconnected. ${s.connDetail}`
          : "";
  el.connBanner.hidden = !text;
  el.connBanner.textContent = text;
  el.connBanner.dataset.state = s.conn;
  // Closed for good (a match gone, a link not valid for it): the way on, beside the reason.
  if (s.conn === "closed") el.connBanner.append(" ", h("a", { class: "btn", href: "#/" }, "Start a match"));
  const pill = document.getElementById("conn-pill");
  if (pill) {
    pill.hidden = false;
    pill.dataset.state = s.conn;
    pill.textContent = PILL_TEXT[s.conn];
  }
}

export function hideConnPill() {
  const pill = document.getElementById("conn-pill");
  if (pill) pill.hidden = true;
}

export function renderScorebar({ s, el }) {
  const v = s.view;
  const seats = v.seat === 1 ? [1, 0] : [0, 1];
  const rules = v.rules || {};
  const notes = [knockLimitNote(v), multiplierNote(v)].filter(Boolean);
  // Once the match is over the bar shows the final totals (bonuses included), the same numbers
  // as the final score table below it.
  const totals = v.status === "finished" ? v.outcome?.totals : null;
  const scoreOf = (seat) => (totals ? totals[seat]?.total : v.scores?.[seat]) ?? 0;
  replaceChildren(
    el.scorebar,
    h(
      "dl",
      { class: "scores" },
      seats.map((seat) =>
        h(
          "div",
          { class: `score ${v.hand?.to_act === seat && v.status === "active" ? "to-act" : ""}` },
          h("dt", {}, who(v, seat)),
          h("dd", {}, String(scoreOf(seat))),
        ),
      ),
    ),
    h(
      "div",
      { class: "match-facts" },
      h("p", { class: "match-meta" }, `Hand ${v.hand_number} \u00b7 ${rules.label || rules.name || "?"} \u00b7 to ${rules.target ?? 100}`),
      v.seat === null ? null : h("p", { class: "keys-note" }, "Press ", h("kbd", {}, "?"), " for keyboard shortcuts"),
      notes.map((note) => h("p", { class: "hand-note" }, note)),
    ),
  );
}

/** "Tap" on a touch screen, "Click" with a mouse: the status line's instructions. */
function pointerVerb() {
  return window.matchMedia("(pointer: coarse)").matches ? "Tap" : "Click";
}

export function renderStatus({ s, el }) {
  const v = s.view;
  el.statusLine.textContent = statusText(v);
  el.statusLine.classList.toggle("my-turn", myTurn(v));
  let text = "";
  let more = ""; // a second sentence, left out on the narrowest screens
  if (discardPhase(v)) {
    if (s.selected) {
      const left = deadwoodAfter(v, s.selected);
      if (left === undefined) text = `${cardShort(s.selected)} was just taken from the discard pile: choose another card.`;
      else {
        text =
          `Discarding ${cardShort(s.selected)} leaves ${left} deadwood` +
          (can(v, "knock", { card: s.selected }) ? (left === 0 ? ": you can go gin!" : ": you can knock.") : ` (${knockLimitWords(v)}).`) +
          "";
        more = ` ${pointerVerb()} again to discard.`;
      }
    } else {
      const chances = knockChances(v);
      if (chances.length && chances[0].deadwood === 0) {
        text = `You can go gin: discard ${chances.filter((c) => c.deadwood === 0).map((c) => cardShort(c.card)).join(" or ")} with Gin.`;
      } else if (chances.length) {
        text = `You can knock: discard ${chances.map((c) => cardShort(c.card)).join(", ")} (marked) with Knock; the best leaves ${chances[0].deadwood}.`;
      } else {
        const verb = pointerVerb();
        text = `${verb} a card to select it, then ${verb.toLowerCase()} it again or drag it to the discard pile.`;
      }
    }
  } else if (myTurn(v) && v.hand.phase === "upcard") {
    const pile = v.hand.discard_pile || [];
    if (pile.length) text = `The upcard is ${cardShort(pile[pile.length - 1])}: take it, or pass.`;
  }
  replaceChildren(el.hint, text, more ? h("span", { class: "hint-more" }, more) : null);
}

/** The opponent at the top; for a watcher also seat 0 at the bottom, where a player's hand is. */
export function renderSeats({ s, el, watching }) {
  const v = s.view;
  replaceChildren(el.opponent, seatSummary(v, v.seat === null ? 1 : 1 - v.seat));
  if (watching) replaceChildren(el.handArea, seatSummary(v, 0));
}

function seatSummary(v, seat) {
  const p = (v.players || []).find((x) => x.seat === seat) || {};
  const count = v.hand?.hand_counts?.[seat] ?? 0;
  const toAct = v.hand?.to_act === seat && v.status === "active";
  const last = (v.hand?.history || []).filter((e) => e.seat === seat).slice(-2);
  return h(
    "div",
    { class: "seat-summary" },
    h(
      "div",
      { class: "seat-head" },
      h("h2", { class: "seat-name" }, playerName(v, seat), p.bot ? h("span", { class: "badge ladder-bot" }, "Bot") : null),
      h(
        "div",
        { class: "backs", role: "img", "aria-label": `${playerName(v, seat)} holds ${count} cards` },
        Array.from({ length: count }, () => cardBack("small")),
      ),
      toAct ? h("span", { class: "badge thinking" }, p.kind === "computer" ? "thinking\u2026" : "to play") : null,
      p.kind === "human" && p.connected === false ? h("span", { class: "badge away" }, "offline") : null,
    ),
    h(
      "p",
      { class: "last-move" },
      last.length
        ? last
            .map((e, i) => describeEvent(v, e, { short: true, subject: false }).replace(/^./, (c) => (i ? c.toLowerCase() : c)))
            .join(", then ")
        : "\u00a0",
    ),
  );
}
