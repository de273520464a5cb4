// How a card code ("7h", "Td") is shown and spoken. Display only: no rule of the game lives here
// (melds, deadwood and legality all come from the server's view).

import { courtFigure } from "./court.js";

const RANKS = "A23456789TJQK";
const SUITS_BY_DISPLAY = "shcd"; // spades, hearts, clubs, diamonds: colours alternate when sorted
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const RANK_SHOWN = { T: "10" };
const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const SUIT_SYMBOLS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };

export const rankOf = (code) => code[0];
/** 0 for an ace up to 12 for a king (for drawing cards in rank order). */
export const rankIndex = (code) => RANKS.indexOf(code[0]);
export const suitOf = (code) => code[1];
export const isRed = (code) => code[1] === "h" || code[1] === "d";

/** "7 of hearts", "ace of spades" */
export function cardName(code) {
  const r = code[0];
  return `${RANK_NAMES[r] || r} of ${SUIT_NAMES[code[1]]}`;
}

/** "7♥", "10♠": compact text for sentences on screen. */
export function cardShort(code) {
  return `${RANK_SHOWN[code[0]] || code[0]}${SUIT_SYMBOLS[code[1]]}`;
}

export const rankShown = (code) => RANK_SHOWN[code[0]] || code[0];
export const suitSymbol = (code) => SUIT_SYMBOLS[code[1]];

/** Sort keys for the player's "by rank" and "by suit" buttons (presentation order only). */
export function byRank(a, b) {
  return RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]) || SUITS_BY_DISPLAY.indexOf(a[1]) - SUITS_BY_DISPLAY.indexOf(b[1]);
}
export function bySuit(a, b) {
  return SUITS_BY_DISPLAY.indexOf(a[1]) - SUITS_BY_DISPLAY.indexOf(b[1]) || RANKS.indexOf(a[0]) - RANKS.indexOf(b[0]);
}

/** The visible face of a card (decorative: the surrounding button carries the label). */
export function cardFace(code) {
  const face = document.createElement("span");
  face.className = `face ${isRed(code) ? "red" : "black"} suit-${code[1]}`;
  face.setAttribute("aria-hidden", "true");
  const corner = (cls) => {
    const c = document.createElement("span");
    c.className = `corner ${cls}`;
    const r = document.createElement("span");
    r.className = "rank";
    r.textContent = rankShown(code);
    const s = document.createElement("span");
    s.className = "suit";
    s.textContent = suitSymbol(code);
    c.append(r, s);
    return c;
  };
  const pip = document.createElement("span");
  pip.className = "pip";
  if ("JQK".includes(code[0])) {
    // A court card shows its figure (court.js), not a letter in a box.
    pip.classList.add("court");
    pip.append(courtFigure(code));
  } else pip.textContent = suitSymbol(code);
  face.append(corner("tl"), pip, corner("br"));
  return face;
}

/** A non-interactive small card (results, replays, history). */
export function miniCard(code, extra = "") {
  const el = document.createElement("span");
  el.className = `card mini ${extra}`.trim();
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(code));
  el.append(cardFace(code));
  return el;
}

/** A face-down card (the other player's hand, the stock). */
export function cardBack(extra = "") {
  const el = document.createElement("span");
  el.className = `card back ${extra}`.trim();
  el.setAttribute("aria-hidden", "true");
  return el;
}
