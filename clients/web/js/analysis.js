// Explained play in the browser: the server's analysis of the player's decisions
// (GET /api/matches/{id}/analysis) shown beside the replay, as the biggest mistake in the
// "Hand N is over" dialog and on its own page (#/analysis/ID); and hints at the table
// (GET /api/matches/{id}/hint) when the player turns them on, only against the computer and
// never in a rated match. Values are the server's: expected points of the hand for the player,
// as Hard reckons them from what the player could see then. Display only.

import { api } from "./api.js";
import { cardShort } from "./cards.js";
import { h, replaceChildren } from "./dom.js";
import { loadSettings } from "./settings.js";
import { typeset } from "./words.js";

const path = (matchId, what) => `/api/matches/${encodeURIComponent(matchId)}/${what}`;
export const getAnalysis = (matchId) => api("GET", path(matchId, "analysis"));
export const getHint = (matchId) => api("GET", path(matchId, "hint"));

/** Each action's words, as said now ("draw from the stock") and as the opponent played it
 * ("drew from the stock"); a discard or knock names its card after them. */
const VERBS = {
  take_upcard: ["take the upcard", "took the upcard"],
  pass: ["pass", "passed"],
  stock: ["draw from the stock", "drew from the stock"],
  pile: ["take the discard", "took the discard"],
  discard: ["discard", "discarded"],
  knock: ["knock, discarding", "knocked, discarding"],
};

/** An action in a few words: "draw from the stock", "knock, discarding 7♥"; ``past``: "knocked,
 * discarding 7♥". */
export function actionText(a, { past = false } = {}) {
  const key = a?.kind === "draw" ? (a.source === "stock" ? "stock" : "pile") : a?.kind;
  const verb = VERBS[key]?.[past ? 1 : 0];
  if (!verb) return "?";
  return a.card ? `${verb} ${cardShort(a.card)}` : verb;
}

/** What Hard would play, said against what was played: when the only difference is the knock,
 * "discard 6♣ and play on" (not "discard 6♣" beside "knock, discarding 6♣", which read as the
 * same move). */
export function bestText(best, played) {
  if (best?.kind === "discard" && played?.kind === "knock" && best.card === played.card) {
    return `discard ${cardShort(best.card)} and play on, without knocking`;
  }
  return actionText(best);
}

const points = (x) => `${x >= 0 ? "+" : "\u2212"}${Math.abs(x).toFixed(1)}`;
/** What the hand scored for the player, signed with a minus sign as `points` is. */
const handResult = (hand) => `Result: ${hand.points > 0 ? "+" : hand.points < 0 ? "\u2212" : ""}${Math.abs(hand.points)} point${Math.abs(hand.points) === 1 ? "" : "s"}.`;

/** A decision's loss in brackets; none (Hard chose otherwise, but the values say the played
 * action is worth as much) is said in words, not as "−0.0". */
const lossText = (d, unit = "") => (d.loss >= 0.05 ? `(\u2212${d.loss.toFixed(1)}${unit})` : "(yours is as good)");

/** One decision as a list item; ``theirs``: the opponent's ("They discarded …"). */
function decisionLine(d, { current = false, onPick = null, theirs = false } = {}) {
  const same = JSON.stringify(d.played) === JSON.stringify(d.best);
  const cls = `decision ${d.mistake ? "mistake" : same ? "agreed" : "differs"} ${current ? "current" : ""}`.trim();
  const played = theirs ? `They ${actionText(d.played, { past: true })}` : `You ${actionText(d.played)}`;
  const words = same ? `${played}: as Hard would.` : `${played}; Hard would ${bestText(d.best, d.played)} ${lossText(d)}.`;
  const body = [
    d.mistake ? h("span", { class: "mistake-mark", "aria-label": "Mistake" }, "!") : null,
    h("span", { class: "decision-words" }, words),
    same ? null : h("span", { class: "decision-why muted" }, ` ${d.explanation}`),
  ];
  return h(
    "li",
    { class: cls, dataset: { step: String(d.step) } },
    onPick ? h("button", { class: "linklike", type: "button", onclick: () => onPick(d.step + 1) }, body) : body,
  );
}

