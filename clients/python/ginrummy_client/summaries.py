"""Typed, read-only mirrors of the REST answers about players and matches: a new player's
identity, an invite, a match's summary (with its finished hands in the details) and the ticket
that ``create`` and ``join`` answer. Lenient about fields they do not know, strict about the
ones they need, as :mod:`.models` says.

This module never does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .clocks import Rematch, TimeControl
from .errors import need
from .results import HandResult, Outcome
from .views import PlayerInfo

__all__ = ["Invite", "MatchSummary", "MatchTicket", "PlayerIdentity"]


@dataclass(frozen=True, slots=True)
class PlayerIdentity:
    player_id: str
    name: str
    token: str = field(repr=False)
    """Shown once by the server: keep it to come back to your matches."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> PlayerIdentity:
        return PlayerIdentity(
            str(need(d, "player_id", "player")), str(d.get("name", "")), str(need(d, "token", "player"))
        )


@dataclass(frozen=True, slots=True)
class Invite:
    code: str
    url: str

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> Invite:
        return Invite(str(need(d, "code", "invite")), str(d.get("url", "")))


@dataclass(frozen=True, slots=True)
class MatchSummary:
    match_id: str
    rules: str
    opponent: str
    difficulty: str | None
    status: str
    players: tuple[PlayerInfo, ...]
    scores: tuple[int, int]
    hands_won: tuple[int, int]
    hand_number: int
    winner: int | None
    outcome: Outcome | None
    version: int
    created_at: str = ""
    updated_at: str = ""
    """Both ISO 8601, UTC (``2026-11-29T15:00:00Z``)."""
    hands: tuple[HandResult, ...] = ()
    """Every finished hand's result (``GET /api/matches/{id}`` only)."""
    time_control: TimeControl = field(default_factory=TimeControl)
    rematch: Rematch | None = None
    rated: bool = False
    """Counts for both players' ratings."""
    public: bool = False
    """An open challenge (listed while it waits)."""
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> MatchSummary:
        scores = d.get("scores") or (0, 0)
        won = d.get("hands_won") or (0, 0)
        outcome = d.get("outcome")
        rules = d.get("rules", "")
        return MatchSummary(
            match_id=str(need(d, "match_id", "match summary")),
            rules=rules if isinstance(rules, str) else str(rules.get("name", "")),
            opponent=str(d.get("opponent", "")),
            difficulty=d.get("difficulty"),
            status=str(d.get("status", "")),
            players=tuple(PlayerInfo.from_wire(p) for p in d.get("players") or ()),
            scores=(int(scores[0]), int(scores[1])),
            hands_won=(int(won[0]), int(won[1])),
            hand_number=int(d.get("hand_number", 0)),
            winner=d.get("winner"),
            outcome=Outcome.from_wire(outcome) if outcome else None,
            version=int(d.get("version", 0)),
            created_at=str(d.get("created_at", "")),
            updated_at=str(d.get("updated_at", "")),
            hands=tuple(HandResult.from_wire(h) for h in d["hands"]) if "hands" in d else (),
            time_control=TimeControl.from_wire(d.get("time_control")),
            rematch=Rematch.from_wire(d.get("rematch")),
            rated=bool(d.get("rated", False)),
            public=bool(d.get("public", False)),
            raw=MappingProxyType(dict(d)),
        )


@dataclass(frozen=True, slots=True)
class MatchTicket:
    """What ``create`` and ``join`` answer: the match, your seat and how to connect."""

    summary: MatchSummary
    seat: int
    ws_url: str
    watch_token: str | None = field(default=None, repr=False)
    invite: Invite | None = None

    @property
    def match_id(self) -> str:
        return self.summary.match_id

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> MatchTicket:
        # A created match has watch_token and invite; a joined one has neither.
        invite = d["invite"] if "invite" in d else None  # noqa: SIM401 (probe, as below)
        return MatchTicket(
            summary=MatchSummary.from_wire(d),
            seat=int(need(d, "seat", "match ticket")),
            ws_url=str(d.get("ws_url") or "/ws"),
            watch_token=d["watch_token"] if "watch_token" in d else None,  # noqa: SIM401
            invite=Invite.from_wire(invite) if invite else None,
        )
