// The order the player sees their hand in: the server's melds order, by rank, by suit, or their
// own order from dragging (kept per hand, so a reload brings it back). Presentation only.

import { byRank, bySuit } from "../cards.js";
import { store } from "../store.js";
import { handCards } from "./view.js";

export const SORT_MODES = [
  ["best", "Melds"],
  ["rank", "Rank"],
  ["suit", "Suit"],
];

export function orderedHand({ s, matchId }) {
  const cards = handCards(s.view);
  if (s.mode === "rank") return [...cards].sort(byRank);
  if (s.mode === "suit") return [...cards].sort(bySuit);
  if (s.mode === "custom") {
    const saved = store.order(matchId);
    if (saved && saved.hand === s.view.hand_number) {
      const have = new Set(cards);
      const kept = saved.custom.filter((c) => have.has(c));
      const keptSet = new Set(kept);
      return [...kept, ...cards.filter((c) => !keptSet.has(c))]; // a new card goes on the right
    }
    s.mode = "best";
  }
  return cards;
}

export function setCustomOrder({ s, matchId }, order) {
  s.mode = "custom";
  store.saveOrder(matchId, { hand: s.view.hand_number, custom: order });
}

export function setSortMode({ s, matchId }, mode) {
  s.mode = mode;
  store.saveSortMode(mode);
  store.saveOrder(matchId, null);
}
