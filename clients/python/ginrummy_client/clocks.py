"""A match's time control, its clock as a seat is shown it, and a finished match's rematch
(docs/protocol.md, "Clocks, claims and rematches"). Each class has ``from_wire(dict)``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PRESETS: dict[str, tuple[str, int, int]] = {
    "none": ("none", 0, 0),
    "realtime 20+120": ("realtime", 20, 120),
    "correspondence 1 day a move": ("correspondence", 86400, 0),
}
"""The server's named time controls: (kind, move_seconds, bank_seconds)."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """``none``; ``realtime``: ``move_seconds`` a move plus a bank of ``bank_seconds``;
    ``correspondence``: e.g. a day a move."""

    kind: str = "none"
    move_seconds: int = 0
    bank_seconds: int = 0

    @staticmethod
    def from_wire(d: Mapping[str, Any] | None) -> TimeControl:
        if not d:
            return TimeControl()
        return TimeControl(str(d["kind"]), int(d["move_seconds"]), int(d["bank_seconds"]))

    @staticmethod
    def preset(name: str) -> TimeControl:
        kind, move, bank = PRESETS[name]
        return TimeControl(kind, move, bank)

    def to_wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "move_seconds": self.move_seconds, "bank_seconds": self.bank_seconds}

    @property
    def timed(self) -> bool:
        return self.kind != "none"


@dataclass(frozen=True, slots=True)
class SeatClock:
    move_ms: int
    bank_ms: int
    timeouts: int

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> SeatClock:
        return SeatClock(int(d["move_ms"]), int(d["bank_ms"]), int(d["timeouts"]))


@dataclass(frozen=True, slots=True)
class MatchClock:
    """Count down from ``remaining_ms`` (measured at ``server_time``): no synced clock needed."""

    time_control: TimeControl
    running: int | None
    deadline_at: str | None
    remaining_ms: int | None
    server_time: str
    warning: bool
    seats: tuple[SeatClock, ...]
    last_timeout: int | None

    @staticmethod
    def from_wire(d: Mapping[str, Any] | None) -> MatchClock | None:
        if not d:
            return None
        return MatchClock(
            TimeControl.from_wire(d["time_control"]),
            d["running"],
            d["deadline_at"],
            d["remaining_ms"],
            str(d["server_time"]),
            bool(d["warning"]),
            tuple(SeatClock.from_wire(s) for s in d["seats"]),
            d["last_timeout"],
        )


@dataclass(frozen=True, slots=True)
class Rematch:
    offered_by: int | None
    declined_by: int | None
    match_id: str | None
    """The new match (open it with the same player token) once it has started."""

    @staticmethod
    def from_wire(d: Mapping[str, Any] | None) -> Rematch | None:
        if not d:
            return None
        return Rematch(d["offered_by"], d["declined_by"], d["match_id"])
