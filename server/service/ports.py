"""The service's ports: what it needs from storage and from the fan-out to other processes.

The service owns these interfaces; ``server.storage`` implements :class:`Store`, and
:class:`InProcessBroadcaster` is the one-process :class:`Broadcaster` (a Postgres LISTEN/NOTIFY
or Redis one can replace it without touching the service). Nothing here does I/O itself.

The records below never hold a plain token (only sha256 hashes) and, apart from the seed and
the actions that a match needs to be rebuilt, never a card.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, cast

from server.rules.frozen import fast_constructor

from .account_ports import UNKNOWN_DEVICE, AccountStore
from .ladder_ports import LadderStore
from .rating_ports import RatingStore
from .seek_ports import SeekStore

if TYPE_CHECKING:
    from server.rules import MatchState, MatchView

COMPUTER_SEAT = 1
"""The computer always plays seat 1."""


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    player_id: str
    name: str
    token_hash: str
    """The hash of the token this player was found by (or created with): one of its sessions."""
    created_at: datetime


class SeatUpdate:
    """What one seat (``seat=None``: a watcher) is told after a change: the match row, that
    seat's own view and who is connected. The service hands the same update to every
    subscriber of that seat; the transport frames it, once (``text`` keeps the framed message).
    """

    __slots__ = ("bots", "claim_at", "connected", "meta", "now", "seat", "text", "timed_out", "view")

    def __init__(self, meta: MatchMeta, view: MatchView, connected: tuple[bool, bool]) -> None:
        self.meta = meta
        self.view = view
        self.seat = view.seat
        self.connected = connected
        self.text: bytes | None = None
        self.now: datetime | None = None
        """The server time the update was made at (its clock's remaining time is as of then)."""
        self.claim_at: datetime | None = None
        """When this seat may claim the match, its opponent gone (None: it is not gone)."""
        self.timed_out: frozenset[int] = frozenset()
        """The places in the hand's history of the moves the server played for a seat out of time."""
        self.bots: tuple[bool, bool] = (False, False)
        """Which seats' players are bot accounts."""


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A finished match, complete, for one of its players: the row, the player's seat and the
    match rebuilt from its actions (every deal and action, every result)."""

    meta: MatchMeta
    seat: int
    state: MatchState
    timeouts: frozenset[int] = frozenset()
    """The numbers (1 = the match's first action) of the moves the server played for a seat out
    of time."""


@dataclass(slots=True)
class MatchMeta:
    """A match's row: what rebuilds it (rules, seed, deal scheme, first starter) and its
    summary."""

    match_id: str
    rules: str
    opponent: str  # computer | human
    difficulty: str | None
    seed: str
    first_starter: int
    status: str  # waiting | active | finished
    version: int
    seat_ids: list[str | None]
    seat_names: list[str | None]
    watch_token_hash: str
    invite_hash: str | None
    hand_number: int
    scores: list[int]
    hands_won: list[int]
    winner: int | None
    resigned: int | None
    outcome: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime
    time_control: dict[str, Any] | None = None
    """The match's time control (:class:`~.timecontrol.TimeControl` as a dict); None: untimed."""
    clock: dict[str, Any] | None = None
    """A timed match's clock (:class:`~.timecontrol.ClockState` as a dict)."""
    deadline_at: datetime | None = None
    """When the turn being timed runs out (whichever process is up enforces it)."""
    rematch: dict[str, Any] | None = None
    """A finished match's rematch: ``{"offered_by": seat, "declined_by": seat, "match_id": id}``."""
    rated: bool = False
    """Counts for both players' ratings (human against human only)."""
    public: bool = False
    """Listed among the open challenges while it waits."""
    deal: str = "sha256"
    """The deal scheme (``server.rules.DEALS``): ``legacy`` for matches dealt before schemes."""

    def copy(self) -> MatchMeta:
        # Field by field rather than dataclasses.replace: this runs on every action.
        return MatchMeta(
            self.match_id,
            self.rules,
            self.opponent,
            self.difficulty,
            self.seed,
            self.first_starter,
            self.status,
            self.version,
            list(self.seat_ids),
            list(self.seat_names),
            self.watch_token_hash,
            self.invite_hash,
            self.hand_number,
            list(self.scores),
            list(self.hands_won),
            self.winner,
            self.resigned,
            self.outcome,
            self.created_at,
            self.updated_at,
            self.time_control,
            self.clock,  # (never changed in place: a change assigns a new dict)
            self.deadline_at,
            self.rematch,
            self.rated,
            self.public,
            self.deal,
        )


@dataclass(frozen=True, slots=True)
class StoredAction:
    seq: int
    seat: int
    action: dict[str, Any]
    client_id: str | None
    version: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class FinishedHand:
    number: int
    starter: int
    kind: str
    winner: int | None
    knocker: int | None
    points: int
    result: dict[str, Any]
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class Change:
    """One write to a match: its new row (``meta``, whose ``version`` is the new version), at
    most one new action and the hands it finished. Applied only if the stored version is still
    ``expected_version``."""

    expected_version: int
    meta: MatchMeta
    action: StoredAction | None = None
    hands: tuple[FinishedHand, ...] = field(default=())
    previous: MatchMeta | None = None
    """The row at ``expected_version`` as the writer holds it (None: not known). A store may
    write just the columns that differ from it: the compare-and-set fails anyway unless the
    stored row is still at that version, that is, this row."""


# Made for every action written (and every one read when a match loads): set slot by slot, not
# through a frozen dataclass's ``__init__`` (server/rules/frozen.py); the same objects.
new_stored_action = cast("type[StoredAction]", fast_constructor(StoredAction))
new_finished_hand = cast("type[FinishedHand]", fast_constructor(FinishedHand))
new_change = cast("type[Change]", fast_constructor(Change))


class Store(AccountStore, RatingStore, SeekStore, LadderStore, Protocol):
    def unreachable(self, error: BaseException) -> bool:
        """Whether ``error`` means the store cannot be reached now (down, locked, a connection
        dropped): an operational event to retry later, not a bug to log with its traceback."""
        ...

    async def create_player(self, player: PlayerRecord, device: str = UNKNOWN_DEVICE) -> None:
        """Create the player and its first session (``player.token_hash``, on ``device``)."""
        ...

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        """The player of the session with that token hash (``token_hash`` is that one)."""
        ...

    async def create_match(self, meta: MatchMeta) -> None: ...
    async def load_meta(self, match_id: str) -> MatchMeta | None: ...
    async def match_versions(self, match_ids: list[str]) -> dict[str, int]:
        """The stored version of each of ``match_ids`` that exists."""
        ...

    async def load_match(self, match_id: str) -> tuple[MatchMeta, list[StoredAction]] | None: ...
    async def load_match_after(self, match_id: str, seq: int) -> tuple[MatchMeta, list[StoredAction]] | None:
        """The match's row and its actions numbered after ``seq`` (all of them: ``seq`` 0, which
        is ``load_match``), none newer than the row."""
        ...

    async def commit(self, change: Change) -> bool:
        """Apply ``change`` atomically; False (and nothing written) if the version moved."""
        ...

    async def list_matches(
        self,
        player_id: str,
        *,
        status: str | None,
        rules: str | None,
        opponent: str | None,
        limit: int,
        offset: int,
        result: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> tuple[list[MatchMeta], int]:
        """The player's matches, newest first: ``result`` ``won``/``lost`` (by the player),
        created at or after ``since`` and before ``until``."""
        ...

    async def delete_waiting_match(self, match_id: str, version: int) -> bool:
        """Delete the match if it is still ``waiting`` at ``version`` (nobody joined: it has no
        actions or hands); False (and nothing deleted) otherwise."""
        ...

    async def count_matches(self, player_id: str, status: str) -> int:
        """How many matches with ``status`` the player has a seat in."""
        ...

    async def finished_hands(self, match_id: str) -> list[FinishedHand]: ...
    async def due_matches(self, now: datetime, limit: int) -> list[str]:
        """Active matches whose ``deadline_at`` is ``now`` or earlier, earliest first."""
        ...

    async def stale_waiting(self, before: datetime, limit: int) -> list[tuple[str, int]]:
        """``(match_id, version)`` of waiting matches created before ``before``, oldest first."""
        ...

    async def stats(self, player_id: str) -> dict[str, int]: ...


Listener = Callable[[str, int], Awaitable[None] | None]
PresenceListener = Callable[[str, str, tuple[bool, bool]], Awaitable[None] | None]
"""``(match_id, peer, seats)``: process ``peer`` has (or no longer has) sockets of these seats."""


RevokedListener = Callable[[list[str]], Awaitable[None] | None]
"""``(session_ids)``: another process revoked these sessions (their sockets must close)."""

PairedListener = Callable[[str, str], Awaitable[None] | None]
"""``(seek_id, match_id)``: another process paired this seek into that match."""

GapListener = Callable[[], Awaitable[None] | None]
"""Called after notifications may have been missed (the service then checks every match)."""


class Broadcaster(Protocol):
    """Tells other processes that a match changed (``match_id`` now at ``version``). The process
    that made the change has already told its own clients.

    It also carries presence: which seats of a match have a socket on the publishing process
    (``publish_presence``), so a player connected to another process is not shown as gone.
    Presence is re-sent periodically by the service and forgotten when it is not (a process
    that died stops counting).

    Optional capabilities, with the one-process defaults (a broadcaster that subclasses this
    port inherits them; one that does not must declare them itself):

    - ``channel`` and ``transactional``: a broadcaster whose notifications the store sends
      inside the commit of each change (Postgres ``NOTIFY``) says so with ``transactional =
      True`` and names its ``channel``; ``publish`` then sends nothing itself.
    - ``on_gap(listener)``: a broadcaster that can miss notifications (a dropped connection)
      calls ``listener`` once it may have; one that never misses any never calls it.
    - ``publish_revoked(session_ids)`` and ``listen_revoked(listener)``: revoked sessions, so
      every process forgets their tokens and closes their sockets (one process: nothing to tell).
    - ``publish_paired(seek_id, match_id)`` and ``listen_paired(listener)``: a seek another
      process paired, so the process holding its socket tells the seeker at once (one
      process: the pairing process tells its own seekers itself).
    """

    channel: str | None = None
    transactional: bool = False

    async def publish(self, match_id: str, version: int) -> None: ...
    def listen(self, listener: Listener) -> None: ...
    async def publish_presence(self, match_id: str, seats: tuple[bool, bool]) -> None: ...
    def listen_presence(self, listener: PresenceListener) -> None: ...
    def on_gap(self, listener: GapListener) -> None:
        """Call ``listener`` after notifications may have been missed (default: never)."""
        return None

    async def publish_revoked(self, session_ids: list[str]) -> None:
        """Tell other processes these sessions were revoked (default, one process: nobody
        else to tell)."""
        return None

    def listen_revoked(self, listener: RevokedListener) -> None:
        """Hear other processes' revocations (default, one process: there are none)."""
        return None

    async def publish_paired(self, seek_id: str, match_id: str) -> None:
        """Tell other processes this seek was paired (default, one process: nobody else)."""
        return None

    def listen_paired(self, listener: PairedListener) -> None:
        """Hear seeks other processes paired (default, one process: there are none)."""
        return None

    async def close(self) -> None: ...


class InProcessBroadcaster(Broadcaster):
    """The single-process broadcaster: every listener in this process hears every change, and
    none is ever missed."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._paired: list[PairedListener] = []

    async def publish(self, match_id: str, version: int) -> None:
        for listener in list(self._listeners):
            result = listener(match_id, version)
            if inspect.isawaitable(result):
                await result

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    async def publish_presence(self, match_id: str, seats: tuple[bool, bool]) -> None:
        """One process: its own sockets are all the presence there is."""

    def listen_presence(self, listener: PresenceListener) -> None:
        """One process: no other process ever reports presence."""

    async def publish_paired(self, seek_id: str, match_id: str) -> None:
        """Services sharing this broadcaster (tests of several processes) hear it; a lone one
        ignores its own (it told its seeker already)."""
        for listener in list(self._paired):
            result = listener(seek_id, match_id)
            if inspect.isawaitable(result):
                await result

    def listen_paired(self, listener: PairedListener) -> None:
        self._paired.append(listener)

    async def close(self) -> None:
        self._listeners.clear()
        self._paired.clear()
