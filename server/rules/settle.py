"""Settling a hand: gin, knock, undercut or dead hand, with automatic optimal layoffs.

The knocker's arrangement is chosen for the knocker (best score once the defender has answered
optimally; ties go to the lowest knocker deadwood). The defender's melds and layoffs are chosen
to leave the least deadwood. No layoffs against gin. Points come from the rules' hooks
(:meth:`~server.rules.Rules.hand_points`), with the hand's own knock limit and multiplier.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from itertools import product
from typing import TYPE_CHECKING

from .cards import Card, from_mask
from .melds import (
    Arrangement,
    Meld,
    best_arrangement_mask,
    by_rank,
    mask_value,
    min_deadwood,
    packings,
)

if TYPE_CHECKING:
    from .presets import Rules


class ResultKind(StrEnum):
    """How a hand ended. An undercut is won by the defender; a dead hand by nobody."""

    GIN = "gin"
    KNOCK = "knock"
    UNDERCUT = "undercut"
    DEAD = "dead"


@dataclass(frozen=True, slots=True)
class Layoff:
    """The defender's ``card`` laid off on the knocker's meld number ``meld``."""

    card: Card
    meld: int


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: ``kind`` (gin, knock, undercut, dead), the ``winner`` seat (``None``
    for a dead hand) and the ``points`` it scores, the ``knocker``, both hands revealed, each
    seat's melds and unmatched cards, and the defender's layoffs (``meld`` indexes the
    knocker's melds, in the order the cards were laid off)."""

    kind: ResultKind
    winner: int | None
    points: int
    knocker: int | None
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    """Each seat's final ten cards (revealed once the hand is over)."""
    arrangements: tuple[Arrangement, Arrangement]
    """Each seat's melds and unmatched cards; the defender's unmatched cards exclude layoffs."""
    layoffs: tuple[Layoff, ...]
    breakdown: str
    """The score worked out, e.g. ``"25 + 8 - 5 = 28"``."""

    @property
    def deadwood(self) -> tuple[int, int]:
        return (self.arrangements[0].deadwood, self.arrangements[1].deadwood)

    @property
    def melds(self) -> tuple[tuple[Meld, ...], tuple[Meld, ...]]:
        return (self.arrangements[0].melds, self.arrangements[1].melds)

    def points_for(self, seat: int) -> int:
        """What the hand scored for ``seat``: the points when the seat won them, less them when
        the opponent did, 0 when nobody did (a dead hand)."""
        if self.winner is None:
            return 0
        return self.points if self.winner == seat else -self.points


def _sorted_hand(mask: int) -> tuple[Card, ...]:
    return tuple(sorted(from_mask(mask), key=lambda c: (c.suit, c.rank)))


def dead_hand(hands: tuple[int, int]) -> HandResult:
    return HandResult(
        kind=ResultKind.DEAD,
        winner=None,
        points=0,
        knocker=None,
        hands=(_sorted_hand(hands[0]), _sorted_hand(hands[1])),
        arrangements=(best_arrangement_mask(hands[0]), best_arrangement_mask(hands[1])),
        layoffs=(),
        breakdown="Dead hand: no score",
    )


def _layoff_options(melds: tuple[int, ...], defender: int) -> list[list[tuple[int, ...]]]:
    """Per knocker meld, the possible layoff sequences (card index tuples), the empty one first."""
    options = []
    for m in melds:
        cards = from_mask(m)
        if len({c.rank for c in cards}) == 1:
            opts: list[tuple[int, ...]] = [()]
            if len(cards) == 3:
                rank0 = cards[0].rank - 1
                (suit,) = {0, 1, 2, 3} - {c.suit for c in cards}
                fourth = suit * 13 + rank0
                if defender >> fourth & 1:
                    opts.append((fourth,))
            options.append(opts)
            continue
        suit = cards[0].suit
        lo, hi = cards[0].rank - 1, cards[-1].rank - 1
        down = []
        r = lo - 1
        while r >= 0 and defender >> (suit * 13 + r) & 1:
            down.append(suit * 13 + r)
            r -= 1
        up = []
        r = hi + 1
        while r < 13 and defender >> (suit * 13 + r) & 1:
            up.append(suit * 13 + r)
            r += 1
        options.append(
            [tuple(down[:i]) + tuple(up[:j]) for i in range(len(down) + 1) for j in range(len(up) + 1)]
        )
    return options


