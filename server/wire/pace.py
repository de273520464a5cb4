"""The wire name of the computer's pace (kept apart from :mod:`.messages`, which uses it in
``hello``): one of ``server.bots.pace.PACES``. Nothing here does I/O or holds game logic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from msgspec import Meta, UnsetType

from server.bots.pace import PACES

if TYPE_CHECKING:
    PaceName = str
else:
    PaceName = Literal[tuple(PACES)]

Pace = Annotated[
    PaceName | UnsetType,
    Meta(
        description="The computer's pause before each of its moves in this match, from now on: slow "
        "(twice the server's pause), normal, fast (half, never below the server's floor); absent: "
        "unchanged (normal at first). Kept while this server holds the match; say it again "
        "on reconnecting"
    ),
]
