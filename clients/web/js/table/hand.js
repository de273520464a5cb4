// The player's own hand: the cards as buttons (melded cards underlined by meld, the deadwood on
// the right), the sort buttons, selecting a card by tap or keyboard, and the Discard and
// Knock / Gin buttons. Whether a discard or a knock is possible comes from the view.

import { cardFace, cardName, cardShort } from "../cards.js";
import { announce, h, replaceChildren, toast } from "../dom.js";
import { startDrag, tookClick } from "./drag.js";
import { keyFor } from "./keys.js";
import { SORT_MODES, orderedHand, setCustomOrder, setSortMode } from "./order.js";
import { bestDeadwoodAfter, can, deadwoodAfter, discardPhase, handCards, knockChances, myTurn } from "./view.js";

export function discardSelected(t, code = t.s.selected) {
  if (!code) return;
  if (can(t.s.view, "discard", { card: code })) t.send({ kind: "discard", card: code });
  else toast(whyNotDiscard(t.s.view, code), "error");
}

function whyNotDiscard(view, code) {
  if (!myTurn(view)) return "Wait for your turn.";
  if (view.hand.phase !== "discard") return "Draw a card first, from the stock or the discard pile.";
  return `You just took ${cardName(code)} from the discard pile: discard a different card.`;
}

function knockSelected(t) {
  const { s } = t;
  const code = s.selected;
  if (code && can(s.view, "knock", { card: code })) {
    t.send({ kind: "knock", card: code });
    return;
  }
  // Nothing (or a card that cannot knock) selected while a knock is possible: select the discard
  // that knocks with the least deadwood; pressing again knocks with it.
  const best = knockChances(s.view)[0];
  if (!best) return;
  s.selected = best.card;
  t.render();
  announce(`${cardName(best.card)} selected: discarding it leaves ${best.deadwood} deadwood. Press ${best.deadwood === 0 ? "Gin" : "Knock"} again to ${best.deadwood === 0 ? "go gin" : "knock"}.`);
}

export function renderHand(t) {
  if (t.watching) return; // a watcher's bottom seat is a summary (renderSeats)
  const { s, el } = t;
  const v = s.view;
  const hand = v.hand || {};
  const order = orderedHand(t);
  const meldOf = new Map();
  (hand.melds || []).forEach((meld, i) => meld.forEach((c) => meldOf.set(c, i)));
  const dPhase = discardPhase(v);
  const knockers = new Map(knockChances(v).map((k) => [k.card, k.deadwood]));
  // One tab stop for the whole hand (arrow keys move within it): the selected card, else the
  // card just drawn, else the first.
  const tabStop = (s.selected && order.includes(s.selected) && s.selected) || order.find((c) => s.fresh.has(c)) || order[0];
  let lastGroup = null;
  const buttons = order.map((code, index) => {
    const meld = meldOf.get(code);
    const group = meld === undefined ? "dead" : `m${meld}`;
    const groupStart = s.mode === "best" && index > 0 && group !== lastGroup;
    lastGroup = group;
    const selected = s.selected === code;
    const blocked = dPhase && deadwoodAfter(v, code) === undefined;
    let label = cardName(code);
    if (meld !== undefined) label += ", melded";
    if (s.fresh.has(code)) label += ", just drawn";
    if (blocked) label += ", cannot be discarded this turn";
    const knocks = knockers.has(code);
    if (knocks) label += knockers.get(code) === 0 ? ", discarding it goes gin" : ", discarding it lets you knock";
    const classes = [
      "card",
      "hand-card",
      meld === undefined ? "deadwood" : `melded meld-${meld % 4}`,
      selected ? "selected" : "",
      groupStart ? "group-start" : "",
      s.fresh.has(code) ? "fresh" : "",
      blocked ? "blocked" : "",
      knocks ? (knockers.get(code) === 0 ? "can-knock can-gin" : "can-knock") : "",
    ];
    return h(
      "button",
      {
        class: classes.filter(Boolean).join(" "),
        type: "button",
        "aria-label": label,
        "aria-pressed": selected ? "true" : "false",
        "aria-describedby": "hand-hint",
        tabindex: code === tabStop ? "0" : "-1",
        dataset: { card: code, focusKey: `card:${code}`, position: String(index + 1) },
        onclick: (e) => tookClick(s, e) || onCardClick(t, code),
        onkeydown: (e) => onCardKey(t, e, code),
        onfocus: (e) => {
          for (const b of el.handArea.querySelectorAll("button.card")) b.tabIndex = b === e.currentTarget ? 0 : -1;
        },
        onpointerdown: (e) => startDrag(t, e, code, () => onCardClick(t, code)),
      },
      cardFace(code),
    );
  });
  const sortGroup = h(
    "div",
    { class: "sort", role: "group", "aria-label": "Sort your hand" },
    h("span", { class: "sort-label", "aria-hidden": "true" }, "Sort:"),
    SORT_MODES.map(([mode, text]) =>
      h(
        "button",
        {
          class: "btn small",
          type: "button",
          "aria-pressed": s.mode === mode ? "true" : "false",
          "aria-label": mode === "best" ? "Sort by melds" : `Sort by ${text.toLowerCase()}`,
          dataset: { focusKey: `sort:${mode}` },
          "aria-keyshortcuts": keyFor(`sort:${mode}`),
          onclick: () => {
            setSortMode(t, mode);
            t.render();
          },
        },
        text,
      ),
    ),
    s.mode === "custom" ? h("span", { class: "muted small" }, "your order") : null,
  );
  replaceChildren(
    el.handArea,
    h(
      "div",
      { class: "seat-head" },
      h("h2", { class: "sr-only" }, "Your hand"),
      deadwoodPill(v),
      sortGroup,
    ),
    h(
      "div",
      {
        class: `hand ${dPhase ? "discarding" : ""}`,
        role: "group",
        "aria-label": `Your hand, ${order.length} cards`,
        "aria-describedby": "hand-keys",
      },
      buttons,
    ),
    h("p", { class: "sr-only", id: "hand-keys" }, "Arrow keys move between cards; Shift with an arrow key moves the card in your hand."),
  );
}

