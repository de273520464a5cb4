// The rematch at a match's end (docs/protocol.md, "Clocks, claims and rematches"): offer one,
// accept or decline the opponent's, or, against the computer, play again in one click. When
// the rematch starts (our own click or the opponent's), the view's `rematch.match_id` names it
// and the table moves there.

import { api } from "../api.js";
import { h, replaceChildren, toast } from "../dom.js";
import { store } from "../store.js";
import { who } from "../words.js";

const post = (t, path) => api("POST", `/api/matches/${encodeURIComponent(t.matchId)}/${path}`);

function go(id) {
  store.currentMatch = id;
  location.hash = `#/play/${encodeURIComponent(id)}`;
}

function button(t, label, path, { primary = false, testid } = {}) {
  return h(
    "button",
    {
      class: `btn${primary ? " primary" : ""}`,
      type: "button",
      "data-testid": testid,
      onclick: async (e) => {
        e.target.disabled = true;
        try {
          const summary = await post(t, path);
          if (summary.rematch?.match_id) go(summary.rematch.match_id);
        } catch (err) {
          toast(err.message, "error");
          e.target.disabled = false;
        }
      },
    },
    label,
  );
}

export function renderRematch(t) {
  const v = t.s.view;
  if (!t.rematchBox) {
    t.rematchBox = h("div", { class: "rematch-area", "aria-live": "polite" });
    t.el.finished.after(t.rematchBox);
  }
  const box = t.rematchBox;
  if (t.watching || !v || v.status !== "finished" || !v.rematch) {
    box.hidden = true;
    return;
  }
  const r = v.rematch;
  const key = JSON.stringify(r);
  if (key === box.dataset.drawn) return;
  const first = box.dataset.drawn === undefined;
  box.dataset.drawn = key;
  box.hidden = false;
  if (r.match_id) {
    // Started while we were here: follow it. Found started on arrival: offer the way there.
    if (!first) {
      go(r.match_id);
      return;
    }
    replaceChildren(box, h("p", {}, "The rematch has started. ", h("a", { class: "btn primary", href: `#/play/${encodeURIComponent(r.match_id)}` }, "Go to the rematch")));
    return;
  }
  const computer = (v.players || []).some((p) => p.kind === "computer");
  const them = who(v, 1 - v.seat);
  const why = reasonLine(v);
  let content;
  if (computer)
    content = [
      h("p", { class: "muted", "data-testid": "rematch-note" }, "Play again: the same rules and level, seats swapped."),
      button(t, "Play again", "rematch", { primary: true, testid: "rematch" }),
    ];
  else if (r.offered_by === v.seat) content = [h("p", { "data-testid": "rematch-note" }, `Rematch offered: waiting for ${them} to accept.`)];
  else if (r.offered_by === 1 - v.seat)
    content = [
      h("p", { "data-testid": "rematch-note" }, `${them} offers a rematch (seats swapped, same rules and clock).`),
      h("div", { class: "button-row" }, button(t, "Accept the rematch", "rematch", { primary: true, testid: "rematch-accept" }), button(t, "Decline", "rematch/decline", { testid: "rematch-decline" })),
    ];
  else
    content = [
      r.declined_by === 1 - v.seat ? h("p", { "data-testid": "rematch-note" }, `${them} declined the rematch.`) : null,
      r.declined_by === v.seat ? h("p", { "data-testid": "rematch-note" }, "You declined the rematch.") : null,
      button(t, "Offer a rematch", "rematch", { primary: true, testid: "rematch" }),
    ];
  replaceChildren(box, h("section", { class: "panel rematch", "aria-label": "Rematch" }, why, content));
}

/** Why a forfeited match ended, when it was the clock or a player who left. */
function reasonLine(v) {
  const loser = 1 - v.outcome.winner;
  const name = who(v, loser);
  if (v.outcome.reason === "timeout") return h("p", { class: "forfeit-reason", "data-testid": "forfeit-reason" }, `${name} ran out of time three turns in a row: the match is forfeited.`);
  if (v.outcome.reason === "abandoned") return h("p", { class: "forfeit-reason", "data-testid": "forfeit-reason" }, `${name} left the match and it was claimed.`);
  return null;
}
