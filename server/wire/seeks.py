"""The wire shapes of quick pairing, on the lobby socket ``/ws/lobby`` (kept apart from
:mod:`.messages`): the seek a client sends, what it is told back (seeking, paired, cancelled),
and errors and pings as on ``/ws``. Nothing here does I/O or holds game logic.

A seek lives while its socket is open: closing the socket withdraws it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from .fields import STORABLE, DifficultyName, RuleName, Seat, Timestamp, _Wire
from .timing import TimeControl

SeekId = Annotated[str, Meta(examples=["k_0123456789abcdef"])]


class Seek(_Wire, tag="seek", tag_field="type"):
    """Seek a match; answered by ``seeking`` (or at once ``paired``, when a compatible seek was
    waiting). One open seek per player; a socket holds one seek at a time."""

    token: Annotated[
        str, Meta(min_length=1, max_length=128, pattern=STORABLE, description="The player token")
    ]
    rules: RuleName = "house"
    time_control: Annotated[TimeControl | None, Meta(description="Absent: none")] = None
    rated: Annotated[bool, Meta(description="Counts for both players' Glicko-2 ratings")] = False
    computer_after: Annotated[
        Annotated[int, Meta(ge=1, le=600)] | None,
        Meta(description="Play the computer (untimed, casual) if nobody comes within this many seconds"),
    ] = None
    difficulty: Annotated[DifficultyName, Meta(description="The computer's level, with computer_after")] = (
        "normal"
    )


class CancelSeek(_Wire, tag="cancel", tag_field="type"):
    """Withdraw this socket's seek; answered by ``cancelled`` (or ``paired``, when it was paired
    first)."""


class Seeking(_Wire, tag="seeking", tag_field="type"):
    """The seek is open: waiting for a compatible seek."""

    seek_id: SeekId
    rules: RuleName
    time_control: TimeControl
    rated: bool
    created_at: Timestamp
    computer_at: Annotated[Timestamp | None, Meta(description="When the computer comes (null: it does not)")]


class Paired(_Wire, tag="paired", tag_field="type"):
    """The seek is in a match: open it on ``/ws`` with ``hello`` and the same player token."""

    seek_id: SeekId
    match_id: Annotated[str, Meta(examples=["m_Xq3k9sPz0aBcDeFg"])]
    seat: Annotated[Seat, Meta(description="The seeker's seat (the older seek has seat 0)")]
    opponent: Literal["human", "computer"]


class SeekCancelled(_Wire, tag="cancelled", tag_field="type"):
    seek_id: SeekId
