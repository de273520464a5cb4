"""The field types every wire shape shares, and the base Struct: card codes, seats, versions,
timestamps, the registries' names as closed sets, the one pattern of client text. Kept apart
from the shapes (:mod:`.messages` gathers them); nothing here does I/O or holds game logic.

Closed sets come from their registries: preset names from ``server.rules.RULES``, difficulty
names from ``server.bots.DIFFICULTIES``, deal schemes from ``server.rules.DEALS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from msgspec import Meta, Struct

from server.bots import DIFFICULTIES
from server.rules import DEALS, RULES

# Literal[...] of a registry's names: the enum in the documents follows the registry. (A type
# checker cannot see into a registry, so to it they are plain strings.)
if TYPE_CHECKING:
    RuleName = str
    DifficultyName = str
    DealName = str
else:
    RuleName = Literal[tuple(RULES)]
    DifficultyName = Literal[tuple(DIFFICULTIES)]
    DealName = Literal[tuple(DEALS)]

Card = Annotated[
    str, Meta(pattern="^[A2-9TJQK][cdhs]$", description="A card code: rank A23456789TJQK + suit cdhs")
]
Seat = Annotated[int, Meta(ge=0, le=1)]
Version = Annotated[int, Meta(ge=0)]
Timestamp = Annotated[str, Meta(extra_json_schema={"format": "date-time"}, examples=["2026-11-29T15:00:00Z"])]
MeldCards = Annotated[list[Card], Meta(description="One meld's cards, in order")]
Status = Literal["waiting", "active", "finished"]
Sha256Hex = Annotated[str, Meta(pattern="^[0-9a-f]{64}$", description="64 lowercase hex digits of a SHA-256")]

STORABLE = "^[^\\x00]*$"
"""The pattern of every client text field: no NUL, which the databases cannot store (Postgres
refuses it). Lone surrogates cannot arrive at all: msgspec's JSON decoder refuses a ``\\ud800``
escape without its pair as malformed JSON, and raw ones are not UTF-8."""
Opponent = Literal["computer", "human"]
ActionKind = Literal["take_upcard", "pass", "draw", "discard", "knock"]


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    """Strict: decoding refuses unknown fields (so a test decoding every message it sees notices
    an undocumented one). Not tracked by the garbage collector: no wire value holds a cycle."""
