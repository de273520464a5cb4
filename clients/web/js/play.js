// The card table: draws the server's view of one match and turns taps, drags and keys into the
// actions listed in `legal_actions`. It never decides what is legal or what a hand is worth:
// melds, deadwood, the deadwood after each discard and the results all come from the view.
// (Sorting by rank or suit and the player's own drag order are presentation only.)
//
// This module mounts the table and redraws it; the parts live in table/: the layout and top bar
// (layout.js), the hand (hand.js, order.js, drag.js), the piles (piles.js), the side panel
// (side.js), the ends of hands and of the match (endings.js), the screen-reader announcements
// (announce.js) and the socket glue (connection.js). They share one table object `t`:
// { matchId, watching, s (state), el (regions), socket, render, send, discardSelected, showResult }.

import { h, replaceChildren } from "./dom.js";
import { store } from "./store.js";
import { hintLine } from "./analysis.js";
import { renderClock, stopClock } from "./table/clock.js";
import { connect, send } from "./table/connection.js";
import { endDrag } from "./table/drag.js";
import { renderFinished, showResult, watchDialog } from "./table/endings.js";
import { discardSelected, renderActions, renderHand } from "./table/hand.js";
import { installKeys } from "./table/keys.js";
import { animateChanges, captureRects } from "./table/motion.js";
import { updateTurnSignal, watchVisibility } from "./table/signal.js";
import { applySettings } from "./settings.js";
import { buildTable, hideConnPill, renderConn, renderScorebar, renderSeats, renderStatus } from "./table/layout.js";
import { renderPiles } from "./table/piles.js";
import { renderPlayAgain } from "./table/again.js";
import { renderRematch } from "./table/rematch.js";
import { renderSide, renderWaiting } from "./table/side.js";
import { discardPhase } from "./table/view.js";
import { rememberCommitment } from "./verify.js";

export function mountPlay(root, { matchId, watchToken = null }) {
  const watching = !!watchToken;
  const token = watchToken || store.player?.token;
  if (!token) {
    replaceChildren(
      root,
      h(
        "section",
        { class: "panel" },
        h("h1", { tabindex: "-1" }, "This match is not yours yet"),
        h("p", {}, "Open the invite link your friend sent you, or start a match of your own."),
        h("a", { class: "btn primary", href: "#/" }, "Start a match"),
      ),
    );
    return () => {};
  }
  if (!watching) store.currentMatch = matchId;

  const t = {
    matchId,
    watching,
    s: {
      view: null,
      prev: null,
      selected: null,
      pending: null,
      pendingVersion: null,
      mode: store.sortMode(),
      drag: null,
      renderDeferred: false,
      releasedAt: null,
      fresh: new Set(),
      conn: "connecting",
      connDetail: "",
      matchDetails: null,
      resignConfirm: false,
      staleTimer: 0,
      lostFocus: null,
    },
    el: buildTable(root, { watching }),
    socket: null,
  };
  t.render = () => render(t);
  t.send = (action) => send(t, action);
  t.discardSelected = (code) => discardSelected(t, code);
  t.showResult = (result, number) => showResult(t, result, number);
  watchDialog(t);
  t.socket = connect(t, token);
  const removeKeys = installKeys(t);
  const stopSignal = watchVisibility(t);
  applySettings();

  // Focus the page heading so screen readers start from the top of the new page.
  t.el.heading.focus({ preventScroll: true });

  return () => {
    removeKeys();
    stopSignal();
    endDrag(t);
    stopClock(t);
    clearTimeout(t.s.staleTimer);
    t.socket.close();
    if (t.el.dialog.open) t.el.dialog.close();
    hideConnPill();
  };
}

function render(t) {
  const { s, el } = t;
  if (!s.view) return;
  el.table.classList.remove("loading");
  rememberCommitment(t.matchId, s.view); // checked against the record later (verify.js)
  const active = document.activeElement;
  const inTable = active && active !== document.body && el.table.contains(active);
  // A control that was focused but got disabled (the stock while our draw is on its way) has
  // dropped the focus; remember where it was so the next redraw can place it sensibly.
  const focusKey = inTable ? active.dataset.focusKey : active === document.body ? s.lostFocus : null;
  const focusInHand = !!(inTable && el.handArea.contains(active));
  s.lostFocus = null;
  const before = captureRects(t);

  renderConn(t);
  // Busy while an action of ours is on its way: the controls wait for the server's answer.
  if (s.pending) el.felt.setAttribute("aria-busy", "true");
  else el.felt.removeAttribute("aria-busy");
  renderScorebar(t);
  renderSeats(t);
  renderPiles(t);
  renderStatus(t);
  renderHand(t);
  renderActions(t);
  renderSide(t);
  replaceChildren(el.advice, hintLine(t));
  renderWaiting(t);
  renderFinished(t);
  renderClock(t);
  renderRematch(t);
  renderPlayAgain(t);
  animateChanges(t, before, s.prev, s.view);
  s.drawnVersion = s.view.version;
  updateTurnSignal(s.view);

  if (focusKey) {
    // Keep keyboard focus where it was across redraws; when that control is gone or no longer
    // usable (the stock after drawing, a discarded card), move it into the hand.
    const again = el.table.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
    else if (focusInHand || discardPhase(s.view)) {
      const fresh = [...s.fresh][0];
      const target = (fresh && el.handArea.querySelector(`[data-card="${fresh}"]`)) || el.handArea.querySelector("button.card");
      target?.focus({ preventScroll: true });
    } else if (s.pending) s.lostFocus = focusKey; // its answer's redraw places it
    else {
      // Gone for good (Pass, once the upcard is passed): into the hand, never to <body>, where
      // a keyboard or screen reader user would lose their place.
      (el.handArea.querySelector('button.card[tabindex="0"]') || el.handArea.querySelector("button.card"))?.focus({ preventScroll: true });
    }
  }
}
