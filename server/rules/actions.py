"""Player actions and their wire form.

The wire form is exactly one of::

    {"kind": "take_upcard"}
    {"kind": "pass"}
    {"kind": "draw", "source": "stock" | "discard"}
    {"kind": "discard", "card": "7h"}
    {"kind": "knock", "card": "7h"}     # discard 7h and knock; gin when no deadwood is left

>>> Action.from_wire({"kind": "knock", "card": "7h"})
Knock(card=Card.parse('7h'))
>>> Draw(Source.STOCK).to_wire()
{'kind': 'draw', 'source': 'stock'}
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from .cards import DECK, Card, as_card
from .errors import InvalidActionError


class Source(StrEnum):
    """Where a draw takes its card from."""

    STOCK = "stock"
    DISCARD = "discard"


class Action:
    """Base of the five actions. ``Action.from_wire(d)`` parses, ``a.to_wire()`` formats."""

    __slots__ = ()
    kind: ClassVar[str]

    def to_wire(self) -> dict[str, str]:
        raise NotImplementedError

    @staticmethod
    def from_wire(data: Any) -> Action:
        """Parse a wire dict; raises :class:`InvalidActionError` for anything malformed,
        including unknown or missing fields."""
        if not isinstance(data, dict):
            raise InvalidActionError("an action must be a JSON object with a 'kind'")
        kind = data.get("kind")
        expected = _FIELDS.get(kind) if isinstance(kind, str) else None
        if expected is None:
            raise InvalidActionError(f"unknown action kind {kind!r}; expected one of {sorted(_FIELDS)}")
        fields = set(data) - {"kind"}
        if fields != expected:
            unknown, missing = fields - expected, expected - fields
            what = "; ".join(
                p
                for p in (
                    f"unknown field(s) {sorted(unknown)}" if unknown else "",
                    f"missing field(s) {sorted(missing)}" if missing else "",
                )
                if p
            )
            raise InvalidActionError(f"{kind}: {what}")
        match kind:
            case "take_upcard":
                return TAKE_UPCARD
            case "pass":
                return PASS
            case "draw":
                source = data["source"]
                if source == "stock":
                    return DRAW_STOCK
                if source == "discard":
                    return DRAW_DISCARD
                raise InvalidActionError(f"draw: source must be 'stock' or 'discard', not {source!r}")
            # Card.parse, not as_card: the wire carries codes, never Card objects.
            case "discard":
                return DISCARDS[Card.parse(data["card"]).index]
            case _:
                return KNOCKS[Card.parse(data["card"]).index]


@dataclass(frozen=True, slots=True)
class TakeUpcard(Action):
    kind: ClassVar[str] = "take_upcard"

    def to_wire(self) -> dict[str, str]:
        return {"kind": "take_upcard"}


@dataclass(frozen=True, slots=True)
class Pass(Action):
    kind: ClassVar[str] = "pass"

    def to_wire(self) -> dict[str, str]:
        return {"kind": "pass"}


@dataclass(frozen=True, slots=True)
class Draw(Action):
    source: Source
    kind: ClassVar[str] = "draw"

    def to_wire(self) -> dict[str, str]:
        return {"kind": "draw", "source": self.source.value}


@dataclass(frozen=True, slots=True)
class Discard(Action):
    card: Card
    kind: ClassVar[str] = "discard"

    def __init__(self, card: Card | str) -> None:
        object.__setattr__(self, "card", as_card(card))

    def to_wire(self) -> dict[str, str]:
        return {"kind": "discard", "card": self.card.code}


@dataclass(frozen=True, slots=True)
class Knock(Action):
    """Discard ``card`` and knock (gin when no deadwood is left)."""

    card: Card
    kind: ClassVar[str] = "knock"

    def __init__(self, card: Card | str) -> None:
        object.__setattr__(self, "card", as_card(card))

    def to_wire(self) -> dict[str, str]:
        return {"kind": "knock", "card": self.card.code}


_FIELDS: dict[str, set[str]] = {
    "take_upcard": set(),
    "pass": set(),
    "draw": {"source"},
    "discard": {"card"},
    "knock": {"card"},
}

TAKE_UPCARD = TakeUpcard()
PASS = Pass()
DRAW_STOCK = Draw(Source.STOCK)
DRAW_DISCARD = Draw(Source.DISCARD)
DISCARDS: tuple[Discard, ...] = tuple(Discard(c) for c in DECK)
KNOCKS: tuple[Knock, ...] = tuple(Knock(c) for c in DECK)
