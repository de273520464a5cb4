// Replaying a finished match card by card from its record (GET /api/matches/{id}/record): each
// deal and every action, moved on screen exactly as recorded. This is display, not rules: the
// record says which card went where, and the hand's result (melds, layoffs, score) comes from
// the server. Both hands are shown face up, since the match is over. Without a match id
// (#/replay) the page imports a match in the text notation (docs/notation.md) and replays that.
// Keys: left and right arrows step a move, Page Up and Page Down a hand, Home and End go to the
// hand's first and last move, Space plays and pauses. Beside it, Hard's analysis of the
// player's decisions in that hand (analysis.js).

import { getAnalysis, moveNote, replayAnalysis } from "./analysis.js";
import { getRecord } from "./api.js";
import { bySuit, cardName, cardShort, miniCard } from "./cards.js";
import { announce, h, replaceChildren } from "./dom.js";
import { resultBlock } from "./results.js";
import { seatIn } from "./history.js";
import { describeEvent, playerName, who } from "./words.js";
import { dealStatus } from "./verify.js";
import { importForm, matchExportButtons } from "./exporting.js";

/** The cards after the first `step` actions of a recorded hand. */
export function replayHand(hand, step) {
  const hands = [[...hand.hands[0]], [...hand.hands[1]]];
  const stock = [...hand.stock];
  const discard = [hand.upcard];
  let moved = null;
  let event = null;
  for (const { seat, action, timed_out: timedOut } of hand.actions.slice(0, step)) {
    moved = null;
    switch (action.kind) {
      case "take_upcard":
        moved = discard.pop();
        hands[seat].push(moved);
        event = { seat, kind: "take_upcard", card: moved };
        break;
      case "pass":
        event = { seat, kind: "pass" };
        break;
      case "draw":
        moved = action.source === "stock" ? stock.shift() : discard.pop();
        hands[seat].push(moved);
        event = { seat, kind: "draw", source: action.source, card: moved };
        break;
      case "discard":
      case "knock":
        moved = action.card;
        hands[seat] = hands[seat].filter((c) => c !== moved);
        discard.push(moved);
        event = { seat, kind: action.kind, card: moved };
        break;
      default:
        event = { seat, kind: action.kind };
    }
    if (timedOut) event.timed_out = true;
  }
  return { hands, stock, discard, moved, event };
}

