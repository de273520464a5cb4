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

from server.bots.base import Bot, own_mask, taken_index, top_of_pile
from server.bots.knowledge import Knowledge
from server.bots.sim import Memo, best_draws_deadwood, own_turns
from server.rules import Discard, Knock, SeatView, Source
from server.rules.cards import DECK, VALUES
from server.rules.melds import discard_deadwoods, min_deadwood

EARLY_TURNS = 3
"""Turns of its own (draws) within which it knocks when it can; later it plays for gin."""
FUTURE_WEIGHT = 20.0
DECAY = 0.9
FUTURE_CARDS = 6
VALUE_BAND = 5
DEADWOOD_BAND = 5

# danger(): points added for a card the opponent can use, taken off for one it cannot
RUN_BLOCKED, NEXT_BLOCKED, TWO_AWAY_BLOCKED = -10.0, -5.0, -3.0
RUN_FED, NEXT_FED, TWO_AWAY_FED = 20.0, 5.0, 3.0
SET_BLOCKED, RANK_BLOCKED = -10.0, -4.0
SET_FED, RANK_FED = 20.0, 4.0


def danger(card: int, unavailable: int, opponent: int) -> float:
    """How much ``card`` would help the opponent: positive when the opponent is known to hold
    cards that meld with it, negative when the cards it would need are out of its reach
    (``unavailable``: in this seat's hand or seen in the discard pile; ``opponent``: cards the
    opponent is known to hold)."""
    suit, r = divmod(card, 13)

    def state(rank: int) -> tuple[bool, bool]:
        """(the opponent holds it, it cannot get it); off the end of the suit: cannot get it."""
        if not 0 <= rank < 13:
            return False, True
        bit = 1 << (suit * 13 + rank)
        return bool(opponent & bit), bool(unavailable & bit and not opponent & bit)

    (h2, u2l), (h1, u1l), (g1, u1h), (g2, u2h) = state(r - 2), state(r - 1), state(r + 1), state(r + 2)
    score = 0.0
    # runs: the card joins an opponent run through (r-2, r-1), (r-1, r+1) or (r+1, r+2)
    if (u1l or u2l) and (u1l or u1h) and (u1h or u2h):
        score += RUN_BLOCKED
    else:
        score += NEXT_BLOCKED * (u1l + u1h) + TWO_AWAY_BLOCKED * (u2l + u2h)
    if (h2 and h1) or (h1 and g1) or (g1 and g2):
        score += RUN_FED
    else:
        score += NEXT_FED * (h1 + g1) + TWO_AWAY_FED * (h2 + g2)
    held = gone = 0
    for s in range(4):
        if s == suit:
            continue
        bit = 1 << (s * 13 + r)
        if opponent & bit:
            held += 1
        elif unavailable & bit:
            gone += 1
    if gone >= 2:
        score += SET_BLOCKED
    elif gone == 1:
        score += RANK_BLOCKED
    if held >= 2:
        score += SET_FED
    elif held == 1:
        score += RANK_FED
    return score


def melds_in_ten(ten: int, card: int) -> bool:
    """Whether ``card`` lies in a meld of some least-deadwood arrangement of ``ten``."""
    return min_deadwood(ten) < min_deadwood(ten & ~(1 << card)) + VALUES[card]


class MarjjStyle(Bot):
    """The MARJJ-style player (see the module's docstring)."""

    difficulty = "marjj"

    def __init__(self, seed: int | str = 0, *, early_turns: int = EARLY_TURNS) -> None:
        super().__init__(seed)
        self.early_turns = early_turns

    def take_discard(self, view: SeatView) -> bool:
        hand = own_mask(view)
        top = top_of_pile(view)
        with_top = hand | 1 << top
        options = discard_deadwoods(with_top)
        card, left = min(
            ((c, dw) for c, dw in options.items() if c != top), key=lambda x: (x[1], -VALUES[x[0]], x[0])
        )
        return left < min_deadwood(hand) and melds_in_ten(with_top & ~(1 << card), top)

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
        whole = min_deadwood(hand)
        loose = [c for c, dw in options.items() if dw == whole - VALUES[c]]
        if not loose:
            return sorted(options)
        top_value = max(VALUES[c] for c in loose)
        loose = [c for c in loose if VALUES[c] + VALUE_BAND >= top_value]
        best = min(options[c] for c in loose)
        return sorted(c for c in loose if options[c] <= best + DEADWOOD_BAND)

    def scores(self, view: SeatView, options: dict[int, int], turns: int) -> dict[int, float]:
        """Each candidate discard's score (lower is better)."""
        hand = own_mask(view)
        k = Knowledge.from_view(view)
        unavailable = hand | _seen_discards(view)
        weight = FUTURE_WEIGHT * DECAY ** max(0, turns - 1)
        memo = Memo()
        return {
            c: options[c]
            + weight * best_draws_deadwood(hand & ~(1 << c), k.unseen, memo, FUTURE_CARDS)
            + danger(c, unavailable & ~(1 << c), k.opp_known)
            for c in self.candidates(hand, options)
        }

    def choose_discard(self, view: SeatView, options: dict[int, int], turns: int) -> int:
        taken = taken_index(view)
        legal = {c: dw for c, dw in options.items() if c != taken}
        scored = self.scores(view, legal, turns)
        best = min(scored.values())
        tied = sorted(c for c, s in scored.items() if s == best)
        return tied[self.rng.randrange(len(tied))] if len(tied) > 1 else tied[0]


def _seen_discards(view: SeatView) -> int:
    """Every card seen face up in the discard pile this hand (the first upcard included)."""
    out = 0
    for c in view.discard_pile:
        out |= 1 << c.index
    for e in view.history:
        if e.card is not None and (
            e.kind in ("discard", "knock", "take_upcard") or e.source is Source.DISCARD
        ):
            out |= 1 << e.card.index
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m server.bench marjj [tournament options]``: Hard against this player."""
    from .tournament import main as tournament

    return tournament(["hard", "marjj", *(argv or [])])


__all__ = ["MarjjStyle", "danger"]
