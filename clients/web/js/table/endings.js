// The ends of hands and of the match at the table: the "Hand N is over" dialog (shown once per
// hand; Next hand or Escape marks it seen, so a reload does not show it again) and the
// match-over panel that takes the table's place. The results themselves are drawn by results.js.

import { mistakeNote } from "../analysis.js";
import { h, replaceChildren } from "../dom.js";
import { settleMotion } from "./motion.js";
import { resultBlock, resultSummary, scoreboard } from "../results.js";
import { store } from "../store.js";
import { who } from "../words.js";

const seenKey = ({ watching, matchId }) => (watching ? `watch-${matchId}` : matchId);

function markSeen(t, number) {
  const key = seenKey(t);
  store.saveSeenResult(key, Math.max(store.seenResult(key), number));
}

/** Open the dialog for the hand just finished, unless this browser has seen it already. */
export function maybeShowResult(t, view) {
  if (view.status === "finished" || !view.last_result) return;
  const number = view.hand_number - 1;
  if (number > store.seenResult(seenKey(t)) && !t.el.dialog.open) showResult(t, view.last_result, number);
}

export function showResult(t, result, number) {
  const { el } = t;
  const v = t.s.view;
  const close = h(
    "button",
    {
      class: "btn primary",
      type: "button",
      onclick: () => {
        markSeen(t, number);
        el.dialog.close();
      },
    },
    "Next hand",
  );
  const [me, them] = v.seat === 1 ? [1, 0] : [0, 1];
  replaceChildren(
    el.dialog,
    h("h2", { id: "result-title" }, `Hand ${number} is over`),
    resultBlock(v, result, { level: 3 }),
    t.watching ? null : mistakeNote(t.matchId, number),
    h(
      "p",
      { class: "running-score" },
      `Score now: ${who(v, me)} ${v.scores[me]}, ${who(v, them)} ${v.scores[them]} (first to ${v.rules?.target ?? 100}).`,
    ),
    h("div", { class: "button-row" }, close),
  );
  t.resultShown = number;
  settleMotion(t);
  if (!el.dialog.open) el.dialog.showModal();
  // From its top, heading first: focusing the button scrolled a phone's dialog to its middle,
  // hiding the heading (the button stays in sight, stuck to the dialog's foot: results.css).
  el.dialog.scrollTop = 0;
  close.focus({ preventScroll: true });
}

/** Escape closes the dialog too: count the hand it showed as seen, put the focus back into the
 * hand, and show a hand that ended while it was open (the computer can knock at once). */
export function watchDialog(t) {
  t.el.dialog.addEventListener("close", () => {
    if (t.resultShown != null) markSeen(t, t.resultShown);
    t.el.handArea.querySelector("button.card")?.focus({ preventScroll: true });
    if (t.s.view) maybeShowResult(t, t.s.view);
  });
}

export function renderFinished(t) {
  const { s, el, watching, matchId } = t;
  const v = s.view;
  if (!v || v.status !== "finished" || !v.outcome) {
    el.finished.hidden = true;
    replaceChildren(el.finished);
    el.table.classList.remove("is-finished");
    return;
  }
  el.table.classList.add("is-finished");
  el.finished.hidden = false;
  const result = v.hand?.result || v.last_result;
  const hands = s.matchDetails && s.matchDetails !== "loading" ? s.matchDetails.hands || [] : [];
  const showLast = result && v.outcome.reason !== "resign";
  replaceChildren(
    el.finished,
    h(
      "section",
      { class: "panel match-over", "aria-labelledby": "match-over-title" },
      h("h2", { id: "match-over-title" }, "Match over"),
      scoreboard(v, v.outcome, v.rules),
      showLast ? h("h3", {}, "The last hand") : null,
      showLast ? resultBlock(v, result, { number: v.hand_number }) : null,
      hands.length
        ? h(
            "details",
            { class: "hand-list" },
            h("summary", {}, hands.length === 1 ? "The one hand" : `All ${hands.length} hands`),
            h("ol", {}, hands.map((r) => h("li", {}, resultSummary(v, r.result || r)))),
          )
        : null,
      h(
        "div",
        { class: "button-row" },
        // The player's own ways on (Play again, New match with the same settings) are the
        // boxes below; this one goes to the start page to choose afresh.
        h("a", { class: watching ? "btn primary" : "btn", href: "#/" }, watching ? "New match" : "New match, other settings"),
        !watching ? h("a", { class: "btn", href: `#/replay/${encodeURIComponent(matchId)}` }, "Replay this match") : null,
        !watching ? h("a", { class: "btn", href: "#/history" }, "History") : null,
      ),
    ),
  );
}