def defend(melds: tuple[int, ...], defender: int) -> tuple[int, tuple[Layoff, ...], int]:
    """The defender's best answer to the knocker's ``melds``: (deadwood, layoffs, unlaid mask)."""
    best: tuple[int, tuple[Layoff, ...], int] | None = None
    for choice in product(*_layoff_options(melds, defender)):
        laid = 0
        layoffs = []
        for meld_no, cards in enumerate(choice):
            for c in cards:
                if not laid >> c & 1:
                    laid |= 1 << c
                    layoffs.append(Layoff(Card.from_index(c), meld_no))
        rest = defender & ~laid
        dw = min_deadwood(rest)
        if best is None or dw < best[0]:
            best = (dw, tuple(layoffs), rest)
    assert best is not None
    return best


def knock_kind(knocker: int, defender: int) -> ResultKind:
    """How a knock with ``knocker`` deadwood ends against ``defender`` (after layoffs): gin at 0,
    an undercut when the defender has as little or less, otherwise a knock."""
    if knocker == 0:
        return ResultKind.GIN
    return ResultKind.KNOCK if defender > knocker else ResultKind.UNDERCUT


def knocker_net(rules: Rules, knocker: int, defender: int, multiplier: int) -> int:
    """A knock's points from the knocker's side (negative: the defender's undercut), scored by
    the rules' :meth:`~server.rules.Rules.hand_points` hook."""
    kind = knock_kind(knocker, defender)
    points = rules.hand_points(kind, knocker, defender, multiplier)
    return -points if kind is ResultKind.UNDERCUT else points


def settle_knock(
    rules: Rules, knocker: int, hands: tuple[int, int], knock_limit: int, multiplier: int = 1
) -> HandResult:
    """Settle a knock by seat ``knocker`` (its ten cards within this hand's ``knock_limit``),
    scoring through the rules' hooks with this hand's ``multiplier``."""
    k_mask, d_mask = hands[knocker], hands[1 - knocker]
    defender = 1 - knocker
    revealed = (_sorted_hand(hands[0]), _sorted_hand(hands[1]))
    if min_deadwood(k_mask) == 0:
        k_arr = best_arrangement_mask(k_mask)
        d_arr = best_arrangement_mask(d_mask)
        d_dw = d_arr.deadwood
        arrs = [k_arr, d_arr] if knocker == 0 else [d_arr, k_arr]
        return HandResult(
            ResultKind.GIN,
            knocker,
            rules.hand_points(ResultKind.GIN, 0, d_dw, multiplier),
            knocker,
            revealed,
            (arrs[0], arrs[1]),
            (),
            rules.hand_breakdown(ResultKind.GIN, 0, d_dw, multiplier),
        )
    best_key = None
    best = None
    for chosen, unmatched in packings(k_mask):
        k_dw = mask_value(unmatched)
        if k_dw > knock_limit:
            continue
        d_dw, layoffs, d_rest = defend(chosen, d_mask)
        key = (-knocker_net(rules, k_dw, d_dw, multiplier), k_dw, len(chosen))
        if best_key is None or key < best_key:
            best_key, best = key, (chosen, unmatched, k_dw, d_dw, layoffs, d_rest)
    assert best is not None, "a knock is only legal with deadwood within the limit"
    chosen, unmatched, k_dw, d_dw, layoffs, d_rest = best
    # Keep the knocker's melds in the order layoffs refer to.
    k_arr = Arrangement(
        tuple(Meld.from_mask(m) for m in chosen),
        by_rank(unmatched),
        k_dw,
    )
    d_arr = best_arrangement_mask(d_rest)
    arrs = [k_arr, d_arr] if knocker == 0 else [d_arr, k_arr]
    kind = knock_kind(k_dw, d_dw)
    winner = knocker if kind is ResultKind.KNOCK else defender
    points = rules.hand_points(kind, k_dw, d_dw, multiplier)
    breakdown = rules.hand_breakdown(kind, k_dw, d_dw, multiplier)
    return HandResult(kind, winner, points, knocker, revealed, (arrs[0], arrs[1]), layoffs, breakdown)
