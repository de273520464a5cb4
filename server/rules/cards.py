"""Cards and the 52-card deck.

A card's text (and wire) code is its rank character followed by its suit character: ``As``,
``Td``, ``Kh``, ``7c``. Internally every card also has an index 0..51 (suit-major, aces low) so
that a hand is a 52-bit integer mask and a run is a block of consecutive bits.

>>> Card.parse("Td")
Card.parse('Td')
>>> str(Card.parse("Td")), Card.parse("Td").value
('Td', 10)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import InvalidCardError

RANKS = "A23456789TJQK"
SUITS = "cdhs"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card. ``rank`` is 1 (ace) .. 13 (king); ``suit`` is 0..3 for c d h s."""

    suit: int
    rank: int
    index: int = field(init=False, repr=False, compare=False)
    """Internal index 0..51: suit-major (c d h s), aces low; bit ``index`` of a hand mask."""
    value: int = field(init=False, repr=False, compare=False)
    """Deadwood value: ace 1, pip cards face value, J Q K 10."""
    code: str = field(init=False, repr=False, compare=False)
    """Wire/text code: rank char + suit char, e.g. ``"Td"``."""

    def __post_init__(self) -> None:
        # Plain attributes, set once: these are read on every hot path (views, bots, wire).
        object.__setattr__(self, "index", self.suit * 13 + self.rank - 1)
        object.__setattr__(self, "value", min(self.rank, 10))
        object.__setattr__(self, "code", RANKS[self.rank - 1] + SUITS[self.suit])

    @staticmethod
    def parse(code: str) -> Card:
        """The card for a code like ``"7h"``; raises :class:`InvalidCardError` otherwise."""
        card = _BY_CODE.get(code) if isinstance(code, str) else None
        if card is None:
            raise InvalidCardError(f"not a card code: {code!r} (expected e.g. 'Td', '7h', 'As')")
        return card

    @staticmethod
    def from_index(index: int) -> Card:
        """The card with internal index ``index`` (0..51)."""
        return DECK[index]

    @property
    def name(self) -> str:
        """Human name, e.g. ``"7 of hearts"``."""
        return f"{RANK_NAMES[self.rank - 1]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


DECK: tuple[Card, ...] = tuple(Card(s, r) for s in range(4) for r in range(1, 14))
_BY_CODE = {c.code: c for c in DECK}
VALUES: tuple[int, ...] = tuple(c.value for c in DECK)


def as_card(card: Card | str) -> Card:
    """Accept a :class:`Card` or its code."""
    return card if isinstance(card, Card) else Card.parse(card)


def parse_cards(cards: Iterable[Card | str] | str) -> list[Card]:
    """Cards from an iterable of cards/codes, or a space-separated string of codes."""
    if isinstance(cards, str):
        cards = cards.split()
    return [as_card(c) for c in cards]


def to_mask(cards: Iterable[Card | str]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << as_card(c).index
    return mask


def from_mask(mask: int) -> list[Card]:
    """Cards in a mask, in index order (suit, then rank)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(DECK[low.bit_length() - 1])
        mask ^= low
    return out


def indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
