// "New match, same settings" at a match's end, beside the rematch: a fresh match with this
// one's rules, the computer's level (against the computer) or the clock and rating (against a
// friend, who gets a new invite link), read from the match's summary. Seats are not swapped
// and nothing else carries over; the server checks the request like any other.

import { createMatch } from "../api.js";
import { h, replaceChildren, toast } from "../dom.js";
import { store } from "../store.js";

/** The create request that repeats the match summarised by `m` (GET /api/matches/{id}). */
export function sameSettings(m) {
  if (m.opponent === "computer") return { opponent: "computer", difficulty: m.difficulty, rules: m.rules };
  const body = { opponent: "human", rules: m.rules, rated: !!m.rated };
  if (m.time_control && m.time_control.kind !== "none") body.time_control = m.time_control;
  return body;
}

function describe(m, view) {
  const rules = view.rules?.label || m.rules;
  if (m.opponent === "computer") return `${rules}, ${(view.players || []).find((p) => p.kind === "computer")?.name || "the computer"}, your seat kept`;
  const clock = m.time_control?.kind === "realtime" ? `, ${m.time_control.move_seconds} s a move + ${m.time_control.bank_seconds} s bank` : m.time_control?.kind === "correspondence" ? ", a day a move" : "";
  return `${rules}${clock}${m.rated ? ", rated" : ""}, against a friend (a new invite link)`;
}

export function renderPlayAgain(t) {
  const v = t.s.view;
  const m = t.s.matchDetails;
  if (!t.againBox) {
    t.againBox = h("div", { class: "again-area" });
    (t.rematchBox || t.el.finished).after(t.againBox);
  }
  const box = t.againBox;
  const ready = !t.watching && v?.status === "finished" && m && typeof m === "object" && !v.rematch?.match_id;
  if (!ready) {
    box.hidden = true;
    delete box.dataset.drawn;
    return;
  }
  const key = m.match_id;
  if (box.dataset.drawn === key) return;
  box.dataset.drawn = key;
  box.hidden = false;
  const go = async (e) => {
    e.currentTarget.disabled = true;
    const button = e.currentTarget;
    try {
      const created = await createMatch(sameSettings(m));
      store.saveMatchInfo(created.match_id, { watch_token: created.watch_token, invite: created.invite, seat: created.seat });
      store.currentMatch = created.match_id;
      location.hash = `#/play/${encodeURIComponent(created.match_id)}`;
    } catch (err) {
      toast(err.message, "error");
      button.disabled = false;
    }
  };
  replaceChildren(
    box,
    h(
      "section",
      { class: "panel again", "aria-label": "New match" },
      h("button", { class: "btn", type: "button", "data-testid": "play-again-same", onclick: go }, "New match, same settings"),
      h("p", { class: "muted again-note" }, describe(m, v)),
    ),
  );
}
