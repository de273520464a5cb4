// The table's keyboard shortcuts (listed on the rules page): each does what a button on the
// table does, so it can only send an action the view lists as legal.
//   S  draw from the stock          D  the discard pile (take, draw from it, or discard there)
//   P  pass on the upcard           K  knock / gin (as the Knock / Gin button)
//   1-9, 0, -  select the card at that position (0 the tenth, - the eleventh)
//   M, R, U  sort by melds, by rank, by suit      Escape  clear the selection
//   ?  this list, in a dialog (the table says so to a keyboard or mouse user)

import { h } from "../dom.js";

export const SHORTCUTS = [
  ["S", "draw from the stock"],
  ["D", "the discard pile: take the upcard, draw from it, or discard the selected card on it"],
  ["P", "pass on the upcard"],
  ["K", "knock or go gin (the first press selects the best card for it)"],
  ["1 \u2013 9, 0, \u2212", "select the card at that position (0 is the tenth, \u2212 the eleventh)"],
  ["M, R, U", "sort your hand by melds, rank or suit"],
  ["Escape", "clear the selection"],
  ["?", "this list"],
];

const POSITIONS = { 1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 7, 9: 8, 0: 9, "-": 10 };
const SORTS = { m: "sort:best", r: "sort:rank", u: "sort:suit" };
const BUTTONS = { s: "stock", d: "discard", p: "pass", k: "knock" };
const KEY_OF = Object.fromEntries(Object.entries({ ...BUTTONS, ...SORTS }).map(([key, focusKey]) => [focusKey, key.toUpperCase()]));

/** The shortcut of the button with this `data-focus-key`, for its `aria-keyshortcuts`. */
export function keyFor(focusKey) {
  return KEY_OF[focusKey];
}

/** The shortcuts as a definition list (the rules page and the table's "?" dialog). */
export function shortcutList() {
  return h(
    "dl",
    { class: "shortcuts" },
    SHORTCUTS.map(([keys, what]) => [h("dt", {}, h("kbd", {}, keys)), h("dd", {}, what)]),
  );
}

/** The "?" dialog: the list, and a button back to the table (where the focus returns). */
function showShortcuts() {
  const back = document.activeElement;
  const close = h("button", { class: "btn primary", type: "button" }, "Back to the table");
  const dialog = h(
    "dialog",
    { class: "shortcuts-dialog", "aria-labelledby": "shortcuts-title" },
    h("h2", { id: "shortcuts-title" }, "Keyboard shortcuts"),
    shortcutList(),
    close,
  );
  close.onclick = () => dialog.close();
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (back instanceof HTMLElement) back.focus({ preventScroll: true });
  });
  document.body.append(dialog);
  dialog.showModal();
  close.focus();
}

/** Install the shortcuts for the table `t`; returns the function that removes them. */
export function installKeys(t) {
  const onKey = (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || t.watching) return;
    const target = e.target;
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    if (t.el.dialog.open || !t.s.view || document.querySelector("dialog.shortcuts-dialog[open]")) return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (key === "?") {
      e.preventDefault();
      showShortcuts();
      return;
    }
    const focusKey = BUTTONS[key] || SORTS[key];
    if (key in POSITIONS) {
      const cards = t.el.handArea.querySelectorAll("button.card");
      const card = cards[POSITIONS[key]];
      if (!card) return;
      e.preventDefault();
      card.focus();
      if (t.s.selected !== card.dataset.card) card.click();
      return;
    }
    if (key === "Escape" && t.s.selected) {
      e.preventDefault();
      t.s.selected = null;
      t.render();
      return;
    }
    if (!focusKey) return;
    const button = t.el.table.querySelector(`[data-focus-key="${focusKey}"]`);
    if (!button || button.disabled) return;
    e.preventDefault();
    button.focus({ preventScroll: true });
    button.click();
  };
  document.addEventListener("keydown", onKey);
  return () => {
    document.removeEventListener("keydown", onKey);
    document.querySelector("dialog.shortcuts-dialog")?.close(); // leaving the table: not over the next page
  };
}
