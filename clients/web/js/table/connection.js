// The table's side of the match socket: each `state` from the server becomes the table's view
// (keeping the selection and the player's order where they still fit), errors become toasts,
// and actions go out one at a time (the controls wait while one is on its way).

import { getMatch } from "../api.js";
import { toast } from "../dom.js";
import { loadSettings } from "../settings.js";
import { MatchSocket } from "../socket.js";
import { store } from "../store.js";
import { announceChanges, freshCards } from "./announce.js";
import { renderPlayAgain } from "./again.js";
import { cueChanges } from "./cues.js";
import { maybeShowResult, renderFinished } from "./endings.js";
import { renderConn } from "./layout.js";
import { handCards, legalActions } from "./view.js";

export function connect(t, token) {
  const socket = new MatchSocket({
    matchId: t.matchId,
    token,
    onState: (view) => onState(t, view),
    onError: (msg) => onError(t, msg),
    onStatus: (status, detail) => onStatus(t, status, detail),
    // The computer's pause before its moves, as the player chose it (a watcher has no say).
    pace: () => (t.watching ? undefined : loadSettings().pace),
  });
  socket.connect();
  return socket;
}

/** Send one of the view's legal actions; refused here when it is not listed (a stale tap). */
export function send(t, action) {
  const { s } = t;
  if (s.pending) return;
  if (!legalActions(s.view).some((a) => a.kind === action.kind && a.card === action.card && a.source === action.source)) {
    toast("That move is not allowed now.", "error");
    return;
  }
  const id = t.socket.act(action);
  if (!id) {
    toast("Not connected: reconnecting, try again in a moment.", "error");
    return;
  }
  s.pending = id;
  s.pendingVersion = s.view.version;
  if (action.kind === "discard" || action.kind === "knock") s.selected = null;
  t.render();
}

function onState(t, view) {
  const { s, watching, matchId } = t;
  const prev = s.view;
  s.prev = prev;
  s.view = view;
  if (s.pending && view.version > (s.pendingVersion ?? -1)) s.pending = null;
  clearTimeout(s.staleTimer);
  // A selection survives only while the card is still in the hand.
  if (s.selected && !handCards(view).includes(s.selected)) s.selected = null;
  // A new hand: the player's own drag order belonged to the last one.
  if (prev && prev.hand_number !== view.hand_number && s.mode === "custom") s.mode = store.sortMode();
  // After a reload, the player's own order of this hand comes back.
  if (!prev && !watching && store.order(matchId)?.hand === view.hand_number) s.mode = "custom";
  s.fresh = freshCards(prev, view);
  announceChanges(t, prev, view, s.fresh);
  cueChanges(t, prev, view);
  if (view.status === "finished" && !watching) {
    if (store.currentMatch === matchId) store.currentMatch = null;
    if (!s.matchDetails) loadDetails(t);
  }
  if (s.drag?.active) s.renderDeferred = true;
  else t.render();
  maybeShowResult(t, view);
}

function onError(t, msg) {
  const { s } = t;
  if (msg.id && msg.id === s.pending) {
    s.pending = null;
    t.render();
  }
  if (msg.code === "stale_version") {
    // Our view was a move behind; a newer state is normally on its way. If none comes, resync.
    clearTimeout(s.staleTimer);
    s.staleTimer = setTimeout(() => t.socket.resync(), 1500);
    toast("The table changed just before your move; look again.", "info");
    return;
  }
  toast(msg.message || msg.code || "The server refused that.", "error");
}

function onStatus(t, status, detail) {
  const { s, watching, matchId } = t;
  s.conn = status;
  s.connDetail = detail || "";
  if (status === "closed" && !watching && detail && detail.includes("not valid")) {
    // Our token does not fit this match: stop trying to resume it.
    if (store.currentMatch === matchId) store.currentMatch = null;
  }
  // Redraw the whole table: while offline no pile or button may look usable.
  if (s.view && !s.drag?.active) t.render();
  else renderConn(t);
}

async function loadDetails(t) {
  const { s } = t;
  s.matchDetails = "loading";
  try {
    s.matchDetails = await getMatch(t.matchId);
  } catch {
    s.matchDetails = null;
    return;
  }
  renderFinished(t);
  renderPlayAgain(t);
}
