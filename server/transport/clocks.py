"""The clock, claim and rematch parts of what a seat is shown (see :mod:`server.wire.timing`),
from the match row and the update's server time."""

from __future__ import annotations

from datetime import UTC, datetime

from server.service.clocks import clock_of, time_control_of
from server.service.ports import MatchMeta, SeatUpdate
from server.service.rematch import rematch_of
from server.wire import timing as w


def iso(dt: datetime) -> str:
    """``2026-11-29T15:00:00.250Z``: UTC, millisecond precision (a clock counts in ms)."""
    return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


_TIME_CONTROLS: dict[tuple[object, ...] | None, w.TimeControl] = {}


def time_control(meta: MatchMeta) -> w.TimeControl:
    # On every view, and a match has one of a handful of time controls: each is made once.
    d = meta.time_control
    key = (d["kind"], d["move_seconds"], d["bank_seconds"]) if d else None
    shown = _TIME_CONTROLS.get(key)
    if shown is None:
        tc = time_control_of(meta)
        shown = w.TimeControl(tc.kind, tc.move_seconds, tc.bank_seconds)
        if len(_TIME_CONTROLS) < 256:
            _TIME_CONTROLS[key] = shown
    return shown


def rematch(meta: MatchMeta) -> w.Rematch | None:
    if meta.status != "finished":
        return None
    r = rematch_of(meta)
    return w.Rematch(r["offered_by"], r["declined_by"], r["match_id"])


def clock(meta: MatchMeta, now: datetime) -> w.MatchClock | None:
    if meta.clock is None:
        return None  # untimed (a timed match always keeps its clock)
    tc, state = time_control_of(meta), clock_of(meta)
    if not tc.timed or state is None:
        return None
    deadline = state.deadline(tc)
    remaining = None if deadline is None else max(0, int((deadline - now).total_seconds() * 1000))
    seats = []
    for seat in (0, 1):
        move, bank = state.remaining(tc, seat, now)
        seats.append(w.SeatClock(move, bank, state.timeouts[seat]))
    return w.MatchClock(
        time_control=time_control(meta),
        running=state.seat,
        deadline_at=None if deadline is None else iso(deadline),
        remaining_ms=remaining,
        server_time=iso(now),
        warning=remaining is not None and remaining <= tc.warn_seconds * 1000,
        seats=seats,
        last_timeout=state.last_timeout,
    )


def view_fields(update: SeatUpdate) -> dict[str, object]:
    """The view's clock, claim and rematch fields."""
    meta = update.meta
    now = update.now or meta.updated_at
    claim_at = update.claim_at
    return {
        "time_control": time_control(meta),
        "clock": clock(meta, now),
        "claim_at": None if claim_at is None else iso(claim_at),
        "claim_in_ms": None if claim_at is None else max(0, int((claim_at - now).total_seconds() * 1000)),
        "rematch": rematch(meta),
    }
