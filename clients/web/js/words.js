// Sentences about the game, built from the server's view: what a player did, how a hand ended,
// how the score was worked out. Wording only; every number comes from the server.

import { cardName, cardShort } from "./cards.js";

export const KIND_TITLES = { gin: "Gin", knock: "Knock", undercut: "Undercut", dead: "Dead hand" };

export function playerName(view, seat) {
  const p = (view.players || []).find((x) => x.seat === seat);
  if (p?.name) return p.name;
  return view.status === "waiting" ? "Your friend" : `Seat ${seat}`;
}

/** The name to use in a sentence: "You" for the viewer's own seat. */
export function who(view, seat) {
  return view.seat === seat ? "You" : playerName(view, seat);
}

/** The same in the middle of a sentence: "you" rather than "You". */
export function whoMid(view, seat) {
  return view.seat === seat ? "you" : playerName(view, seat);
}

/**
 * One public event in words. `short` uses card symbols (for the screen), otherwise card names
 * (for screen readers); `subject: false` leaves out who did it (for a line under their name).
 * e.g. "Computer drew 7♥ from the discard pile", or "Drew 7♥ from the discard pile".
 */
export function describeEvent(view, event, { short = false, subject = true } = {}) {
  // A hand has at most one knock: in a hand that ended in gin, that knock was the gin.
  const gin = event.kind === "knock" && view.hand?.result?.kind === "gin";
  const card = event.card ? (short ? cardShort(event.card) : cardName(event.card)) : "";
  let did;
  switch (event.kind) {
    case "take_upcard":
      did = `took the upcard, ${card}`;
      break;
    case "pass":
      did = "passed on the upcard";
      break;
    case "draw":
      did = event.source === "discard" ? `drew ${card} from the discard pile` : "drew from the stock";
      break;
    case "discard":
      did = `discarded ${card}`;
      break;
    case "knock":
      did = gin ? `went gin, discarding ${card}` : `knocked, discarding ${card}`;
      break;
    default:
      did = event.kind;
  }
  // The server moved for a seat whose time ran out (a safe move, never a knock).
  if (event.timed_out) did += short ? " (out of time)" : ", its time having run out";
  if (!subject) return did[0].toUpperCase() + did.slice(1);
  return `${who(view, event.seat)} ${did}`;
}

/** The server's words and formulas (plain ASCII, for every client) as this page prints its own
 * numbers: a minus sign where a hyphen stands for one ("-3.5", "33 - 6"), a times sign for " x "
 * ("(33 - 6) x 2"). Screen readers then say "minus" and "times". */
export const typeset = (text) =>
  text.replace(/(^|[\s(])-(?=\d| \d)/g, "$1\u2212").replace(/\) x (?=\d)/g, ") \u00d7 ");

/** A hand's score worked out, typeset: "25 + 8 − 5 = 28". */
export const breakdown = (result) => typeset(result.breakdown);

/** "1 point", "12 points" */
export const pointsWord = (n) => (n === 1 ? "point" : "points");

/** "Undercut: 25 + 8 − 5 = 28" */
export function scoreLine(result) {
  if (result.kind === "dead") return "Dead hand: no score";
  return `${KIND_TITLES[result.kind] || result.kind}: ${breakdown(result)}`;
}

/** A whole sentence or two explaining how a hand ended and who scored what. */
export function describeResult(view, result) {
  if (result.kind === "dead") {
    return "Dead hand: the stock ran down to two cards without a knock, so nobody scores.";
  }
  const knocker = result.knocker;
  const defender = knocker === null || knocker === undefined ? null : 1 - knocker;
  const k = who(view, knocker);
  const d = whoMid(view, defender);
  const winner = who(view, result.winner);
  const scores = winner === "You" ? "score" : "scores";
  const dw = result.deadwood || [];
  const laid = (result.layoffs || []).length;
  const layoffWords = laid ? ` after laying off ${laid} card${laid === 1 ? "" : "s"}` : "";
  switch (result.kind) {
    case "gin":
      return `${k} went gin. ${who(view, defender)} had ${dw[defender]} deadwood. ${winner} ${scores} ${breakdown(result)} ${pointsWord(result.points)}.`;
    case "knock":
      return `${k} knocked with ${dw[knocker]} deadwood; ${d} had ${dw[defender]}${layoffWords}. ${winner} ${scores} ${breakdown(result)} ${pointsWord(result.points)}.`;
    case "undercut":
      return `${k} knocked with ${dw[knocker]} deadwood, but ${d} had only ${dw[defender]}${layoffWords}: undercut! ${winner} ${scores} ${breakdown(result)} ${pointsWord(result.points)}.`;
    default:
      return `${winner} ${scores} ${result.points} ${pointsWord(result.points)}.`;
  }
}

/** The status line: the server's, typeset, or ours when it sends none. */
export const statusText = (view) => (view.status_line ? typeset(view.status_line) : fallbackStatus(view));

/** A fallback line when the server sends no status_line. */
export function fallbackStatus(view) {
  const hand = view.hand || {};
  if (view.status === "waiting") return "Waiting for the other player to join";
  if (view.status === "finished" || view.outcome) return "The match is over";
  if (view.seat === null || view.seat === undefined) return `${playerName(view, hand.to_act)} to play`;
  if (hand.to_act !== view.seat) return `${playerName(view, hand.to_act)} is playing`;
  switch (hand.phase) {
    case "upcard":
      return "Your turn: take the upcard or pass";
    case "draw":
      return "Your turn: draw from the stock or the discard pile";
    case "discard":
      return "Your turn: discard a card, or knock";
    default:
      return "";
  }
}