/** The luck-versus-skill line, as the server words it. */
export function summaryLine(analysis) {
  return h("p", { class: "analysis-summary" }, typeset(analysis.summary));
}

/** Beside the replay: this hand's decisions, mistakes marked, the one just played highlighted;
 * a decision is a button that moves the replay to just after it. */
export function replayAnalysis(analysis, handNumber, step, go) {
  if (!analysis) return h("p", { class: "muted analysis-panel" }, "Loading the analysis\u2026");
  if (analysis.error) return h("p", { class: "muted analysis-panel" }, `No analysis: ${analysis.error}`);
  const hand = analysis.hands.find((x) => x.number === handNumber);
  if (!hand) return h("p", { class: "muted analysis-panel" }, "This hand has no analysis.");
  return h(
    "section",
    { class: "panel analysis-panel", "aria-label": "Analysis" },
    h("h2", {}, "Analysis"),
    summaryLine(analysis),
    h(
      "p",
      { class: "muted" },
      `This deal was worth ${points(hand.start_value)} to you; you lost ${hand.lost.toFixed(1)} points, ${hand.mistakes.length} mistake${hand.mistakes.length === 1 ? "" : "s"}; your opponent lost ${hand.opponent_lost.toFixed(1)}. ${handResult(hand)}`,
    ),
    h(
      "ol",
      { class: "decision-list" },
      hand.decisions.map((d) => decisionLine(d, { current: d.step === step - 1, onPick: go })),
    ),
    opponentMistakes(hand, { step, onPick: go }),
  );
}

/** The opponent's mistakes in a hand, under the player's decisions (nothing when none). */
function opponentMistakes(hand, { step = 0, onPick = null } = {}) {
  if (!hand.opponent_mistakes?.length) return null;
  return [
    h("h3", { class: "opponent-mistakes" }, "Your opponent's mistakes"),
    h(
      "ol",
      { class: "decision-list" },
      hand.opponent_mistakes.map((d) => decisionLine(d, { theirs: true, current: d.step === step - 1, onPick })),
    ),
  ];
}

/** Under the replay's caption, for the move just shown: Hard's word on it (the player's moves;
 * the opponent's when they were mistakes). */
export function moveNote(analysis, handNumber, step) {
  const hand = analysis?.hands?.find((x) => x.number === handNumber);
  const theirs = hand?.opponent_mistakes?.find((x) => x.step === step - 1);
  const d = hand?.decisions.find((x) => x.step === step - 1) ?? theirs;
  if (!d) return null;
  const same = JSON.stringify(d.played) === JSON.stringify(d.best);
  const words = same ? "Hard would have played this too." : `Hard would ${bestText(d.best, d.played)} ${lossText(d)}. ${d.explanation}`;
  return h(
    "p",
    { class: `analysis-move-note ${d.mistake ? "mistake" : ""}`.trim() },
    d.mistake ? h("span", { class: "mistake-mark", "aria-label": "Mistake" }, "!") : null,
    theirs ? `Your opponent's mistake: ${words}` : words,
  );
}

/** In the "Hand N is over" dialog: the hand's biggest mistake and a link to the whole analysis.
 * Filled in when the analysis arrives; nothing is shown when it cannot be had. */
const afterHand = new Map(); // "match:hand" -> the analysis asked for once that hand was over

export function mistakeNote(matchId, number) {
  const el = h("div", { class: "mistake-note", "aria-live": "polite" }, h("p", { class: "muted" }, "Hard is looking at your play\u2026"));
  // The dialog is drawn again at every redraw: ask the server once per finished hand.
  const key = `${matchId}:${number}`;
  if (!afterHand.has(key)) afterHand.set(key, getAnalysis(matchId));
  afterHand.get(key).then(
    (analysis) => {
      const hand = analysis.hands.find((x) => x.number === number);
      if (!hand) return replaceChildren(el);
      const worst = hand.decisions.find((d) => d.step === hand.mistakes[0]);
      replaceChildren(
        el,
        h(
          "p",
          {},
          h("strong", {}, "Biggest mistake: "),
          worst
            ? `you ${actionText(worst.played)}; Hard would ${bestText(worst.best, worst.played)} ${lossText(worst, " points")}. ${worst.explanation}`
            : "none: Hard would have played this hand as you did.",
          " ",
          h("a", { href: `#/analysis/${encodeURIComponent(matchId)}` }, "Full analysis"),
        ),
      );
    },
    () => replaceChildren(el),
  );
  return el;
}

