"""The wire actions, typed: the five moves a seat may play, their constants and helpers
(``TAKE_UPCARD``, ``PASS``, ``DRAW_STOCK``, ``DRAW_DISCARD``, ``discard("7h")``, ``knock("7h")``;
examples in :mod:`.models`).

This module never does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import is_card

__all__ = ["DRAW_DISCARD", "DRAW_STOCK", "PASS", "TAKE_UPCARD", "Action", "discard", "knock"]

ACTION_KINDS = ("take_upcard", "pass", "draw", "discard", "knock")


@dataclass(frozen=True, slots=True)
class Action:
    """One wire action. Build with the constants and helpers: ``TAKE_UPCARD``, ``PASS``,
    ``DRAW_STOCK``, ``DRAW_DISCARD``, ``discard("7h")``, ``knock("7h")``."""

    kind: str
    source: str | None = None
    card: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind {self.kind!r}; expected one of {ACTION_KINDS}")
        if self.kind == "draw" and self.source not in ("stock", "discard"):
            raise ValueError("a draw needs source 'stock' or 'discard'")
        if self.kind in ("discard", "knock") and not (isinstance(self.card, str) and is_card(self.card)):
            raise ValueError(f"{self.kind} needs a card code like '7h', not {self.card!r}")

    @staticmethod
    def from_wire(data: Mapping[str, Any]) -> Action:
        """Parse a wire action (``{"kind": "draw", "source": "stock"}``); ValueError when malformed."""
        if not isinstance(data, Mapping) or "kind" not in data:
            raise ValueError(f"not a wire action: {data!r}")
        return Action(str(data["kind"]), data.get("source"), data.get("card"))

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.source is not None:
            out["source"] = self.source
        if self.card is not None:
            out["card"] = self.card
        return out

    def __str__(self) -> str:
        """The terminal client's command for this action (``d s``, ``x 7h``...)."""
        match self.kind:
            case "take_upcard":
                return "t"
            case "pass":
                return "p"
            case "draw":
                return f"d {'s' if self.source == 'stock' else 'd'}"
            case "discard":
                return f"x {self.card}"
            case _:
                return f"k {self.card}"

    def __repr__(self) -> str:
        match self.kind:
            case "take_upcard":
                return "TAKE_UPCARD"
            case "pass":
                return "PASS"
            case "draw":
                return "DRAW_STOCK" if self.source == "stock" else "DRAW_DISCARD"
            case _:
                return f"{self.kind}({self.card!r})"


TAKE_UPCARD = Action("take_upcard")
PASS = Action("pass")
DRAW_STOCK = Action("draw", source="stock")
DRAW_DISCARD = Action("draw", source="discard")


def discard(card: str) -> Action:
    return Action("discard", card=card)


def knock(card: str) -> Action:
    """Discard ``card`` and knock (gin when no deadwood is left)."""
    return Action("knock", card=card)
