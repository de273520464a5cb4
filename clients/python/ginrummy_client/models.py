"""Typed, read-only mirrors of the protocol's JSON: actions, views, results, match summaries.

Each class has ``from_wire(dict)`` (and actions ``to_wire()``), following docs/protocol.md.
Parsing is lenient about fields this client does not know (a newer server may add some: they
stay reachable through ``raw``) and strict about the ones it needs (a missing one raises
:class:`ProtocolError`).

>>> a = Action.from_wire({"kind": "knock", "card": "7h"})
>>> a, a.to_wire()
(knock('7h'), {'kind': 'knock', 'card': '7h'})
>>> DRAW_STOCK.to_wire()
{'kind': 'draw', 'source': 'stock'}
>>> str(discard("Td"))
'x Td'

This module never does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .cards import is_card
from .clocks import MatchClock, Rematch, TimeControl
from .errors import ProtocolError

__all__ = [
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "PASS",
    "TAKE_UPCARD",
    "Action",
    "Event",
    "HandResult",
    "HandView",
    "Invite",
    "Layoff",
    "MatchSummary",
    "MatchTicket",
    "MatchView",
    "Outcome",
    "PlayerIdentity",
    "PlayerInfo",
    "RulesInfo",
    "SeatTotal",
    "discard",
    "knock",
]

ACTION_KINDS = ("take_upcard", "pass", "draw", "discard", "knock")


def _need(data: Mapping[str, Any], key: str, what: str) -> Any:
    try:
        return data[key]
    except (KeyError, TypeError):
        raise ProtocolError(f"{what} without {key!r}: {data!r:.200}") from None


# --- actions --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Action:
    """One wire action. Build with the constants and helpers: ``TAKE_UPCARD``, ``PASS``,
    ``DRAW_STOCK``, ``DRAW_DISCARD``, ``discard("7h")``, ``knock("7h")``."""

    kind: str
    source: str | None = None
    card: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError(f"unknown action kind {self.kind!r}; expected one of {ACTION_KINDS}")
        if self.kind == "draw" and self.source not in ("stock", "discard"):
            raise ValueError("a draw needs source 'stock' or 'discard'")
        if self.kind in ("discard", "knock") and not (isinstance(self.card, str) and is_card(self.card)):
            raise ValueError(f"{self.kind} needs a card code like '7h', not {self.card!r}")

    @staticmethod
    def from_wire(data: Mapping[str, Any]) -> Action:
        """Parse a wire action (``{"kind": "draw", "source": "stock"}``); ValueError when malformed."""
        if not isinstance(data, Mapping) or "kind" not in data:
            raise ValueError(f"not a wire action: {data!r}")
        return Action(str(data["kind"]), data.get("source"), data.get("card"))

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.source is not None:
            out["source"] = self.source
        if self.card is not None:
            out["card"] = self.card
        return out

    def __str__(self) -> str:
        """The terminal client's command for this action (``d s``, ``x 7h``...)."""
        match self.kind:
            case "take_upcard":
                return "t"
            case "pass":
                return "p"
            case "draw":
                return f"d {'s' if self.source == 'stock' else 'd'}"
            case "discard":
                return f"x {self.card}"
            case _:
                return f"k {self.card}"

    def __repr__(self) -> str:
        match self.kind:
            case "take_upcard":
                return "TAKE_UPCARD"
            case "pass":
                return "PASS"
            case "draw":
                return "DRAW_STOCK" if self.source == "stock" else "DRAW_DISCARD"
            case _:
                return f"{self.kind}({self.card!r})"


TAKE_UPCARD = Action("take_upcard")
PASS = Action("pass")
DRAW_STOCK = Action("draw", source="stock")
DRAW_DISCARD = Action("draw", source="discard")


def discard(card: str) -> Action:
    return Action("discard", card=card)


def knock(card: str) -> Action:
    """Discard ``card`` and knock (gin when no deadwood is left)."""
    return Action("knock", card=card)


# --- views ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    seat: int
    name: str
    kind: str  # "human" | "computer"
    connected: bool | None = None

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> PlayerInfo:
        return PlayerInfo(
            int(_need(d, "seat", "player")),
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
            int(_need(d, "seat", "event")),
            str(_need(d, "kind", "event")),
            d.get("card"),
            d.get("source"),
            bool(d.get("timed_out", False)),
        )


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
            kind=str(_need(d, "kind", "hand result")),
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
            phase=str(_need(d, "phase", "hand")),
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
            int(_need(d, "winner", "outcome")),
            str(d.get("reason", "")),
            tuple(SeatTotal.from_wire(t) for t in d.get("totals") or ()),
        )


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
                match_id=str(_need(d, "match_id", "view")),
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


# --- REST answers ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerIdentity:
    player_id: str
    name: str
    token: str = field(repr=False)
    """Shown once by the server: keep it to come back to your matches."""

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> PlayerIdentity:
        return PlayerIdentity(
            str(_need(d, "player_id", "player")), str(d.get("name", "")), str(_need(d, "token", "player"))
        )


@dataclass(frozen=True, slots=True)
class Invite:
    code: str
    url: str

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> Invite:
        return Invite(str(_need(d, "code", "invite")), str(d.get("url", "")))


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
            match_id=str(_need(d, "match_id", "match summary")),
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
            seat=int(_need(d, "seat", "match ticket")),
            ws_url=str(d.get("ws_url") or "/ws"),
            watch_token=d["watch_token"] if "watch_token" in d else None,  # noqa: SIM401
            invite=Invite.from_wire(invite) if invite else None,
        )
