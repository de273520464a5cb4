"""A MARJJ-style opponent, for measuring Hard: ``python -m server.bench tournament hard marjj``.

MARJJ won the EAAI-2021 Gin Rummy challenge. Its published design: discards chosen by a
hand-strength heuristic (the deadwood a discard leaves, plus a weighted, decaying estimate of
how good the hand can get on the next draw, plus an adjustment for how much the card would help
the opponent), pickups only of a card that goes into a meld, and a knocking policy (learned by
CFR) that in effect knocks only in the first few turns of a hand and otherwise holds out for gin,
so it is rarely undercut. This is our own rebuild of that behaviour from its description (no code
of it copied), written for this engine's views. It is a benchmark opponent, not a difficulty:
people do not pick it, and the match service never builds it.

The decisions, card by card:

- Draw (and the first upcard): take the top card when, after the best discard, the hand's
  deadwood is lower and the card sits in a meld of the ten cards kept.
- Discard candidates: the cards that are unmatched in some least-deadwood arrangement (never the
  card just taken), only those within ``VALUE_BAND`` points of the highest such card, then only
  those leaving at most ``DEADWOOD_BAND`` more deadwood than the best of them.
- A candidate's score (lower is better): the deadwood it leaves, plus ``FUTURE_WEIGHT`` times
  ``DECAY`` to the power of the turns it has played times the mean deadwood after the best
  ``FUTURE_CARDS`` next draws (over the cards it has not seen), plus :func:`danger` (what the
  card is worth to the opponent, from the cards the opponent is known to hold and the cards it
  cannot get). Ties are broken by the bot's own generator.
- Knock: always at gin; otherwise only within its first ``EARLY_TURNS`` turns of the hand (and
  within the hand's knock limit), with the discard leaving the least deadwood.

It sees only its seat's view, like every bot; its randomness is the base class's seeded
generator, so a decision is a function of (seed, view).
"""

from __future__ import annotations

from server.bots import handstrength
from server.bots.base import Bot, taken_index
from server.bots.handstrength import FUTURE_CARDS, danger, melds_in_ten
from server.bots.sim import own_turns
from server.rules import Discard, Knock, SeatView
from server.rules.cards import DECK, VALUES

EARLY_TURNS = 3
"""Turns of its own (draws) within which it knocks when it can; later it plays for gin."""


class MarjjStyle(Bot):
    """The MARJJ-style player (see the module's docstring)."""

    difficulty = "marjj"

    def __init__(self, seed: int | str = 0, *, early_turns: int = EARLY_TURNS) -> None:
        super().__init__(seed)
        self.early_turns = early_turns

    def take_discard(self, view: SeatView) -> bool:
        return handstrength.takes(view)

    def discard(self, view: SeatView) -> Discard | Knock:
        options = {c.index: dw for c, dw in view.discard_deadwood}
        least = min(options.values())
        if least == 0:
            return Knock(DECK[max((c for c, dw in options.items() if dw == 0), key=lambda c: (VALUES[c], c))])
        turns = own_turns(view)
        if turns <= self.early_turns and least <= view.knock_limit:
            return Knock(
                DECK[max((c for c, dw in options.items() if dw == least), key=lambda c: (VALUES[c], c))]
            )
        return Discard(DECK[self.choose_discard(view, options, turns)])

    def candidates(self, hand: int, options: dict[int, int]) -> list[int]:
        """The discards worth scoring (see the module's docstring)."""
        return handstrength.candidates(hand, options)

    def scores(self, view: SeatView, options: dict[int, int], turns: int) -> dict[int, float]:
        """Each candidate discard's score (lower is better)."""
        return handstrength.scores(view, options, turns)

    def choose_discard(self, view: SeatView, options: dict[int, int], turns: int) -> int:
        taken = taken_index(view)
        legal = {c: dw for c, dw in options.items() if c != taken}
        scored = self.scores(view, legal, turns)
        best = min(scored.values())
        tied = sorted(c for c, s in scored.items() if s == best)
        return tied[self.rng.randrange(len(tied))] if len(tied) > 1 else tied[0]


def main(argv: list[str] | None = None) -> int:
    """``python -m server.bench marjj [tournament options]``: Hard against this player."""
    from .tournament import main as tournament

    return tournament(["hard", "marjj", *(argv or [])])


__all__ = ["FUTURE_CARDS", "MarjjStyle", "danger", "melds_in_ten"]
