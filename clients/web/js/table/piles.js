// The stock, the discard pile and the upcard offer (Take / Pass). Each is a button that sends
// the one action the view lists for it; the discard pile also takes the selected card.

import { cardFace, cardName } from "../cards.js";
import { h, replaceChildren } from "../dom.js";
import { keyFor } from "./keys.js";
import { can, discardPhase } from "./view.js";

export function renderPiles(t) {
  const { s, el, watching } = t;
  const v = s.view;
  const hand = v.hand || {};
  const pile = hand.discard_pile || [];
  const top = pile[pile.length - 1];
  const under = pile[pile.length - 2];
  // While the socket is down nothing can be sent: no pile may look usable.
  const online = s.conn === "open";
  const canStock = online && can(v, "draw", { source: "stock" });
  const canDrawDiscard = online && can(v, "draw", { source: "discard" });
  const canTake = online && can(v, "take_upcard");
  const canDropHere = online && discardPhase(v) && s.selected && can(v, "discard", { card: s.selected });
  const discardLive = !watching && (canDrawDiscard || canTake || canDropHere);
  const history = hand.history || [];
  const lastEvent = history[history.length - 1];
  const topJustDiscarded = lastEvent && (lastEvent.kind === "discard" || lastEvent.kind === "knock") && lastEvent.card === top;

  const stock = h(
    "button",
    {
      class: `pile stock ${canStock ? "live" : ""}`,
      "aria-label": `Stock, ${hand.stock_count ?? 0} cards`,
      disabled: watching || !canStock || !!s.pending,
      dataset: { focusKey: "stock" },
      "aria-keyshortcuts": keyFor("stock"),
      onclick: () => t.send({ kind: "draw", source: "stock" }),
    },
    h("span", { class: "card back" }),
    h("span", { class: "pile-count", "aria-hidden": "true" }, String(hand.stock_count ?? 0)),
  );
  let discardLabel = top ? `Discard pile, top card ${cardName(top)}` : "Discard pile, empty";
  if (canDropHere) discardLabel = `Discard pile: discard ${cardName(s.selected)} here`;
  const discard = h(
    "button",
    {
      class: `pile discard ${discardLive ? "live" : ""} ${topJustDiscarded ? "just-discarded" : ""}`,
      "aria-label": discardLabel,
      disabled: !discardLive || !!s.pending,
      dataset: { focusKey: "discard" },
      "aria-keyshortcuts": keyFor("discard"),
      onclick: () => {
        if (canDropHere) t.discardSelected();
        else if (canTake) t.send({ kind: "take_upcard" });
        else if (canDrawDiscard) t.send({ kind: "draw", source: "discard" });
      },
    },
    under ? h("span", { class: "card under" }, cardFace(under)) : null,
    top ? h("span", { class: "card top" }, cardFace(top)) : h("span", { class: "card empty" }),
  );
  const offer =
    can(v, "take_upcard") || (hand.phase === "upcard" && can(v, "pass"))
      ? h(
          "div",
          { class: "offer", role: "group", "aria-label": "The upcard offer" },
          h("button", { class: "btn primary", dataset: { focusKey: "take" }, disabled: !!s.pending || !online, onclick: () => t.send({ kind: "take_upcard" }) }, "Take"),
          h("button", { class: "btn", dataset: { focusKey: "pass" }, "aria-keyshortcuts": keyFor("pass"), disabled: !!s.pending || !online, onclick: () => t.send({ kind: "pass" }) }, "Pass"),
        )
      : null;
  replaceChildren(
    el.piles,
    h("div", { class: "pile-slot" }, stock, h("span", { class: "pile-caption", "aria-hidden": "true" }, "Stock")),
    h("div", { class: "pile-slot" }, discard, h("span", { class: "pile-caption", "aria-hidden": "true" }, "Discard pile")),
    offer,
  );
}
