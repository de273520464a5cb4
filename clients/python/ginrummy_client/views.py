"""Typed, read-only mirrors of what one seat (or a watcher) sees: the match view (the payload
of a ``state`` message), the hand in play and its public events, the players and the rules.
Lenient about fields they do not know, strict about the ones they need, as :mod:`.models` says.

This module never does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .actions import Action
from .clocks import MatchClock, Rematch, TimeControl
from .errors import ProtocolError, need
from .results import HandResult, Outcome

__all__ = ["Event", "HandView", "MatchView", "PlayerInfo", "RulesInfo"]


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    seat: int
    name: str
    kind: str  # "human" | "computer"
    connected: bool | None = None

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> PlayerInfo:
        return PlayerInfo(
            int(need(d, "seat", "player")),
            str(d.get("name", "")),
            str(d.get("kind", "")),
            d["connected"] if "connected" in d else None,  # noqa: SIM401 (probe: not in a summary)
        )


@dataclass(frozen=True, slots=True)
class RulesInfo:
    name: str
    label: str = ""
    target: int = 100
    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 25
    box_bonus: int = 0
    game_bonus: int = 0
    shutout_bonus: int = 0
    starter_rule: str = ""
    description: str = ""

    @staticmethod
    def from_wire(d: Mapping[str, Any] | str) -> RulesInfo:
        if isinstance(d, str):  # a summary names the preset only
            return RulesInfo(d)
        known = {k: d[k] for k in RulesInfo.__dataclass_fields__ if k in d}
        return RulesInfo(**known)


@dataclass(frozen=True, slots=True)
class Event:
    """One public event of the hand: who took, passed, drew (from where), discarded or knocked.
    ``card`` is None for a draw from the stock (the drawer alone sees it, in its hand)."""

    seat: int
    kind: str
    card: str | None = None
    source: str | None = None
    timed_out: bool = False
    """The server played this move for the seat, its time having run out."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> Event:
        return Event(
            int(need(d, "seat", "event")),
            str(need(d, "kind", "event")),
            d.get("card"),
            d.get("source"),
            bool(d.get("timed_out", False)),
        )


@dataclass(frozen=True, slots=True)
class HandView:
    """One seat's view of the hand in play (a watcher's has ``seat`` None and no cards)."""

    seat: int | None
    starter: int
    dealer: int
    phase: str  # upcard | draw | discard | over
    to_act: int | None
    hand: tuple[str, ...]
    """Best-arrangement order: melds first, then unmatched cards by rank."""
    melds: tuple[tuple[str, ...], ...]
    deadwood: int | None
    hand_counts: tuple[int, int]
    stock_count: int
    discard_pile: tuple[str, ...]
    """Bottom first: the last card is the top."""
    history: tuple[Event, ...]
    legal_actions: tuple[Action, ...]
    discard_deadwood: Mapping[str, int]
    result: HandResult | None
    knock_limit: int = 10
    """The most deadwood a knock may leave in this hand (0: gin only)."""
    multiplier: int = 1
    """What this hand's score is multiplied by."""
    deal_commitment: str | None = None
    """SHA-256 of this hand's seed, shown from the deal (None: a legacy deal); the record
    reveals the seed after the match (:func:`ginrummy_client.verify`)."""

    @property
    def cards(self) -> tuple[str, ...]:
        """The seat's cards (the protocol's ``cards``; ``hand`` is its older name)."""
        return self.hand

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> HandView:
        counts = d.get("hand_counts") or (0, 0)
        result = d.get("result")
        # "cards" since protocol v1.1; "hand" (the same list) from older servers only.
        cards = d["cards"] if "cards" in d else d.get("hand")
        return HandView(
            seat=d.get("seat"),
            starter=int(d.get("starter", 0)),
            dealer=int(d.get("dealer", 1)),
            phase=str(need(d, "phase", "hand")),
            to_act=d.get("to_act"),
            hand=tuple(cards or ()),
            melds=tuple(tuple(m) for m in d.get("melds") or ()),
            deadwood=d.get("deadwood"),
            hand_counts=(int(counts[0]), int(counts[1])),
            stock_count=int(d.get("stock_count", 0)),
            discard_pile=tuple(d.get("discard_pile") or ()),
            history=tuple(Event.from_wire(e) for e in d.get("history") or ()),
            legal_actions=tuple(Action.from_wire(a) for a in d.get("legal_actions") or ()),
            discard_deadwood=MappingProxyType(dict(d.get("discard_deadwood") or {})),
            result=HandResult.from_wire(result) if result else None,
            knock_limit=int(d.get("knock_limit", 10)),
            multiplier=int(d.get("multiplier", 1)),
            deal_commitment=d.get("deal_commitment"),
        )

    @property
    def top_discard(self) -> str | None:
        """The top of the discard pile (the upcard during the upcard offer)."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def unmatched(self) -> tuple[str, ...]:
        """The seat's cards outside its melds (its deadwood cards)."""
        melded = {c for m in self.melds for c in m}
        return tuple(c for c in self.hand if c not in melded)

    @property
    def opponent_count(self) -> int:
        return self.hand_counts[1 - self.seat] if self.seat is not None else 0

    @property
    def knock_options(self) -> dict[str, int]:
        """Each card this seat may knock with now, and the deadwood that would remain."""
        return {
            a.card: self.discard_deadwood.get(a.card, 0)
            for a in self.legal_actions
            if a.kind == "knock" and a.card is not None
        }

    @property
    def just_taken(self) -> str | None:
        """The card this seat just took from the discard pile (it may not discard it this turn)."""
        if self.phase == "discard" and self.history and self.history[-1].seat == self.to_act:
            last = self.history[-1]
            if last.kind == "take_upcard" or (last.kind == "draw" and last.source == "discard"):
                return last.card
        return None


