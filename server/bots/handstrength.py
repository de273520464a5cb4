"""MARJJ's hand-strength rules, shared by the MARJJ-style benchmark player
(:mod:`server.bench.marjj`) and Hard's ``discard_style=1`` (:mod:`.marjj_plus`).

MARJJ won the EAAI-2021 Gin Rummy challenge. Its published design, rebuilt here from its
description (no code of it copied):

- Draw (and the first upcard): take the top card when, after the best discard, the hand's
  deadwood is lower and the card sits in a meld of the ten cards kept (:func:`takes`).
- Discard candidates: the cards that are unmatched in some least-deadwood arrangement (never the
  card just taken), only those within ``VALUE_BAND`` points of the highest such card, then only
  those leaving at most ``DEADWOOD_BAND`` more deadwood than the best of them (:func:`candidates`).
- A candidate's score (lower is better; :func:`scores`): the deadwood it leaves, plus
  ``FUTURE_WEIGHT`` times ``DECAY`` to the power of the turns it has played times the mean
  deadwood after the best ``FUTURE_CARDS`` next draws (over the cards it has not seen), plus
  :func:`danger` (what the card is worth to the opponent, from the cards the opponent is known to
  hold and the cards it cannot get).

Everything here reads a seat's view only.
"""

from __future__ import annotations

from server.rules import SeatView, Source
from server.rules.cards import VALUES
from server.rules.melds import discard_deadwoods, min_deadwood

from .base import own_mask, top_of_pile
from .knowledge import Knowledge
from .sim import GIN_VALUE_BAND, Memo, best_draws_deadwood, gin_thrown_card

FUTURE_WEIGHT = 20.0
DECAY = 0.9
FUTURE_CARDS = 6
VALUE_BAND = GIN_VALUE_BAND
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


def takes(view: SeatView) -> bool:
    """MARJJ's draw: take the top of the pile only when it lowers the deadwood and melds in the
    ten cards kept after the best discard."""
    hand = own_mask(view)
    top = top_of_pile(view)
    with_top = hand | 1 << top
    options = discard_deadwoods(with_top)
    card, left = min(
        ((c, dw) for c, dw in options.items() if c != top), key=lambda x: (x[1], -VALUES[x[0]], x[0])
    )
    return left < min_deadwood(hand) and melds_in_ten(with_top & ~(1 << card), top)


def candidates(hand: int, options: dict[int, int]) -> list[int]:
    """The discards worth scoring (see the module's docstring); ``options``: {card: deadwood
    left}, the card just taken already left out."""
    whole = min_deadwood(hand)
    loose = [c for c, dw in options.items() if dw == whole - VALUES[c]]
    if not loose:
        return sorted(options)
    top_value = max(VALUES[c] for c in loose)
    loose = [c for c in loose if VALUES[c] + VALUE_BAND >= top_value]
    best = min(options[c] for c in loose)
    return sorted(c for c in loose if options[c] <= best + DEADWOOD_BAND)


def scores(
    view: SeatView,
    options: dict[int, int],
    turns: int,
    k: Knowledge | None = None,
    memo: Memo | None = None,
    among: list[int] | None = None,
    weight_share: float = 1.0,
    decay: float = DECAY,
) -> dict[int, float]:
    """MARJJ's score of each candidate discard (lower is better); ``among``: score these cards
    instead of MARJJ's candidate set; ``weight_share``: of MARJJ's weight on the best draws,
    ``decay``: its factor a turn."""
    hand = own_mask(view)
    k = k or Knowledge.from_view(view)
    memo = memo or Memo()
    unavailable = hand | seen_discards(view)
    weight = weight_share * FUTURE_WEIGHT * decay ** max(0, turns - 1)
    return {
        c: options[c]
        + weight * best_draws_deadwood(hand & ~(1 << c), k.unseen, memo, FUTURE_CARDS)
        + danger(c, unavailable & ~(1 << c), k.opp_known)
        for c in (candidates(hand, options) if among is None else among)
    }


def seen_discards(view: SeatView) -> int:
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


__all__ = [
    "FUTURE_CARDS",
    "candidates",
    "danger",
    "gin_thrown_card",
    "melds_in_ten",
    "scores",
    "seen_discards",
    "takes",
]
