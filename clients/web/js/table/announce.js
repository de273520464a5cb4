// What changed since the last view, read out through the page's live region: the other seat's
// moves, the cards that came into the hand, a hand or the match ending, and whose turn it is.
// Only words for screen readers; the table shows the same things on screen.

import { cardName } from "../cards.js";
import { announce } from "../dom.js";
import { resultSummary } from "../results.js";
import { describeEvent, fallbackStatus, playerName, statusText } from "../words.js";
import { handCards, myTurn } from "./view.js";

/** The cards in the hand now that were not in it before (within one hand). */
export function freshCards(prev, view) {
  if (!prev || prev.hand_number !== view.hand_number) return new Set();
  const before = new Set(handCards(prev));
  return new Set(handCards(view).filter((c) => !before.has(c)));
}

export function announceChanges({ watching }, prev, view, fresh) {
  const parts = [];
  const hand = view.hand || {};
  const history = hand.history || [];
  const prevHistory = prev?.hand?.history || [];
  let newEvents = [];
  if (!prev) {
    parts.push(`Hand ${view.hand_number}.`);
  } else if (prev.hand_number !== view.hand_number) {
    const r = view.last_result;
    if (r) parts.push(`Hand ${prev.hand_number} is over. ${resultSummary(view, r)}.`);
    parts.push(`Hand ${view.hand_number} is dealt.`);
    newEvents = history;
  } else if (history.length > prevHistory.length) {
    newEvents = history.slice(prevHistory.length);
  }
  for (const e of newEvents) {
    if (e.seat !== view.seat) parts.push(`${describeEvent(view, e)}.`);
  }
  for (const c of fresh) parts.push(`You got ${cardName(c)}.`);
  if (view.outcome && (!prev || !prev.outcome)) {
    const r = hand.result || view.last_result;
    if (r && prev) parts.push(`${resultSummary(view, r)}.`);
    parts.push(view.outcome.winner === view.seat ? "You win the match!" : `${playerName(view, view.outcome.winner)} wins the match.`);
  }
  const newHand = !!prev && prev.hand_number !== view.hand_number;
  if (!prev || newEvents.length || newHand || prev.status !== view.status) {
    // In a new hand with no move yet the server's status line opens with the last hand's result,
    // said just above: only whose turn it is, or it is read twice (and, after "Hand 3 is dealt",
    // sounds like a knock in the new hand).
    const status = newHand && view.last_result && !history.length ? fallbackStatus(view) : statusText(view);
    if (myTurn(view) || watching || !prev) parts.push(status);
  }
  announce(parts.join(" "));
}
