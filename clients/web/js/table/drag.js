// Dragging a card of the hand: onto the discard pile to discard it, or between two cards to put
// it there (the player's own order). A press that moves less than 8 px stays a tap, taken at its
// release for the card it began on (`tap`): the browser's own click comes only when the press and
// the release land on the same element, and a new state redraws the hand (new elements) and the
// card just drawn slides in under the finger. While a drag is on, redraws wait (`renderDeferred`)
// so the card under the finger does not vanish.

import { cardFace, cardName } from "../cards.js";
import { announce, h } from "../dom.js";
import { orderedHand, setCustomOrder } from "./order.js";
import { can, discardPhase } from "./view.js";

/** A click this soon after a pointer's release on a card is that same press (see `tookClick`). */
const CLICK_AFTER_RELEASE_MS = 1000;

export function startDrag(t, e, code, tap) {
  const { s } = t;
  if (e.button !== 0 || s.drag) return;
  const listeners = {
    move: (ev) => onPointerMove(t, ev),
    up: (ev) => onPointerUp(t, ev),
    cancel: (ev) => {
      if (s.drag && ev.pointerId === s.drag.id) endDrag(t);
    },
  };
  s.drag = { code, tap, x: e.clientX, y: e.clientY, id: e.pointerId, el: e.currentTarget, active: false, ghost: null, listeners };
  window.addEventListener("pointermove", listeners.move);
  window.addEventListener("pointerup", listeners.up);
  window.addEventListener("pointercancel", listeners.cancel);
}

function onPointerMove(t, e) {
  const { s, el } = t;
  const d = s.drag;
  if (!d || e.pointerId !== d.id) return;
  if (!d.active) {
    if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < 8) return;
    d.active = true;
    const rect = d.el.getBoundingClientRect();
    d.dx = d.x - rect.left;
    d.dy = d.y - rect.top;
    d.ghost = h("span", { class: "card drag-ghost", "aria-hidden": "true" }, cardFace(d.code));
    d.ghost.style.width = `${rect.width}px`;
    d.ghost.style.height = `${rect.height}px`;
    document.body.append(d.ghost);
    d.el.classList.add("dragging");
    document.body.classList.add("is-dragging");
  }
  e.preventDefault();
  d.ghost.style.transform = `translate(${e.clientX - d.dx}px, ${e.clientY - d.dy}px) rotate(3deg)`;
  const over = dropTarget(t, e.clientX, e.clientY);
  el.piles.querySelector(".pile.discard")?.classList.toggle("drop-ok", over.kind === "discard");
  clearInsertMarks(el);
  if (over.kind === "hand" && over.card && over.card !== d.code) {
    el.handArea.querySelector(`[data-card="${over.card}"]`)?.classList.add(over.after ? "insert-after" : "insert-before");
  }
}

function dropTarget({ s, el }, x, y) {
  const target = document.elementFromPoint(x, y);
  if (!target) return { kind: "none" };
  if (target.closest(".pile.discard") && discardPhase(s.view) && can(s.view, "discard", { card: s.drag.code })) {
    return { kind: "discard" };
  }
  if (target.closest(".my-area")) {
    // The nearest card in the hand and which side of it the pointer is on.
    let best = null;
    let bestDist = Infinity;
    for (const btn of el.handArea.querySelectorAll("button.hand-card")) {
      const r = btn.getBoundingClientRect();
      const cx = r.left + r.width / 2;
      const cy = r.top + r.height / 2;
      const dist = Math.hypot((x - cx) / r.width, (y - cy) / r.height);
      if (dist < bestDist) {
        bestDist = dist;
        best = { card: btn.dataset.card, after: x > cx };
      }
    }
    return { kind: "hand", ...best };
  }
  return { kind: "none" };
}

function onPointerUp(t, e) {
  const { s } = t;
  const d = s.drag;
  if (!d || e.pointerId !== d.id) return;
  // The click that may follow belongs to this press, which is dealt with here.
  s.releasedAt = e.timeStamp;
  if (!d.active) {
    endDrag(t);
    d.tap();
    return;
  }
  const over = dropTarget(t, e.clientX, e.clientY);
  endDrag(t);
  if (over.kind === "discard") {
    s.selected = d.code;
    t.discardSelected(d.code);
  } else if (over.kind === "hand" && over.card && over.card !== d.code) {
    const order = orderedHand(t).filter((c) => c !== d.code);
    let j = order.indexOf(over.card);
    if (over.after) j += 1;
    order.splice(j, 0, d.code);
    setCustomOrder(t, order);
    t.render();
    announce(`${cardName(d.code)} moved to position ${j + 1}.`);
  } else if (s.renderDeferred) {
    t.render();
  }
}

/** Whether a card's click is the one a pointer's press already dealt with at its release (a
 * click from the keyboard, `detail` 0, never is); it is taken once. */
export function tookClick(s, e) {
  const taken = e.detail > 0 && s.releasedAt !== null && e.timeStamp - s.releasedAt < CLICK_AFTER_RELEASE_MS;
  s.releasedAt = null;
  return taken;
}

function clearInsertMarks(el) {
  el.handArea.querySelectorAll(".insert-before, .insert-after").forEach((c) => c.classList.remove("insert-before", "insert-after"));
}

/** Stop any drag (also when the table goes away) and catch up on a redraw it held back. */
export function endDrag(t) {
  const { s, el } = t;
  const d = s.drag;
  if (d) {
    window.removeEventListener("pointermove", d.listeners.move);
    window.removeEventListener("pointerup", d.listeners.up);
    window.removeEventListener("pointercancel", d.listeners.cancel);
    d.ghost?.remove();
    d.el?.classList.remove("dragging");
  }
  document.body.classList.remove("is-dragging");
  el.piles.querySelector(".pile.discard")?.classList.remove("drop-ok");
  clearInsertMarks(el);
  s.drag = null;
  if (s.renderDeferred) {
    s.renderDeferred = false;
    t.render();
  }
}
