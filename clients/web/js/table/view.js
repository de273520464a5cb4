// Reading the server's view of a match: which actions it lists as legal, whose turn it is, and
// the facts of this hand the table puts into words. Pure functions of the view; nothing here
// decides what is legal (the view's `legal_actions` does) or touches the page.

/** The viewer's own cards, in the server's order (melds first, then deadwood). */
export const handCards = (view) => view?.hand?.cards || [];

export const legalActions = (view) => view?.hand?.legal_actions || [];

/** Whether the view lists an action of this kind (and with these fields) as legal. */
export function can(view, kind, extra = {}) {
  return legalActions(view).some((a) => a.kind === kind && Object.entries(extra).every(([k, v]) => a[k] === v));
}

export function myTurn(view) {
  return !!view && view.seat !== null && view.hand?.to_act === view.seat && view.status === "active";
}

export const discardPhase = (view) => myTurn(view) && view.hand.phase === "discard";

/** The deadwood left after discarding `code`; undefined when that card may not be discarded. */
export const deadwoodAfter = (view, code) => view?.hand?.discard_deadwood?.[code];

/** This hand's knock limit (it can change from hand to hand) as a clause: "a knock needs 10 or
 * less", or "gin only this hand" when the limit is 0. */
export function knockLimitWords(view) {
  const limit = view?.hand?.knock_limit ?? view?.rules?.knock_limit ?? 10;
  return limit === 0 ? "gin only this hand" : `a knock needs ${limit} or less`;
}

/** This hand's knock limit as a note for the top bar, when it is not the preset's usual one (in
 * oklahoma the first upcard sets it); "" otherwise. */
export function knockLimitNote(view) {
  const limit = view?.hand?.knock_limit;
  if (limit === undefined || limit === null || limit === view?.rules?.knock_limit) return "";
  return limit === 0 ? "Gin only this hand" : `Knock with ${limit} or less this hand`;
}

/** A note when this hand counts more than usual (e.g. a spade as the first upcard), else "". */
export function multiplierNote(view) {
  const m = view?.hand?.multiplier ?? 1;
  if (m <= 1) return "";
  return m === 2 ? "This hand scores double" : `This hand scores ${m} times over`;
}

/** The least deadwood any legal discard leaves (from the view's `discard_deadwood`); undefined
 * outside this seat's discard. */
export function bestDeadwoodAfter(view) {
  if (!discardPhase(view)) return undefined;
  const values = Object.values(view.hand.discard_deadwood || {});
  return values.length ? Math.min(...values) : undefined;
}

/** The discards the view lists as knocks (gin when the deadwood left is 0), least deadwood
 * first: [{card, deadwood}]. */
export function knockChances(view) {
  if (!discardPhase(view)) return [];
  return legalActions(view)
    .filter((a) => a.kind === "knock")
    .map((a) => ({ card: a.card, deadwood: deadwoodAfter(view, a.card) ?? 0 }))
    .sort((a, b) => a.deadwood - b.deadwood);
}
