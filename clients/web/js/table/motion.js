// Cards moving across the table (Web Animations API): the deal, a card drawn into the hand, a
// discard landing on the pile (from the hand, or from the opponent's side). The page is always
// drawn in the server's current state first; an animation only slides an element from where the
// card was into the place it already has, so nothing is ever hidden or late. Off under
// prefers-reduced-motion and when the player turns motion off in the settings.

import { motionAllowed } from "../settings.js";

const DURATION = 280;
const EASING = "cubic-bezier(0.2, 0.8, 0.2, 1)";

const rectOf = (el) => (el ? el.getBoundingClientRect() : null);

/** Where things are before a redraw: each card of the hand, the piles, the opponent. */
export function captureRects(t) {
  const { el } = t;
  const cards = new Map();
  for (const b of el.handArea.querySelectorAll("button.card")) cards.set(b.dataset.card, b.getBoundingClientRect());
  return {
    version: t.s.drawnVersion ?? null,
    cards,
    stock: rectOf(el.piles.querySelector(".pile.stock")),
    discard: rectOf(el.piles.querySelector(".pile.discard")),
    opponent: rectOf(el.opponent.querySelector(".backs")),
  };
}

function slide(target, from, { delay = 0, fade = false } = {}) {
  if (!target || !from) return;
  const to = target.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  const first = { transform: `translate(${dx}px, ${dy}px)` };
  if (fade) first.opacity = 0.2;
  target.animate([first, { transform: "translate(0, 0)", opacity: 1 }], { duration: DURATION, easing: EASING, delay, fill: "backwards" });
}

/** End every move under way at once (a dialog opens over the table: a card still flying would
 * show through its backdrop). */
export function settleMotion(t) {
  for (const a of t.el.table.getAnimations({ subtree: true })) a.finish();
}

/** After a redraw for a new state (`prev` to `view`), move the cards that moved. */
export function animateChanges(t, before, prev, view) {
  const { el } = t;
  if (!prev || !view || before.version === view.version || !motionAllowed() || el.dialog.open) return;
  const hand = view.hand || {};
  const history = hand.history || [];
  if (prev.hand_number !== view.hand_number) {
    // The deal: the new hand comes off the stock, a card at a time.
    const stock = rectOf(el.piles.querySelector(".pile.stock"));
    el.handArea.querySelectorAll("button.card").forEach((b, i) => slide(b, stock, { delay: i * 35, fade: true }));
    return;
  }
  const last = history[history.length - 1];
  if (!last || history.length === (prev.hand?.history || []).length) return;
  const mine = last.seat === view.seat;
  if (mine && (last.kind === "draw" || last.kind === "take_upcard")) {
    const from = last.kind === "draw" && last.source === "stock" ? before.stock : before.discard;
    for (const code of t.s.fresh) slide(el.handArea.querySelector(`[data-card="${CSS.escape(code)}"]`), from);
  }
  if (last.kind === "discard" || last.kind === "knock") {
    const top = el.piles.querySelector(".pile.discard .card.top");
    slide(top, mine ? before.cards.get(last.card) : before.opponent);
  }
  if (!mine && last.kind === "draw") {
    // The opponent's draw: a back slides from the pile to their hand.
    const backs = el.opponent.querySelectorAll(".backs .card");
    slide(backs[backs.length - 1], last.source === "stock" ? before.stock : before.discard);
  }
}
