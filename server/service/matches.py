"""Live matches: identities, creating and joining matches, applying actions with one writer per
match, the computer's turns, and telling every connected seat and watcher about each change.

Rules of this module:

- One writer per match: every change runs under the match's ``asyncio.Lock`` and is written with
  a compare-and-set on the match version (the database refuses a second writer, even from
  another process).
- Write durably before telling anyone: the store commits a change before any ack or state is
  delivered.
- A match is determined by its row (rules, seed, first starter) and its actions, so a match not
  in memory (after a restart, even ``kill -9``) is rebuilt by replaying them when first needed.
- Hidden information: a subscriber only ever receives the view of its own seat (watchers the
  public view); logs carry match ids, seats and action kinds, never a card or the seed.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from server.bots import DIFFICULTIES, make_bot
from server.rules import RULES, Action, MatchState, RulesError, SeatView, new_match

from .errors import (
    AlreadyJoined,
    BadRequest,
    Conflict,
    Forbidden,
    IllegalAction,
    MatchNotOver,
    MatchOver,
    NotYourTurn,
    ServiceError,
    StaleVersion,
    Unauthorized,
    Unavailable,
    UnknownMatch,
    from_rules_error,
)
from .metrics import Metrics
from .ports import (
    COMPUTER_SEAT,
    Broadcaster,
    Change,
    FinishedHand,
    InProcessBroadcaster,
    MatchMeta,
    MatchRecord,
    PlayerRecord,
    SeatUpdate,
    Store,
    StoredAction,
)
from .thinking import ThinkingPool

log = logging.getLogger("server.service")

OPPONENTS = ("computer", "human")
STATUSES = ("waiting", "active", "finished")
MAX_NAME = 40
T = TypeVar("T")


def utcnow() -> datetime:
    return datetime.now(UTC)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def clean_name(name: Any) -> str:
    """A display name: 1 to 40 printable characters, surrounding spaces removed."""
    if not isinstance(name, str):
        raise BadRequest("name must be a string")
    name = unicodedata.normalize("NFC", name).strip()
    if not name:
        raise BadRequest("name must not be empty")
    if len(name) > MAX_NAME:
        raise BadRequest(f"name must be at most {MAX_NAME} characters")
    if any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise BadRequest("name must not contain control characters")
    return name


class Subscriber(Protocol):
    """A connection listening to a match (the transport's WebSocket). ``deliver`` must not block:
    it frames the update at once and queues it for sending."""

    seat: int | None

    def deliver(self, update: SeatUpdate) -> None: ...


@dataclass(eq=False, slots=True)
class LiveMatch:
    """A match held in memory: its row, its rebuilt state and who is listening."""

    meta: MatchMeta
    state: MatchState
    seq: int
    acks: dict[tuple[int, str], int]
    bot: Any = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    last_used: float = field(default_factory=time.monotonic)
    stale: bool = False
    """A write failed and the state could not be rebuilt yet: rebuild before any use."""

    @property
    def match_id(self) -> str:
        return self.meta.match_id

    def connected(self) -> tuple[bool, bool]:
        """Which seats have a socket on this process."""
        seats = {s.seat for s in self.subscribers}
        return (0 in seats, 1 in seats)


@dataclass(frozen=True, slots=True)
class CreatedMatch:
    meta: MatchMeta
    seat: int
    watch_token: str
    invite: str | None


class MatchService:
    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.6,
        broadcaster: Broadcaster | None = None,
        metrics: Metrics | None = None,
        bot_factory: Callable[[str, str], Any] = make_bot,
        max_live: int = 2000,
        presence_ttl: float = 30.0,
        thinking: ThinkingPool | None = None,
    ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.broadcaster: Broadcaster = broadcaster or InProcessBroadcaster()
        self.metrics = metrics or Metrics()
        self.bot_factory = bot_factory
        self.max_live = max_live
        self._live: dict[str, LiveMatch] = {}
        self._loading: dict[str, asyncio.Future[LiveMatch]] = {}
        self._bot_tasks: set[asyncio.Task[None]] = set()
        self._writes: set[asyncio.Task[Any]] = set()
        self._closing = False
        self.presence_ttl = presence_ttl
        """Seconds another process's report of a seat's socket counts unless it is re-sent
        (each process re-sends its own every third of this)."""
        self._presence: dict[str, dict[str, tuple[bool, bool, float]]] = {}
        """Other processes' sockets: match id -> peer -> (seat 0, seat 1, expiry)."""
        self._presence_task: asyncio.Task[None] | None = None
        self._players: dict[str, PlayerRecord] = {}
        """Players known by token hash, most recently used last (at most ``PLAYERS_KNOWN``):
        a player never changes and no token is ever revoked, so every hello and REST call of
        the same player need not read the store again. Unknown tokens are not remembered."""
        self.thinking = thinking
        """Worker processes for the slow levels' moves (None: a thread of this process). Used
        with the standard bots only: a custom ``bot_factory`` thinks here."""
        self.broadcaster.listen(self._on_change)
        self.broadcaster.listen_presence(self._on_presence)
        self.metrics.live_matches.set_function(
            lambda: sum(1 for lv in self._live.values() if lv.meta.status != "finished")
        )
        self.metrics.cached_matches.set_function(lambda: len(self._live))

    # --- lifecycle ----------------------------------------------------------------------------

    @property
    def closing(self) -> bool:
        return self._closing

    async def close(self) -> None:
        """Stop: refuse new writes, cancel the computer's pending turns, and wait for writes in
        flight to commit."""
        self._closing = True
        if self._presence_task is not None:
            self._presence_task.cancel()
        for task in list(self._bot_tasks):
            task.cancel()
        await asyncio.gather(*self._bot_tasks, return_exceptions=True)
        await asyncio.gather(*self._writes, return_exceptions=True)

    # --- identity -----------------------------------------------------------------------------

    async def create_player(self, name: Any) -> tuple[PlayerRecord, str]:
        name = clean_name(name)
        token = new_token()
        player = PlayerRecord("p_" + secrets.token_hex(8), name, hash_token(token), utcnow())
        await self.store.create_player(player)
        self._remember_player(player)
        self.metrics.players_created.inc()
        log.info("player created", extra={"player_id": player.player_id})
        return player, token

    async def authenticate(self, token: str | None) -> PlayerRecord:
        if not token:
            raise Unauthorized("missing token: send Authorization: Bearer TOKEN")
        player = await self._player(hash_token(token))
        if player is None:
            raise Unauthorized("unknown token")
        return player

    async def _player(self, token_hash: str) -> PlayerRecord | None:
        player = self._players.pop(token_hash, None) or await self.store.player_by_token_hash(token_hash)
        if player is not None:
            self._remember_player(player)
        return player

    def _remember_player(self, player: PlayerRecord) -> None:
        self._players[player.token_hash] = player
        if len(self._players) > PLAYERS_KNOWN:
            del self._players[next(iter(self._players))]

    # --- matches over REST --------------------------------------------------------------------

    async def create_match(
        self,
        player: PlayerRecord,
        *,
        opponent: str = "computer",
        difficulty: str = "normal",
        rules: str = "house",
    ) -> CreatedMatch:
        if opponent not in OPPONENTS:
            raise BadRequest(f"opponent must be one of {list(OPPONENTS)}")
        if difficulty not in DIFFICULTIES:
            raise BadRequest(f"difficulty must be one of {list(DIFFICULTIES)}")
        if rules not in RULES:
            raise BadRequest(f"rules must be one of {sorted(RULES)}")
        self._check_open()
        seed = secrets.token_hex(16)
        state = new_match(rules, seed)
        watch_token = new_token()
        invite = secrets.token_urlsafe(12) if opponent == "human" else None
        now = utcnow()
        computer = opponent == "computer"
        meta = MatchMeta(
            match_id="m_" + secrets.token_urlsafe(12),
            rules=rules,
            opponent=opponent,
            difficulty=difficulty if computer else None,
            seed=seed,
            first_starter=state.first_starter,
            status="active" if computer else "waiting",
            version=0,
            seat_ids=[player.player_id, None],
            seat_names=[player.name, None],
            watch_token_hash=hash_token(watch_token),
            invite_hash=hash_token(invite) if invite else None,
            hand_number=state.hand_number,
            scores=[0, 0],
            hands_won=[0, 0],
            winner=None,
            resigned=None,
            outcome=None,
            created_at=now,
            updated_at=now,
        )
        await self.store.create_match(meta)
        live = self._remember(LiveMatch(meta, state, 0, {}, bot=self._make_bot(meta)))
        self.metrics.matches_created.labels(opponent, rules).inc()
        log.info(
            "match created",
            extra={
                "match_id": meta.match_id,
                "opponent": opponent,
                "difficulty": meta.difficulty,
                "rules": rules,
            },
        )
        self._schedule_bot(live)
        return CreatedMatch(meta.copy(), 0, watch_token, invite)

    async def join(self, player: PlayerRecord, match_id: str, invite: Any) -> tuple[MatchMeta, int]:
        if not isinstance(invite, str) or not invite:
            raise BadRequest("invite must be the invite code")
        live = await self._get(match_id)

        async def body(live: LiveMatch) -> tuple[MatchMeta, int]:
            meta = live.meta
            if meta.opponent != "human":
                raise Conflict("this match is against the computer: there is no seat to join")
            if player.player_id in meta.seat_ids:
                raise AlreadyJoined("you already have a seat in this match")
            if meta.seat_ids[1] is not None:
                raise AlreadyJoined("both seats of this match are taken")
            if meta.invite_hash is None or not hmac.compare_digest(meta.invite_hash, hash_token(invite)):
                raise Forbidden("the invite code does not match")
            new = meta.copy()
            new.seat_ids[1] = player.player_id
            new.seat_names[1] = player.name
            new.status = "active"
            new.invite_hash = None
            new.version += 1
            new.updated_at = utcnow()
            await self._write(live, new)
            log.info("match joined", extra={"match_id": match_id, "player_id": player.player_id, "seat": 1})
            return new.copy(), 1

        return await self._exclusive(live, body)

    async def resign(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        live = await self._get(match_id)

        async def body(live: LiveMatch) -> MatchMeta:
            if player.player_id not in live.meta.seat_ids or live.meta.status != "active":
                await self._catch_up(live)  # joined or finished through another process?
            seat = self._seat_of(live.meta, player)
            if live.meta.status == "finished":
                raise MatchOver("the match is already over")
            if live.meta.status == "waiting":
                raise Conflict("nobody has joined this match yet: there is nothing to resign")
            try:
                live.state.resign(seat)
            except RulesError as e:
                raise from_rules_error(e) from e
            await self._write(live, self._meta_from_state(live))
            log.info("match resigned", extra={"match_id": match_id, "seat": seat})
            return live.meta.copy()

        return await self._exclusive(live, body)

    async def details(self, player: PlayerRecord, match_id: str) -> tuple[MatchMeta, list[FinishedHand]]:
        meta = await self._meta(match_id)
        self._seat_of(meta, player)
        hands = await self.store.finished_hands(match_id)
        if meta.status != "finished":
            # Read after the row, so a later commit may have finished the hand in play: show
            # what the row knows, the hands before it.
            hands = [h for h in hands if h.number < meta.hand_number]
        return meta, hands

    async def record(self, player: PlayerRecord, match_id: str) -> MatchRecord:
        """The complete replay (every deal and action) of a finished match."""
        meta = await self._meta(match_id)
        seat = self._seat_of(meta, player)
        if meta.status != "finished":
            raise MatchNotOver("the record is available once the match is over")
        loaded = await self.store.load_match(match_id)
        if loaded is None:  # deleted meanwhile
            raise UnknownMatch(f"no match {match_id!r}")
        meta, actions = loaded
        return MatchRecord(meta, seat, self._replay(meta, actions))

    async def list_matches(
        self,
        player: PlayerRecord,
        *,
        status: str | None = None,
        rules: str | None = None,
        opponent: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> tuple[list[MatchMeta], int]:
        if status is not None and status not in STATUSES:
            raise BadRequest(f"status must be one of {list(STATUSES)}")
        if rules is not None and rules not in RULES:
            raise BadRequest(f"rules must be one of {sorted(RULES)}")
        if opponent is not None and opponent not in OPPONENTS:
            raise BadRequest(f"opponent must be one of {list(OPPONENTS)}")
        if not 1 <= limit <= 100:
            raise BadRequest("limit must be between 1 and 100")
        if offset < 0:
            raise BadRequest("offset must not be negative")
        return await self.store.list_matches(
            player.player_id, status=status, rules=rules, opponent=opponent, limit=limit, offset=offset
        )

    async def stats(self, player: PlayerRecord) -> dict[str, int]:
        return await self.store.stats(player.player_id)

    # --- live play (WebSocket) ----------------------------------------------------------------

    async def open(self, match_id: str, token: Any) -> tuple[LiveMatch, int | None]:
        """Who ``token`` is in ``match_id``: a seat, or None for the match's watch token.

        A copy this process already held may be behind the store (another process wrote and
        its notice has not arrived yet): it is caught up here, so that what the caller sends
        next is current. A copy loaded from the store by this call is not read again."""
        held = match_id in self._live
        live = await self._get(match_id)
        if not isinstance(token, str) or not token:
            raise Unauthorized("hello needs a token: a seat's player token or the match's watch token")
        token_hash = hash_token(token)
        if held:
            async with live.lock:
                await self._catch_up(live)  # also: maybe the player joined through another process
        if hmac.compare_digest(live.meta.watch_token_hash, token_hash):
            return live, None
        player = await self._player(token_hash)
        if player is None or player.player_id not in live.meta.seat_ids:
            raise Unauthorized("this token has no seat in this match")
        # A computer turn interrupted by a crash resumes as soon as someone looks.
        self._schedule_bot(live)
        return live, live.meta.seat_ids.index(player.player_id)

    # Readers take the match's lock too: a writer applies an action to ``live.state`` before
    # its commit, and nobody may see that state until the commit has landed.

    async def subscribe(self, live: LiveMatch, subscriber: Subscriber) -> None:
        """Start sending ``subscriber`` its view of every change, beginning with the current one."""
        async with live.lock:
            await self._fresh(live)  # (open() caught up a copy that may have fallen behind)
            before, local = self.connected(live), live.connected()
            live.subscribers.add(subscriber)
            live.last_used = time.monotonic()
            if live.match_id not in self._live:
                self._remember(live)
            subscriber.deliver(self.update(live, subscriber.seat))
            if live.connected() != local:
                await self.broadcaster.publish_presence(live.match_id, live.connected())
            if self.connected(live) != before:
                self._fan_out(live, skip=subscriber)
        self._start_presence()

    async def unsubscribe(self, live: LiveMatch, subscriber: Subscriber) -> None:
        async with live.lock:
            before, local = self.connected(live), live.connected()
            live.subscribers.discard(subscriber)
            live.last_used = time.monotonic()
            if live.connected() != local:
                await self.broadcaster.publish_presence(live.match_id, live.connected())
            if self.connected(live) != before and not live.stale:
                self._fan_out(live)
            if not live.subscribers and live.meta.status == "finished" and live.bot_task is None:
                # Nobody is watching a finished match: its record is in the store.
                self._live.pop(live.match_id, None)
        self._evict()

    async def current_state(self, live: LiveMatch, seat: int | None) -> SeatUpdate:
        """What ``seat`` sees as of the last commit."""
        async with live.lock:
            await self._fresh(live)
            return self.update(live, seat)

    def update(self, live: LiveMatch, seat: int | None) -> SeatUpdate:
        """What ``seat`` sees now; only call it holding the match's lock."""
        return SeatUpdate(live.meta, live.state.view(seat), self.connected(live))

    async def act(
        self,
        live: LiveMatch,
        seat: int,
        client_id: str | None,
        version: int,
        action: Any,
        on_commit: Callable[[int], None] | None = None,
    ) -> tuple[int, bool]:
        """Apply ``action`` (a wire dict) for ``seat``; returns (version, whether it was a
        repeated id answered from before). ``on_commit(version)`` runs after the commit and
        before anyone is told of the new state (the transport sends its ack there)."""
        try:
            parsed = Action.from_wire(action)
        except RulesError as e:
            self.metrics.action_errors.labels("bad_message").inc()
            raise from_rules_error(e) from e

        async def body(live: LiveMatch) -> tuple[int, bool]:
            if client_id is not None and (seat, client_id) in live.acks:
                return live.acks[(seat, client_id)], True
            meta = live.meta
            if meta.status != "active" or version != meta.version or live.state.to_act != seat:
                # About to refuse: first make sure it is not our copy that is behind (another
                # process may have written). Costs a read only on this path.
                await self._catch_up(live)
                if client_id is not None and (seat, client_id) in live.acks:
                    return live.acks[(seat, client_id)], True
                meta = live.meta
            if meta.status == "finished":
                raise IllegalAction("the match is over")
            if meta.status == "waiting":
                raise IllegalAction("waiting for an opponent to join")
            if version != meta.version:
                raise StaleVersion(f"the match is at version {meta.version}, not {version}")
            if live.state.to_act != seat:
                raise NotYourTurn(f"it is seat {live.state.to_act}'s turn")
            await self._apply(live, seat, parsed, client_id, on_commit)
            return live.meta.version, False

        try:
            return await self._exclusive(live, body)
        except ServiceError as e:
            self.metrics.action_errors.labels(e.code).inc()
            raise

    # --- internals: the one writer ------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closing:
            raise Unavailable("the server is shutting down; try again in a moment")

    async def _exclusive(self, live: LiveMatch, body: Callable[[LiveMatch], Awaitable[T]]) -> T:
        """Run ``body`` under the match's lock in a task of its own, shielded: if the caller is
        cancelled (a socket closing, shutdown) the write still finishes and commits."""
        self._check_open()

        async def run() -> T:
            async with live.lock:
                live.last_used = time.monotonic()
                await self._fresh(live)
                try:
                    return await body(live)
                except Moved:
                    # Another process wrote first and ``live`` now holds its change: decide
                    # again on the fresh state (a repeated id is now recognised, a resignation
                    # goes through, a stale client version is refused).
                    return await body(live)

        task = asyncio.ensure_future(run())
        self._writes.add(task)
        task.add_done_callback(self._write_done)
        return await asyncio.shield(task)

    def _write_done(self, task: asyncio.Task[Any]) -> None:
        self._writes.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved here so an abandoned caller does not warn

    async def _apply(
        self,
        live: LiveMatch,
        seat: int,
        action: Action,
        client_id: str | None,
        on_commit: Callable[[int], None] | None,
    ) -> None:
        state = live.state
        finished_before = len(state.results)
        try:
            state.apply(action, seat)
        except RulesError as e:
            raise from_rules_error(e) from e  # the engine left the state unchanged
        now = utcnow()
        meta = self._meta_from_state(live, now)
        hands = tuple(
            FinishedHand(
                number=state.log[i].number,
                starter=state.log[i].starter,
                kind=r.kind.value,
                winner=r.winner,
                knocker=r.knocker,
                points=r.points,
                result=r.to_wire(),
                finished_at=now,
            )
            for i, r in enumerate(state.results)
            if i >= finished_before
        )
        stored = StoredAction(live.seq + 1, seat, action.to_wire(), client_id, meta.version, now)
        by = "computer" if meta.opponent == "computer" and seat == COMPUTER_SEAT else "human"
        await self._write(live, meta, stored, hands, on_commit)
        self.metrics.actions.labels(action.kind, by).inc()
        log.info(
            "action",
            extra={"match_id": live.match_id, "seat": seat, "kind": action.kind, "version": meta.version},
        )
        for h in hands:
            log.info(
                "hand over",
                extra={
                    "match_id": live.match_id,
                    "hand_number": h.number,
                    "result": h.kind,
                    "winner": h.winner,
                },
            )

    def _meta_from_state(self, live: LiveMatch, now: datetime | None = None) -> MatchMeta:
        """The match row after a change to ``live.state`` (one version later)."""
        state = live.state
        new = live.meta.copy()
        new.version += 1
        new.updated_at = now or utcnow()
        new.hand_number = state.hand_number
        new.scores = list(state.scores)
        new.hands_won = list(state.hands_won)
        new.resigned = state.resigned
        if state.outcome is not None:
            new.status = "finished"
            new.winner = state.outcome.winner
            new.outcome = state.outcome.to_wire()
        return new

    async def _write(
        self,
        live: LiveMatch,
        meta: MatchMeta,
        action: StoredAction | None = None,
        hands: tuple[FinishedHand, ...] = (),
        on_commit: Callable[[int], None] | None = None,
    ) -> None:
        """Commit the change (under the lock), then tell the writer (``on_commit``), then
        everyone. On any failure the live match is rebuilt from the store, since
        ``live.state`` may already hold the change."""
        started = time.perf_counter()
        try:
            ok = await self.store.commit(Change(live.meta.version, meta, action, hands))
        except BaseException:
            # The state holds a change that may or may not have landed: rebuild it from the
            # store now, or before anyone next uses it if the store is unreachable.
            live.stale = True
            try:
                await self._reload(live)
            except Exception:
                log.exception("rebuilding a match failed", extra={"match_id": live.match_id})
            raise
        self.metrics.commit_seconds.observe(time.perf_counter() - started)
        if not ok:
            await self._reload(live)
            raise Moved("the match changed meanwhile; here is its current state")
        finished = meta.status == "finished" and live.meta.status != "finished"
        live.meta = meta
        if action is not None:
            live.seq = action.seq
            if action.client_id is not None:
                live.acks[(action.seat, action.client_id)] = meta.version
        if finished:
            reason = (meta.outcome or {}).get("reason", "target")
            self.metrics.matches_finished.labels(reason).inc()
            log.info("match over", extra={"match_id": meta.match_id, "winner": meta.winner, "reason": reason})
        if on_commit is not None:
            on_commit(meta.version)
        # Our own clients hear it now; other processes through the broadcaster.
        self._fan_out(live)
        try:
            await self.broadcaster.publish(meta.match_id, meta.version)
        except Exception:
            log.exception("broadcast failed", extra={"match_id": meta.match_id})
        self._schedule_bot(live)

    def _fan_out(self, live: LiveMatch, skip: Subscriber | None = None) -> None:
        cache: dict[int | None, SeatUpdate] = {}
        for sub in list(live.subscribers):
            if sub is skip:
                continue
            if sub.seat not in cache:
                cache[sub.seat] = self.update(live, sub.seat)
            sub.deliver(cache[sub.seat])

    # --- presence across processes ------------------------------------------------------------

    def connected(self, live: LiveMatch) -> tuple[bool, bool]:
        """Which seats have a socket on this process or, as last reported and not yet expired,
        on another."""
        return _seats(live.connected(), self._presence.get(live.match_id, {}), time.monotonic())

    async def _on_presence(self, match_id: str, peer: str, seats: tuple[bool, bool]) -> None:
        """Process ``peer`` reports its sockets on ``match_id``: tell our clients if that
        changes who is connected."""
        self._start_presence()  # to forget this report if it is not renewed
        live = self._live.get(match_id)
        before = self.connected(live) if live is not None else None
        entries = self._presence.setdefault(match_id, {})
        if any(seats):
            entries[peer] = (*seats, time.monotonic() + self.presence_ttl)
        else:
            entries.pop(peer, None)
            if not entries:
                del self._presence[match_id]
        await self._tell_if_changed(live, before)

    async def _tell_if_changed(self, live: LiveMatch | None, before: tuple[bool, bool] | None) -> None:
        """Send our clients of ``live`` a new state if its seats' presence is not ``before``."""
        if live is not None and self.connected(live) != before:
            async with live.lock:
                if not live.stale:
                    self._fan_out(live)

    def _start_presence(self) -> None:
        if self._presence_task is None and not self._closing:
            self._presence_task = asyncio.get_running_loop().create_task(self._presence_loop())

    async def _presence_loop(self) -> None:
        """Every third of ``presence_ttl``: report our sockets again (a report is forgotten
        after ``presence_ttl``, so a process that died stops counting), and forget expired
        reports, telling our clients of seats that are gone."""
        while True:
            await asyncio.sleep(self.presence_ttl / 3)
            try:
                for live in list(self._live.values()):
                    if any(live.connected()):
                        await self.broadcaster.publish_presence(live.match_id, live.connected())
                now = time.monotonic()
                for match_id, entries in list(self._presence.items()):
                    expired = [peer for peer, (_, _, expires) in entries.items() if expires <= now]
                    if not expired:
                        continue
                    live = self._live.get(match_id)
                    # What the expired reports made connected, to compare with after.
                    before = _seats(live.connected(), entries, -math.inf) if live is not None else None
                    for peer in expired:
                        del entries[peer]
                    if not entries:
                        del self._presence[match_id]
                    await self._tell_if_changed(live, before)
            except Exception:
                log.exception("presence refresh failed")

    async def resync(self) -> None:
        """Check every match in memory against the store and catch up on any that another
        process changed (for a broadcaster that may have missed notifications)."""
        versions = await self.store.match_versions(list(self._live))
        for match_id, version in versions.items():
            await self._on_change(match_id, version)

    async def _on_change(self, match_id: str, version: int) -> None:
        """Another process changed ``match_id``: refresh our copy and tell our clients."""
        live = self._live.get(match_id)
        if live is None or version <= live.meta.version:
            return
        async with live.lock:
            # Our own notice can arrive while our write still holds the lock: nothing to do then.
            if version > live.meta.version:
                self.metrics.notifications.inc()
                await self._reload(live)
                self._fan_out(live)

    # --- internals: loading -------------------------------------------------------------------

    async def _meta(self, match_id: str) -> MatchMeta:
        """The match's row from the store: the truth, even if another process just changed it
        and our copy in memory has not heard yet."""
        meta = await self.store.load_meta(match_id) if _plausible_id(match_id) else None
        if meta is None:
            raise UnknownMatch(f"no match {match_id!r}")
        return meta

    async def _get(self, match_id: str) -> LiveMatch:
        """The live match, loaded and rebuilt from the store if it is not in memory."""
        live = self._live.get(match_id)
        if live is not None:
            live.last_used = time.monotonic()
            return live
        pending = self._loading.get(match_id)
        if pending is not None:
            return await asyncio.shield(pending)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[LiveMatch] = loop.create_future()
        self._loading[match_id] = future
        try:
            loaded = await self.store.load_match(match_id) if _plausible_id(match_id) else None
            if loaded is None:
                raise UnknownMatch(f"no match {match_id!r}")
            meta, actions = loaded
            live = LiveMatch(meta, self._replay(meta, actions), len(actions), _acks(actions))
            live.bot = self._make_bot(meta)
            self._remember(live)
            future.set_result(live)
            log.info("match loaded", extra={"match_id": match_id, "version": meta.version})
        except BaseException as e:
            future.set_exception(e)
            future.exception()
            raise
        finally:
            del self._loading[match_id]
        self._schedule_bot(live)
        return live

    async def _reload(self, live: LiveMatch) -> None:
        loaded = await self.store.load_match(live.match_id)
        if loaded is None:  # deleted under us: forget it
            self._live.pop(live.match_id, None)
            return
        meta, actions = loaded
        live.meta = meta
        live.state = self._replay(meta, actions)
        live.seq = len(actions)
        live.acks = _acks(actions)
        live.stale = False

    async def _catch_up(self, live: LiveMatch) -> None:
        """Under the lock: reload ``live`` if the store has a later version (written by another
        process whose notice has not reached us), and tell our clients."""
        version = (await self.store.match_versions([live.match_id])).get(live.match_id)
        if version is not None and version > live.meta.version:
            await self._reload(live)
            self._fan_out(live)

    async def _fresh(self, live: LiveMatch) -> None:
        """Under the lock: make sure ``live`` reflects the store (after a failed write)."""
        if live.stale:
            await self._reload(live)

    def _replay(self, meta: MatchMeta, actions: list[StoredAction]) -> MatchState:
        try:
            return MatchState.replay(
                {
                    "rules": meta.rules,
                    "seed": meta.seed,
                    "first_starter": meta.first_starter,
                    "actions": [[a.seat, a.action] for a in actions],
                    "resigned": meta.resigned,
                }
            )
        except RulesError:
            log.exception("stored match does not replay", extra={"match_id": meta.match_id})
            raise

    def _remember(self, live: LiveMatch) -> LiveMatch:
        self._live[live.match_id] = live
        self._evict()
        return live

    def _evict(self) -> None:
        """Keep at most ``max_live`` matches in memory, dropping the least recently used idle
        ones (they reload from the store when needed)."""
        if len(self._live) <= self.max_live:
            return
        idle = sorted(
            (
                lv
                for lv in self._live.values()
                if not lv.subscribers and not lv.lock.locked() and lv.bot_task is None
            ),
            key=lambda lv: lv.last_used,
        )
        for lv in idle[: len(self._live) - self.max_live]:
            del self._live[lv.match_id]

    def _seat_of(self, meta: MatchMeta, player: PlayerRecord) -> int:
        if player.player_id not in meta.seat_ids:
            raise Forbidden("this is not your match")
        return meta.seat_ids.index(player.player_id)

    # --- the computer -------------------------------------------------------------------------

    def _make_bot(self, meta: MatchMeta) -> Any:
        if meta.opponent != "computer":
            return None
        return self.bot_factory(meta.difficulty or "normal", _bot_seed(meta))

    def _bot_to_move(self, live: LiveMatch) -> bool:
        return (
            live.bot is not None
            and live.meta.status == "active"
            and live.state.to_act == COMPUTER_SEAT
            and not self._closing
        )

    def _schedule_bot(self, live: LiveMatch) -> None:
        if live.bot_task is not None or not self._bot_to_move(live):
            return
        task = asyncio.get_running_loop().create_task(self._bot_loop(live))
        live.bot_task = task
        self._bot_tasks.add(task)
        task.add_done_callback(self._bot_tasks.discard)

    async def _bot_loop(self, live: LiveMatch) -> None:
        """The computer's moves, one pause before each, until it is the human's turn. Another
        process writing the match meanwhile (its copy here is then rebuilt) is no failure: the
        loop looks again at whose turn it is, a few times in a row at most."""
        moved = 0
        try:
            while True:
                await asyncio.sleep(self.bot_delay)
                try:
                    if not await self._exclusive(live, self._bot_move):
                        return
                    moved = 0
                except Moved:
                    moved += 1
                    if moved >= BOT_RETRIES:
                        raise
        except asyncio.CancelledError:
            raise
        except Unavailable:
            return
        except Exception:
            log.exception("computer move failed", extra={"match_id": live.match_id})
        finally:
            if live.bot_task is asyncio.current_task():
                live.bot_task = None

    async def _bot_move(self, live: LiveMatch) -> bool:
        if not self._bot_to_move(live):
            live.bot_task = None  # under the lock, so the next human move schedules a new loop
            return False
        view = live.state.hand.view(COMPUTER_SEAT)
        started = time.perf_counter()
        try:
            if not DIFFICULTIES[live.meta.difficulty or "normal"].slow:
                # Easy and Normal choose in well under a millisecond: a thread hop would cost
                # more than the thinking (and, under load, tens of ms of GIL hand-offs).
                action = live.bot.choose(view)
            else:
                action = await self._think(live, view)
        except Exception:
            log.exception("computer failed to choose; playing a fallback", extra={"match_id": live.match_id})
            action = None
        self.metrics.bot_seconds.observe(time.perf_counter() - started)
        try:
            # The plain action, whatever class the bot used.
            plain = Action.from_wire(action.to_wire()) if isinstance(action, Action) else None
        except Exception:
            plain = None
        if plain is not None and plain in view.legal_actions:
            action = plain
        else:
            # A broken bot must not stall the match: play the first legal action instead.
            if action is not None:
                log.error("computer chose an illegal action", extra={"match_id": live.match_id})
            action = view.legal_actions[0]
        await self._apply(live, COMPUTER_SEAT, action, None, None)
        return True

    async def _think(self, live: LiveMatch, view: SeatView) -> Any:
        """A slow level's choice. Hard simulates for tens of milliseconds: in a worker process,
        so the event loop (and its GIL) keeps serving every other match meanwhile. Without
        workers, or when they fail (a worker died, or could not start), this process's own bot
        makes the same choice in a thread, so the event loop at least runs between its slices."""
        if self.thinking is not None and self.bot_factory is make_bot:
            try:
                return await self.thinking.choose(live.meta.difficulty, _bot_seed(live.meta), view)
            except Exception:
                log.exception("thinking worker failed; thinking here", extra={"match_id": live.match_id})
        return await asyncio.to_thread(live.bot.choose, view)


PLAYERS_KNOWN = 10_000
"""Players a process remembers by token (about 200 bytes each)."""

BOT_RETRIES = 5
"""Version races lost in a row before the computer's turn is given up (and logged): the next
human action or hello schedules it again."""


class Moved(StaleVersion):
    """A write found the stored version moved on (another process wrote first); the live
    match has been rebuilt from the store."""


def _seats(
    local: tuple[bool, bool], reports: dict[str, tuple[bool, bool, float]], now: float
) -> tuple[bool, bool]:
    """The seats connected: on this process (``local``) or in a report expiring after ``now``."""
    s0, s1 = local
    for r0, r1, expires in reports.values():
        if expires > now:
            s0, s1 = s0 or r0, s1 or r1
    return s0, s1


def _bot_seed(meta: MatchMeta) -> str:
    """The computer's seed: bots are deterministic in it, so derive it from the match's (secret)
    seed; the same in every process and after every restart."""
    return f"{meta.seed}:bot"


def _acks(actions: list[StoredAction]) -> dict[tuple[int, str], int]:
    return {(a.seat, a.client_id): a.version for a in actions if a.client_id is not None}


def _plausible_id(match_id: str) -> bool:
    return isinstance(match_id, str) and 0 < len(match_id) <= 32