/** The page #/analysis/ID: every finished hand's decisions, the mistakes first. */
export function mountAnalysis(root, { matchId }) {
  const body = h("div", {}, h("p", { class: "muted", role: "status" }, "Hard is looking at your play\u2026"));
  const heading = h("h1", { tabindex: "-1" }, "Analysis");
  replaceChildren(
    root,
    h(
      "section",
      { class: "analysis-page" },
      h("p", {}, h("a", { href: `#/play/${encodeURIComponent(matchId)}` }, "\u2190 Back to the match")),
      heading,
      body,
    ),
  );
  heading.focus({ preventScroll: true });
  getAnalysis(matchId).then(
    (a) =>
      replaceChildren(
        body,
        summaryLine(a),
        h(
          "p",
          { class: "muted" },
          "Values are expected points of the hand for you, as Hard reckons them from what you could see at the time. What your opponent loses the same way comes back to you: over many hands, the deals' worth, less your losses, plus your opponent's, comes near your result. A single hand also turns on the cards drawn.",
        ),
        a.hands.map((hand) => {
          const byStep = new Map(hand.decisions.map((d) => [d.step, d]));
          const rest = hand.decisions.filter((d) => !hand.mistakes.includes(d.step) && d.loss > 0);
          return h(
            "section",
            { class: "panel analysis-panel" },
            h("h2", {}, `Hand ${hand.number}`),
            h("p", { class: "muted" }, `Deal worth ${points(hand.start_value)}; you lost ${hand.lost.toFixed(1)} points, your opponent ${hand.opponent_lost.toFixed(1)}. ${handResult(hand)}`),
            h("ol", { class: "decision-list" }, [...hand.mistakes.map((s) => byStep.get(s)), ...rest].map((d) => decisionLine(d))),
            hand.mistakes.length || rest.length ? null : h("p", {}, "You played this hand as Hard would."),
            opponentMistakes(hand),
          );
        }),
        a.status === "finished" ? h("p", {}, h("a", { class: "btn", href: `#/replay/${encodeURIComponent(matchId)}` }, "Replay with the analysis")) : null,
      ),
    (e) => replaceChildren(body, h("p", { class: "form-error", role: "alert" }, `Could not load the analysis: ${e.message}`)),
  );
  return () => {};
}

/** Whether the table may ask for hints: the player's setting, against the computer, unrated. */
export function hintsAllowed(v) {
  if (!loadSettings().hints || v.seat === null || v.seat === undefined || v.status !== "active" || v.rated) return false;
  return v.players?.[1 - v.seat]?.kind === "computer";
}

/** At the table, on the player's turn with hints on: one quiet line with Hard's suggestion.
 * Asked once per match version; the table redraws when the answer comes. */
export function hintLine(t) {
  const v = t.s.view;
  if (!v || t.watching || !hintsAllowed(v) || !v.hand?.legal_actions?.length) return null;
  const got = t.s.hint;
  if (!got || got.version !== v.version) {
    t.s.hint = { version: v.version, data: null };
    const asked = v.version;
    getHint(t.matchId).then(
      (data) => {
        if (t.s.hint?.version !== asked) return;
        t.s.hint = { version: asked, data };
        t.render();
      },
      () => {
        if (t.s.hint?.version !== asked) return;
        t.s.hint = { version: asked, data: null, failed: true }; // (a refusal: no hint this move)
        t.render();
      },
    );
  }
  if (t.s.hint.failed) return null;
  const data = t.s.hint.data;
  return h(
    "p",
    { class: "hint-line", role: "status" },
    h("span", { class: "hint-label" }, "Hint: "),
    data ? `${actionText(data.best)}. ${data.explanation}` : "thinking\u2026",
  );
}
