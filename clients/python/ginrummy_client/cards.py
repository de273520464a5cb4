"""Card codes and meld arithmetic for client-side strategies.

The server already tells a seat everything it needs to play legally (its hand sorted into melds,
its deadwood, ``legal_actions``, the deadwood each discard would leave). What it cannot tell a
strategy is "what if": would the upcard lower my deadwood? These helpers answer that on plain
card codes (``"7h"``, ``"Td"``), so a bot never needs the server's code.

>>> value("Kd"), value("As"), value("7h")
(10, 1, 7)
>>> deadwood(["3h", "4h", "5h", "9c", "9d", "9s", "As", "2c"])
3
>>> best_melds(["3h", "4h", "5h", "6h", "6c", "6d"])
([['6c', '6d', '6h'], ['3h', '4h', '5h']], 0)
>>> normalize("10H")
'Th'

Melds follow the rules: sets of 3 or 4 of a rank, runs of 3+ in a suit, aces low only.
This module never does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

__all__ = ["RANKS", "SUITS", "best_melds", "deadwood", "is_card", "normalize", "rank", "suit", "value"]

RANKS = "A23456789TJQK"
SUITS = "cdhs"
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANK_NAMES = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}


def is_card(code: str) -> bool:
    """True for a well-formed card code (``"7h"``); case-sensitive, as on the wire."""
    return len(code) == 2 and code[0] in RANKS and code[1] in SUITS


def normalize(text: str) -> str:
    """A card code from what a person types: ``"7H"``, ``"10h"``, ``"th"`` -> the wire code.

    Raises ValueError naming the text when it is not a card.
    """
    t = text.strip()
    if t[:2] == "10":
        t = "T" + t[2:]
    if len(t) == 2:
        code = t[0].upper() + t[1].lower()
        if is_card(code):
            return code
    raise ValueError(f"{text!r} is not a card (write rank then suit, like 7h, Td, As, 10c)")


def rank(code: str) -> int:
    """0 for an ace up to 12 for a king."""
    return RANKS.index(code[0])


def suit(code: str) -> str:
    return code[1]


def value(code: str) -> int:
    """Deadwood value: ace 1, two to ten face value, court cards 10."""
    return min(rank(code) + 1, 10)


def name(code: str) -> str:
    """``"7h"`` -> ``"7 of hearts"`` (for screen readers and friendly messages)."""
    r = code[0]
    return f"{RANK_NAMES.get(r, r)} of {SUIT_NAMES[code[1]]}"


def _melds_in(cards: frozenset[str]) -> list[frozenset[str]]:
    """Every set and run that lies inside ``cards``."""
    out: list[frozenset[str]] = []
    by_rank: dict[str, list[str]] = {}
    for c in cards:
        by_rank.setdefault(c[0], []).append(c)
    for same in by_rank.values():
        if len(same) >= 3:
            out.append(frozenset(same))
            if len(same) == 4:
                out.extend(frozenset(same) - {c} for c in same)
    for s in SUITS:
        present = [r in cards for r in (x + s for x in RANKS)]
        for lo in range(13):
            hi = lo
            while hi < 13 and present[hi]:
                hi += 1
                if hi - lo >= 3:
                    out.append(frozenset(RANKS[i] + s for i in range(lo, hi)))
    return out


@lru_cache(maxsize=65536)
def _best(cards: frozenset[str]) -> tuple[int, tuple[frozenset[str], ...]]:
    # Branch on the highest-value card: either it stays unmatched, or it is in one of the
    # melds that contain it. Exact, and plenty fast for 11 cards.
    if not cards:
        return 0, ()
    top = max(cards, key=lambda c: (value(c), rank(c), c[1]))
    rest = cards - {top}
    best_dw, best_melds_ = _best(rest)
    best_dw += value(top)
    for meld in _melds_in(cards):
        if top in meld:
            dw, melds = _best(cards - meld)
            if dw < best_dw:
                best_dw, best_melds_ = dw, (meld, *melds)
    return best_dw, best_melds_


def best_melds(cards: Iterable[str]) -> tuple[list[list[str]], int]:
    """The melds of a best arrangement (each sorted by rank, then suit) and the deadwood left."""
    dw, melds = _best(frozenset(cards))
    return [sorted(m, key=lambda c: (rank(c), c[1])) for m in melds], dw


def deadwood(cards: Iterable[str]) -> int:
    """The least deadwood over every way of arranging ``cards`` into melds."""
    return _best(frozenset(cards))[0]
