"""Time controls and a match's clock, as pure values: what a time control is, its presets, and
how a seat's clock is charged when it moves. No clock is read here: every function takes ``now``.

A time control is a per-move allowance plus a bank (lichess's "increment" turned around): each
turn the seat to act has ``move_seconds``; time it takes beyond that comes out of its bank, and
once both are spent the turn has timed out. ``none`` has no clock at all. The quick pairing of
the lobby reuses :class:`TimeControl` and :data:`PRESETS`.

The rules of timing (docs/rules.md, "Clocks"): a timed-out turn is played for the seat by the
server (a safe move) and empties its bank; a move of its own resets the seat's count of
timeouts in a row; the third timeout in a row forfeits the match (reason ``timeout``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

TimeControlKind = Literal["none", "realtime", "correspondence"]
KINDS: tuple[TimeControlKind, ...] = ("none", "realtime", "correspondence")

TIMEOUTS_TO_FORFEIT = 3
"""Timeouts in a row after which the match is forfeited (outcome reason ``timeout``)."""

WARN_SECONDS = 10.0
"""A real-time seat is warned when this little time is left (correspondence: a tenth of the
allowance)."""

MAX_SECONDS = 7 * 24 * 3600

TIMEOUT_ID = "server:timeout:"
"""The action id of a move the server played for a seat whose time ran out (followed by the
action's number): the history and the record mark those moves."""


def timed_out(client_id: str | None) -> bool:
    """Whether an action with this id was the server's move for a seat out of time."""
    return client_id is not None and client_id.startswith(TIMEOUT_ID)


"""The longest allowance or bank accepted (a week)."""


@dataclass(frozen=True, slots=True)
class Timing:
    """How the service keeps time: how often deadlines are checked, how long an opponent must
    be gone before the match can be claimed, how long a match may wait for an opponent."""

    tick_seconds: float = 1.0
    claim_seconds: float = 60.0
    waiting_seconds: float = 7 * 86400.0


class TimeControlError(ValueError):
    """A time control that is not one (its message says why)."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """``kind`` with ``move_seconds`` per move and ``bank_seconds`` in reserve (none: both 0).

    >>> TimeControl.realtime(20, 120)
    TimeControl(kind='realtime', move_seconds=20, bank_seconds=120)
    >>> TimeControl.none().timed
    False
    """

    kind: TimeControlKind = "none"
    move_seconds: int = 0
    bank_seconds: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise TimeControlError(f"time_control.kind must be one of {list(KINDS)}")
        if self.kind == "none":
            if self.move_seconds or self.bank_seconds:
                raise TimeControlError("time_control 'none' has move_seconds and bank_seconds 0")
            return
        if not 1 <= self.move_seconds <= MAX_SECONDS:
            raise TimeControlError(f"time_control.move_seconds must be 1 to {MAX_SECONDS}")
        if not 0 <= self.bank_seconds <= MAX_SECONDS:
            raise TimeControlError(f"time_control.bank_seconds must be 0 to {MAX_SECONDS}")

    @staticmethod
    def none() -> TimeControl:
        return TimeControl()

    @staticmethod
    def realtime(move_seconds: int, bank_seconds: int) -> TimeControl:
        return TimeControl("realtime", move_seconds, bank_seconds)

    @staticmethod
    def correspondence(move_seconds: int = 86400) -> TimeControl:
        return TimeControl("correspondence", move_seconds, 0)

    @property
    def timed(self) -> bool:
        return self.kind != "none"

    @property
    def warn_seconds(self) -> float:
        """How much time left on a turn earns the seat a warning."""
        return WARN_SECONDS if self.kind == "realtime" else self.move_seconds / 10

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "move_seconds": self.move_seconds, "bank_seconds": self.bank_seconds}

    @staticmethod
    def from_dict(d: dict[str, Any] | None) -> TimeControl:
        if not d:
            return TimeControl()
        return TimeControl(d["kind"], int(d["move_seconds"]), int(d["bank_seconds"]))


PRESETS: dict[str, TimeControl] = {
    "none": TimeControl.none(),
    "realtime 20+120": TimeControl.realtime(20, 120),
    "correspondence 1 day a move": TimeControl.correspondence(86400),
}
"""The named time controls offered by the clients (and the lobby's seeks)."""


@dataclass(frozen=True, slots=True)
class ClockState:
    """A timed match's clock as its row keeps it: each seat's bank (ms), whose turn is being
    timed (``seat``) since when (``started``), and each seat's timeouts in a row."""

    banks_ms: tuple[int, int]
    seat: int | None
    started: datetime | None
    timeouts: tuple[int, int] = (0, 0)
    last_timeout: int | None = field(default=None)
    """The seat of the latest timeout, while it has not moved since (for the history)."""

    @staticmethod
    def start(tc: TimeControl) -> ClockState:
        bank = tc.bank_seconds * 1000
        return ClockState((bank, bank), None, None)

    def deadline(self, tc: TimeControl) -> datetime | None:
        """When the turn being timed runs out (None: nothing is timed)."""
        if self.seat is None or self.started is None:
            return None
        return self.started + timedelta(milliseconds=tc.move_seconds * 1000 + self.banks_ms[self.seat])

    def remaining(self, tc: TimeControl, seat: int, now: datetime) -> tuple[int, int]:
        """``seat``'s move allowance and bank left (ms) at ``now``."""
        move, bank = tc.move_seconds * 1000, self.banks_ms[seat]
        if seat != self.seat or self.started is None:
            return move, bank
        used = max(0, _ms(now - self.started))
        return max(0, move - used), max(0, bank - max(0, used - move))

    def moved(self, tc: TimeControl, now: datetime, *, timed_out: bool) -> ClockState:
        """The seat being timed moved at ``now`` (``timed_out``: the server moved for it)."""
        if self.seat is None:
            return self
        seat = self.seat
        _, bank = self.remaining(tc, seat, now)
        banks = list(self.banks_ms)
        banks[seat] = 0 if timed_out else bank
        timeouts = list(self.timeouts)
        timeouts[seat] = timeouts[seat] + 1 if timed_out else 0
        last = seat if timed_out else (None if self.last_timeout == seat else self.last_timeout)
        return replace(
            self, banks_ms=(banks[0], banks[1]), timeouts=(timeouts[0], timeouts[1]), last_timeout=last
        )

    def timing(self, seat: int | None, now: datetime) -> ClockState:
        """Time ``seat``'s turn from ``now`` (None: stop the clock)."""
        return replace(self, seat=seat, started=None if seat is None else now)

    def to_dict(self) -> dict[str, Any]:
        return {
            "banks_ms": list(self.banks_ms),
            "seat": self.seat,
            "started": None if self.started is None else self.started.isoformat(),
            "timeouts": list(self.timeouts),
            "last_timeout": self.last_timeout,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> ClockState:
        started = d.get("started")
        b, t = d["banks_ms"], d.get("timeouts", [0, 0])
        return ClockState(
            (int(b[0]), int(b[1])),
            d.get("seat"),
            None if started is None else datetime.fromisoformat(started),
            (int(t[0]), int(t[1])),
            d.get("last_timeout"),
        )


def _ms(delta: timedelta) -> int:
    return int(delta.total_seconds() * 1000)


def restamp(
    tc: TimeControl,
    clock: ClockState | None,
    *,
    active: bool,
    to_act: int | None,
    moved: bool,
    timed_out: bool,
    now: datetime,
) -> ClockState | None:
    """The clock after a change: charged for the move just made (``moved``), then timing the
    seat now to act while the match is active (stopped otherwise). None: the match is untimed."""
    if not tc.timed:
        return None
    clock = clock or ClockState.start(tc)
    if moved:
        clock = clock.moved(tc, now, timed_out=timed_out)
    seat = to_act if active else None
    if seat != clock.seat or moved or (seat is not None and clock.started is None):
        clock = clock.timing(seat, now)
    return clock