/** The deadwood as the player needs it: while discarding, the least a discard leaves (the
 * eleven cards' deadwood would count a card about to go); otherwise the ten cards'. */
function deadwoodPill(v) {
  const best = bestDeadwoodAfter(v);
  if (best !== undefined) {
    return h("span", { class: "deadwood-pill", title: "The least deadwood a discard leaves" }, `Deadwood ${best} after discard`);
  }
  return h("span", { class: "deadwood-pill" }, `Deadwood ${v.hand?.deadwood ?? "?"}`);
}

export function renderActions(t) {
  const { s, el } = t;
  if (t.watching) {
    replaceChildren(el.actions);
    return;
  }
  const v = s.view;
  const dPhase = discardPhase(v);
  const sel = s.selected;
  const canDiscard = dPhase && sel && can(v, "discard", { card: sel });
  const canKnock = dPhase && sel && can(v, "knock", { card: sel });
  const left = sel ? deadwoodAfter(v, sel) : undefined;
  const chances = knockChances(v);
  let knockText = "Knock / Gin";
  let knockLabel = "Knock or gin: select the card to discard first";
  if (!canKnock && chances.length) {
    const gin = chances[0].deadwood === 0;
    knockText = gin ? "Gin\u2026" : "Knock\u2026";
    knockLabel = gin ? "Gin: choose the card to discard" : "Knock: choose the card to discard";
  }
  // On a phone the words after the first part are left out (the label keeps them), so the two
  // buttons always share one row and selecting a card never moves what is below them.
  const more = (text) => h("span", { class: "wide-only" }, text);
  if (canKnock && left === 0) {
    knockText = ["Gin!", more(` (discard ${cardShort(sel)})`)];
    knockLabel = `Gin, discarding ${cardName(sel)}`;
  } else if (canKnock) {
    knockText = [`Knock \u2014 ${left}`, more(" deadwood")];
    knockLabel = `Knock, discarding ${cardName(sel)}, ${left} deadwood left`;
  } else if (dPhase && sel && left !== undefined) {
    knockLabel = `Knock or gin: not possible discarding ${cardName(sel)}, ${left} deadwood would remain`;
  }
  replaceChildren(
    el.actions,
    h(
      "button",
      {
        class: "btn",
        type: "button",
        disabled: !canDiscard || !!s.pending || s.conn !== "open",
        "aria-label": canDiscard ? `Discard ${cardName(sel)}` : "Discard the selected card",
        dataset: { focusKey: "discard-btn" },
        onclick: () => discardSelected(t),
      },
      // Name the card only when discarding it is legal: a disabled "Discard 2♠" reads as a move.
      canDiscard ? `Discard ${cardShort(sel)}` : "Discard",
    ),
    h(
      "button",
      {
        class: `btn knock ${canKnock || chances.length ? "live" : ""}`,
        type: "button",
        disabled: !(canKnock || chances.length) || !!s.pending || t.s.conn !== "open",
        "aria-label": knockLabel,
        dataset: { focusKey: "knock" },
        "aria-keyshortcuts": keyFor("knock"),
        onclick: () => knockSelected(t),
      },
      knockText,
    ),
  );
}

function onCardClick(t, code) {
  const { s } = t;
  if (!handCards(s.view).includes(code)) return; // gone since the press began
  const dPhase = discardPhase(s.view);
  if (s.selected === code) {
    if (dPhase) discardSelected(t, code);
    else {
      s.selected = null;
      t.render();
    }
    return;
  }
  s.selected = code;
  t.render();
  if (dPhase) {
    const left = deadwoodAfter(s.view, code);
    if (left !== undefined) {
      const chance = can(s.view, "knock", { card: code }) ? (left === 0 ? "; you can go gin" : "; you can knock") : "";
      announce(`${cardName(code)} selected. Discarding it leaves ${left} deadwood${chance}.`);
    }
  }
}

function onCardKey(t, e, code) {
  const { s, el } = t;
  const order = orderedHand(t);
  const i = order.indexOf(code);
  let target = null;
  if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
    const j = e.key === "ArrowLeft" ? i - 1 : i + 1;
    if (j < 0 || j >= order.length) return;
    e.preventDefault();
    if (e.shiftKey) {
      const next = [...order];
      next.splice(i, 1);
      next.splice(j, 0, code);
      setCustomOrder(t, next);
      t.render();
      el.handArea.querySelector(`[data-card="${code}"]`)?.focus();
      announce(`${cardName(code)} moved to position ${j + 1} of ${order.length}.`);
      return;
    }
    target = order[j];
  } else if (e.key === "Home") target = order[0];
  else if (e.key === "End") target = order[order.length - 1];
  else if (e.key === "Escape" && s.selected) {
    s.selected = null;
    t.render();
    return;
  }
  if (target) {
    e.preventDefault();
    el.handArea.querySelector(`[data-card="${target}"]`)?.focus();
  }
}