export function mountReplay(root, { matchId }) {
  const body = h("div", { class: "replay-body" }, h("p", { class: "muted", role: "status" }, "Loading the record\u2026"));
  const heading = h("h1", { tabindex: "-1" }, "Replay");
  replaceChildren(
    root,
    h("section", { class: "replay" }, h("p", {}, h("a", { href: "#/history" }, "\u2190 All finished matches")), heading, body),
  );
  heading.focus({ preventScroll: true });
  let timer = 0;
  let onKey = null;

  if (!matchId) {
    heading.textContent = "Replay an exported match";
    replaceChildren(
      body,
      importForm((record) => {
        stop();
        start(record);
        if (record.hidden) body.prepend(h("p", { class: "muted" }, `${record.hidden} hand${record.hidden === 1 ? "" : "s"} not shown: the file keeps some of its cards hidden.`));
      }),
    );
    return stop;
  }

  getRecord(matchId).then(
    (record) => {
      start(record);
      body.append(matchExportButtons(matchId));
    },
    (e) =>
      replaceChildren(
        body,
        h(
          "p",
          { class: "form-error", role: "alert" },
          e.code === "match_not_over" ? "This match is not over yet: it can be replayed once it ends." : `Could not load the replay: ${e.message}`,
        ),
      ),
  );

  function start(record) {
    const seat = seatIn(record);
    const ctx = { players: record.players || [], seat };
    // A hand left unfinished (a resignation) keeps the other seat's cards and the stock hidden:
    // it cannot be replayed card by card, and is said to be left out.
    const hands = (record.hands || []).filter((x) => x.stock && x.hands.every(Boolean));
    const unfinished = (record.hands || []).length - hands.length;
    const unfinishedNote = unfinished && !record.hidden ? h("p", { class: "muted replay-unfinished" }, "The last hand was left unfinished: it is not replayed, since its cards stay hidden.") : null;
    if (!hands.length) {
      replaceChildren(body, h("p", {}, "This match has no hands to replay."));
      return;
    }
    heading.textContent = `Replay: ${playerName(ctx, 0)} against ${playerName(ctx, 1)}`;
    let handIndex = 0;
    let step = 0;

    const table = h("div", { class: "felt replay-felt" });
    const caption = h("p", { class: "status-line replay-caption", "aria-live": "polite" });
    const position = h("p", { class: "muted replay-position" });
    const resultArea = h("div", { class: "replay-result" });
    const analysisArea = h("div", { class: "replay-analysis" });
    const noteArea = h("div", { class: "replay-move-analysis", "aria-live": "polite" });
    // An imported file has no match on this server to analyse.
    let analysis = matchId ? null : { error: "this match was imported from a file" };
    if (matchId) getAnalysis(matchId).then(
      (a) => {
        analysis = a;
        draw();
      },
      (e) => {
        analysis = { error: e.message };
        draw();
      },
    );
    const arrow = (a) => h("span", { "aria-hidden": "true" }, a);
    const btn = (before, text, after, fn) =>
      h("button", { class: "btn", type: "button", onclick: fn }, before ? arrow(before) : null, text, after ? arrow(after) : null);
    const playBtn = h("button", { class: "btn primary", type: "button", onclick: () => togglePlay() }, "Play");
    const controls = h(
      "div",
      { class: "replay-controls", role: "group", "aria-label": "Replay controls" },
      btn("\u00ab", "Previous hand", "", () => go(handIndex - 1, 0)),
      btn("\u25c0", "Previous move", "", () => go(handIndex, step - 1)),
      playBtn,
      btn("", "Next move", "\u25b6", () => next()),
      btn("", "Next hand", "\u00bb", () => go(handIndex + 1, 0)),
    );
    const deal = dealStatus(h, record);
    const keys = h("p", { class: "muted replay-keys" }, "Keys: \u2190 \u2192 move \u00b7 Page Up/Down hand \u00b7 Home/End first/last move \u00b7 Space play");
    replaceChildren(body, unfinishedNote, position, deal.el, caption, noteArea, table, controls, keys, resultArea, analysisArea);

    function scoresBefore(index) {
      const scores = [0, 0];
      for (const hand of hands.slice(0, index)) {
        const r = hand.result;
        if (r && r.winner !== null && r.winner !== undefined) scores[r.winner] += r.points;
      }
      return scores;
    }

    function go(hi, st) {
      if (hi < 0 || hi >= hands.length) return;
      const hand = hands[hi];
      handIndex = hi;
      step = Math.max(0, Math.min(st, hand.actions.length));
      draw();
    }

    function next() {
      const hand = hands[handIndex];
      if (step < hand.actions.length) go(handIndex, step + 1);
      else if (handIndex + 1 < hands.length) go(handIndex + 1, 0);
      else stopPlay();
    }

    function togglePlay() {
      if (timer) stopPlay();
      else {
        playBtn.textContent = "Pause";
        timer = setInterval(next, 900);
      }
    }
    function stopPlay() {
      clearInterval(timer);
      timer = 0;
      playBtn.textContent = "Play";
    }

    function seatRow(state, s, hand) {
      const held = new Set(state.hands[s]);
      // Melds are underlined as at the table: at a hand's end the result's (the server's), before
      // it each seat's best arrangement at this step (the record's `melds_by_step`).
      const meldOf = new Map();
      const melds = step === hand.actions.length && hand.result ? hand.result.melds?.[s] : hand.melds_by_step?.[step]?.[s];
      (melds || []).forEach((m, i) => m.forEach((c) => held.has(c) && meldOf.set(c, i)));
      // Each meld's cards side by side, in the meld's order; the other cards after, by suit.
      const cards = [...meldOf.keys(), ...[...held].filter((c) => !meldOf.has(c)).sort(bySuit)];
      return h(
        "div",
        { class: "seat-area" },
        h(
          "h2",
          { class: "seat-name" },
          who(ctx, s),
          hand.starter === s ? h("span", { class: "badge" }, "starter") : h("span", { class: "badge" }, "dealer"),
        ),
        h(
          "div",
          { class: "hand replay-hand", role: "group", "aria-label": `${who(ctx, s)}: ${cards.map(cardName).join(", ")}` },
          cards.map((c) => miniCard(c, `large ${c === state.moved ? "fresh" : ""} ${meldOf.has(c) ? `melded meld-${meldOf.get(c) % 4}` : ""}`)),
        ),
      );
    }

    function draw() {
      const hand = hands[handIndex];
      const state = replayHand(hand, step);
      const top = state.discard[state.discard.length - 1];
      const [s0, s1] = seat === 1 ? [0, 1] : [1, 0];
      replaceChildren(
        table,
        seatRow(state, s0, hand),
        h(
          "div",
          { class: "piles" },
          h(
            "div",
            { class: "pile-slot" },
            h("span", { class: "pile stock", role: "img", "aria-label": `Stock, ${state.stock.length} cards` }, h("span", { class: "card back" }), h("span", { class: "pile-count", "aria-hidden": "true" }, String(state.stock.length))),
            h("span", { class: "pile-caption", "aria-hidden": "true" }, "Stock"),
          ),
          h(
            "div",
            { class: "pile-slot" },
            h("span", { class: "pile discard", role: "img", "aria-label": top ? `Discard pile, top card ${cardName(top)}` : "Discard pile, empty" }, top ? miniCard(top, "large top") : h("span", { class: "card empty" })),
            h("span", { class: "pile-caption", "aria-hidden": "true" }, "Discard pile"),
          ),
        ),
        seatRow(state, s1, hand),
      );
      deal.show(hand.number ?? handIndex + 1);
      const scores = scoresBefore(handIndex);
      position.textContent = `Hand ${hand.number ?? handIndex + 1} of ${hands.length} \u00b7 move ${step} of ${hand.actions.length} \u00b7 score before this hand: ${who(ctx, 0)} ${scores[0]}, ${who(ctx, 1)} ${scores[1]}`;
      let text;
      if (step === 0) {
        text = `Hand ${hand.number ?? handIndex + 1} dealt. ${who(ctx, hand.starter)} ${hand.starter === seat ? "start" : "starts"}; the upcard is ${cardShort(hand.upcard)}.`;
      } else {
        const viewLike = { players: ctx.players, seat, hand: { result: hand.result } };
        text = describeEvent(viewLike, state.event, { short: true });
        if (state.event.kind === "draw" && state.event.source === "stock") text += ` (${cardShort(state.moved)})`;
        text += ".";
      }
      caption.textContent = text;
      replaceChildren(noteArea, moveNote(analysis, hand.number ?? handIndex + 1, step));
      replaceChildren(analysisArea, replayAnalysis(analysis, hand.number ?? handIndex + 1, step, (st) => go(handIndex, st)));
      const over = step === hand.actions.length;
      if (over && hand.result) {
        replaceChildren(resultArea, h("h2", {}, `Hand ${hand.number ?? handIndex + 1} result`), resultBlock(ctx, hand.result));
      } else if (over && record.outcome?.reason === "resign" && handIndex === hands.length - 1) {
        replaceChildren(resultArea, h("p", { class: "score-line" }, `${who(ctx, 1 - record.outcome.winner)} resigned here.`));
      } else {
        replaceChildren(resultArea);
      }
    }

    onKey = (e) => {
      if (e.target.closest?.("input, textarea, select") || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === "ArrowRight") next();
      else if (e.key === "ArrowLeft") go(handIndex, step - 1);
      else if (e.key === "PageDown") go(handIndex + 1, 0);
      else if (e.key === "PageUp") go(handIndex - 1, 0);
      else if (e.key === "Home") go(handIndex, 0);
      else if (e.key === "End") go(handIndex, hands[handIndex].actions.length);
      else if (e.key === " " && !e.target.closest?.("button, a")) togglePlay();
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    go(0, 0);
    announce(`Replay loaded: ${hands.length} hands. Use Next move to step through.`);
  }

  function stop() {
    clearInterval(timer);
    timer = 0;
    if (onKey) document.removeEventListener("keydown", onKey);
    onKey = null;
  }
  return stop;
}
