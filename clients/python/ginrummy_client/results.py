"""Typed, read-only mirrors of how a hand and a match end: a hand's result (both hands
revealed, melds, layoffs, the score worked out) and the match's outcome with each seat's totals.
Lenient about fields they do not know, strict about the ones they need, as :mod:`.models` says.

This module never does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import need

__all__ = ["HandResult", "Layoff", "Outcome", "SeatTotal"]


@dataclass(frozen=True, slots=True)
class Layoff:
    card: str
    meld: int
    """Index into the knocker's ``melds``."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended; both hands are revealed here."""

    kind: str  # gin | knock | undercut | dead
    winner: int | None
    points: int
    knocker: int | None
    deadwood: tuple[int, int]
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    melds: tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]
    unmatched: tuple[tuple[str, ...], tuple[str, ...]]
    layoffs: tuple[Layoff, ...]
    breakdown: str
    number: int | None = None
    """The hand's number and its starter: in a match's details (``hands``), not in a view."""
    starter: int | None = None

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> HandResult:
        def pair(key: str) -> Any:
            v = d.get(key) or [[], []]
            return (tuple(v[0]), tuple(v[1]))

        melds = d.get("melds") or [[], []]
        dw = d.get("deadwood") or (0, 0)
        return HandResult(
            kind=str(need(d, "kind", "hand result")),
            winner=d.get("winner"),
            points=int(d.get("points", 0)),
            knocker=d.get("knocker"),
            deadwood=(int(dw[0]), int(dw[1])),
            hands=pair("hands"),
            melds=(tuple(tuple(m) for m in melds[0]), tuple(tuple(m) for m in melds[1])),
            unmatched=pair("unmatched"),
            layoffs=tuple(Layoff(x["card"], int(x["meld"])) for x in d.get("layoffs") or ()),
            breakdown=str(d.get("breakdown", "")),
            number=int(d["number"]) if "number" in d else None,
            starter=int(d["starter"]) if "starter" in d else None,
        )

    @property
    def summary(self) -> str:
        """The score in words and numbers: ``"Undercut: 25 + 8 - 5 = 28"``."""
        if self.kind == "dead":
            return self.breakdown or "Dead hand: no score"
        return f"{self.kind.capitalize()}: {self.breakdown}"


@dataclass(frozen=True, slots=True)
class SeatTotal:
    points: int
    box_bonus: int = 0
    game_bonus: int = 0
    total: int = 0

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> SeatTotal:
        return SeatTotal(
            int(d.get("points", 0)),
            int(d.get("box_bonus", 0)),
            int(d.get("game_bonus", 0)),
            int(d.get("total", 0)),
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the match ended: the winner's seat, ``"target"``, ``"resign"``, ``"timeout"`` or
    ``"abandoned"``, and the totals."""

    winner: int
    reason: str
    totals: tuple[SeatTotal, ...]

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> Outcome:
        return Outcome(
            int(need(d, "winner", "outcome")),
            str(d.get("reason", "")),
            tuple(SeatTotal.from_wire(t) for t in d.get("totals") or ()),
        )
