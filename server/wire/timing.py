"""The wire shapes of clocks, claims and rematches (kept apart from :mod:`.messages`, which
imports them into the one protocol): a time control, a match's clock as a seat sees it, and a
finished match's rematch. Nothing here does I/O or holds game logic."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from .fields import Seat, Timestamp, _Wire

Millis = Annotated[int, Meta(ge=0)]
Seconds = Annotated[int, Meta(ge=0, le=7 * 24 * 3600)]


class TimeControl(_Wire):
    """A match's clock: ``none`` (untimed: both numbers 0), ``realtime`` (``move_seconds`` a
    move, plus a bank of ``bank_seconds`` for moves that take longer) or ``correspondence`` (e.g.
    a day a move, no bank). Presets: none, realtime 20+120, correspondence 86400+0."""

    kind: Literal["none", "realtime", "correspondence"] = "none"
    move_seconds: Seconds = 0
    bank_seconds: Seconds = 0


class SeatClock(_Wire):
    """One seat's time as of ``MatchClock.server_time``: what is left of this move's allowance
    (the full allowance when it is not this seat's turn), its bank, and its timeouts in a row."""

    move_ms: Millis
    bank_ms: Millis
    timeouts: Annotated[int, Meta(ge=0, description="Turns in a row the server played for this seat")]


class MatchClock(_Wire):
    """A timed match's clock. Count down from ``remaining_ms`` (no synced clock needed); at 0
    the server plays a safe move for ``running`` (pass, draw from the stock, discard the highest
    deadwood card; never a knock), and the third timeout in a row forfeits (reason ``timeout``)."""

    time_control: TimeControl
    running: Annotated[Seat | None, Meta(description="The seat whose clock runs (null: stopped)")]
    deadline_at: Annotated[Timestamp | None, Meta(description="When the running seat's turn times out")]
    remaining_ms: Annotated[Millis | None, Meta(description="Milliseconds from server_time to deadline_at")]
    server_time: Annotated[Timestamp, Meta(description="When this view was made, on the server's clock")]
    warning: Annotated[bool, Meta(description="The running seat has 10 s (correspondence: a tenth) or less")]
    seats: Annotated[list[SeatClock], Meta(description="Indexed by seat")]
    last_timeout: Annotated[
        Seat | None,
        Meta(description="The seat whose last turn the server played, until that seat moves again"),
    ]


class Rematch(_Wire):
    """A finished match's rematch: who offered it, who declined the last offer, and the new
    match once it has started (same rules and time control, seats swapped)."""

    offered_by: Seat | None
    declined_by: Seat | None
    match_id: Annotated[str | None, Meta(description="The rematch: open it with the same player token")]