@dataclass(frozen=True, slots=True)
class MatchView:
    """Everything one seat (or a watcher) sees of a match: the payload of a ``state`` message."""

    match_id: str
    status: str  # waiting | active | finished
    seat: int | None
    version: int
    players: tuple[PlayerInfo, ...]
    rules: RulesInfo
    hand_number: int
    scores: tuple[int, int]
    hands_won: tuple[int, int]
    hand: HandView | None
    last_result: HandResult | None
    outcome: Outcome | None
    status_line: str
    time_control: TimeControl = field(default_factory=TimeControl)
    clock: MatchClock | None = None
    """A timed match's clock (None: untimed)."""
    claim_at: str | None = None
    claim_in_ms: int | None = None
    """Set when the opponent is gone: from then, ``client.claim(match_id)`` wins the match."""
    rematch: Rematch | None = None
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)
    """The view exactly as received (fields a newer server adds are here)."""

    @staticmethod
    def from_wire(d: Any, version: int | None = None) -> MatchView:
        if not isinstance(d, Mapping):
            raise ProtocolError(f"a view must be an object, not {d!r:.200}")
        try:
            hand = d.get("hand")
            last = d.get("last_result")
            outcome = d.get("outcome")
            scores = d.get("scores") or (0, 0)
            won = d.get("hands_won") or (0, 0)
            return MatchView(
                match_id=str(need(d, "match_id", "view")),
                status=str(d.get("status", "active")),
                seat=d.get("seat"),
                version=int(version if version is not None else d.get("version", 0)),
                players=tuple(PlayerInfo.from_wire(p) for p in d.get("players") or ()),
                rules=RulesInfo.from_wire(d.get("rules") or {"name": "?"}),
                hand_number=int(d.get("hand_number", 0)),
                scores=(int(scores[0]), int(scores[1])),
                hands_won=(int(won[0]), int(won[1])),
                hand=HandView.from_wire(hand) if hand else None,
                last_result=HandResult.from_wire(last) if last else None,
                outcome=Outcome.from_wire(outcome) if outcome else None,
                status_line=str(d.get("status_line", "")),
                time_control=TimeControl.from_wire(d.get("time_control")),
                clock=MatchClock.from_wire(d.get("clock")),
                claim_at=d.get("claim_at"),
                claim_in_ms=d.get("claim_in_ms"),
                rematch=Rematch.from_wire(d.get("rematch")),
                raw=MappingProxyType(dict(d)),
            )
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise ProtocolError(f"unreadable view: {exc}") from exc

    @property
    def is_over(self) -> bool:
        return self.status == "finished" or self.outcome is not None

    @property
    def legal_actions(self) -> tuple[Action, ...]:
        return self.hand.legal_actions if self.hand else ()

    @property
    def my_turn(self) -> bool:
        """True when this seat has something to do now (never while the match waits for its
        second player, whatever the hand shows)."""
        return bool(self.legal_actions) and self.status != "waiting" and not self.is_over

    def player(self, seat: int) -> PlayerInfo | None:
        return next((p for p in self.players if p.seat == seat), None)

    @property
    def opponent(self) -> PlayerInfo | None:
        return None if self.seat is None else self.player(1 - self.seat)

    def name(self, seat: int) -> str:
        p = self.player(seat)
        return p.name if p and p.name else f"Seat {seat}"
