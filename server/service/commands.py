"""The commands that change a match: create it, join it, resign it, and play an action. Each
change runs through the writer (:mod:`.writer`): under the match's lock, committed before
anyone hears of it. Before refusing, a command makes sure it is not this process's copy that is
behind (another process may have written).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from server.bots import DIFFICULTIES
from server.rules import RULES, Action, RulesError, new_match

from .clock import Clock
from .computer import Computer
from .errors import (
    AlreadyJoined,
    BadRequest,
    ChallengeTaken,
    Conflict,
    Forbidden,
    IdReused,
    IllegalAction,
    MatchFull,
    MatchOver,
    NotYourTurn,
    ServiceError,
    StaleVersion,
    TooManyMatches,
    from_rules_error,
)
from .ids import Ids
from .live import LiveMatch, MatchCache
from .metrics import Metrics
from .players import hash_token
from .ports import MatchMeta, PlayerRecord, Store
from .queries import OPPONENTS, seat_of
from .timecontrol import TimeControl
from .writer import Writer

log = logging.getLogger("server.service")


@dataclass(frozen=True, slots=True)
class CreatedMatch:
    meta: MatchMeta
    seat: int
    watch_token: str
    invite: str | None


@dataclass(frozen=True, slots=True)
class MatchCaps:
    """How many matches one player may have waiting for an opponent, and in play."""

    waiting: int = 5
    active: int = 20


class Commands:
    def __init__(
        self,
        store: Store,
        cache: MatchCache,
        writer: Writer,
        computer: Computer,
        metrics: Metrics,
        clock: Clock,
        ids: Ids,
    ) -> None:
        self.store = store
        self.cache = cache
        self.writer = writer
        self.computer = computer
        self.metrics = metrics
        self.clock = clock
        self.ids = ids
        self._player_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def _player_lock(self, player_id: str) -> asyncio.Lock:
        """One lock per player (in this process): counting a player's matches and adding one
        happen under it, so a burst of requests cannot all pass the count at once."""
        lock = self._player_locks.get(player_id)
        if lock is None:
            lock = asyncio.Lock()
            self._player_locks[player_id] = lock
        return lock

    async def _check_cap(self, player: PlayerRecord, status: str, cap: int) -> None:
        if await self.store.count_matches(player.player_id, status) >= cap:
            what = "waiting for an opponent" if status == "waiting" else "in play"
            hint = "cancel one or wait for someone to join" if status == "waiting" else "finish or resign one"
            raise TooManyMatches(f"you already have {cap} matches {what}: {hint} first")

    async def create_match(
        self,
        player: PlayerRecord,
        *,
        opponent: str = "computer",
        difficulty: str = "normal",
        rules: str = "house",
        caps: MatchCaps | None = None,
        time_control: TimeControl | None = None,
        rated: bool = False,
        public: bool = False,
    ) -> CreatedMatch:
        tc = time_control or TimeControl.none()
        if opponent not in OPPONENTS:
            raise BadRequest(f"opponent must be one of {list(OPPONENTS)}")
        if difficulty not in DIFFICULTIES:
            raise BadRequest(f"difficulty must be one of {list(DIFFICULTIES)}")
        if rules not in RULES:
            raise BadRequest(f"rules must be one of {sorted(RULES)}")
        if tc.timed and opponent == "computer":
            raise BadRequest("a match against the computer has no clock: time_control must be 'none'")
        if opponent == "computer" and (rated or public):
            raise BadRequest(
                "a match against the computer is never rated or public: rated and public need opponent human"
            )
        self.writer.check_open()
        caps = caps or MatchCaps()
        async with self._player_lock(player.player_id):
            if opponent == "computer":
                await self._check_cap(player, "active", caps.active)
            else:
                await self._check_cap(player, "waiting", caps.waiting)
            return await self._create(player, opponent, difficulty, rules, tc, rated, public)

    async def _create(
        self,
        player: PlayerRecord,
        opponent: str,
        difficulty: str,
        rules: str,
        tc: TimeControl,
        rated: bool,
        public: bool,
    ) -> CreatedMatch:
        seed = self.ids.seed()
        state = new_match(rules, seed)
        watch_token = self.ids.token()
        invite = self.ids.invite() if opponent == "human" else None
        now = self.clock.now()
        computer = opponent == "computer"
        meta = MatchMeta(
            match_id=self.ids.match_id(),
            rules=rules,
            opponent=opponent,
            difficulty=difficulty if computer else None,
            seed=seed,
            first_starter=state.first_starter,
            deal=state.deal,
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
            time_control=tc.to_dict() if tc.timed else None,
            rated=rated,
            public=public,
        )
        await self.store.create_match(meta)
        live = self.cache.new(meta, state)
        self.metrics.matches_created.labels(opponent, rules).inc()
        log.info(
            "match created",
            extra={
                "match_id": meta.match_id,
                "opponent": opponent,
                "difficulty": meta.difficulty,
                "rules": rules,
                "rated": rated,
                "public": public,
            },
        )
        self.computer.schedule(live)
        return CreatedMatch(meta.copy(), 0, watch_token, invite)

    async def join(
        self, player: PlayerRecord, match_id: str, invite: Any, caps: MatchCaps | None = None
    ) -> tuple[MatchMeta, int]:
        if not isinstance(invite, str) or not invite:
            raise BadRequest("invite must be the invite code")
        caps = caps or MatchCaps()
        async with self._player_lock(player.player_id):
            return await self._join(player, match_id, invite, caps)

    async def accept(
        self, player: PlayerRecord, match_id: str, caps: MatchCaps | None = None
    ) -> tuple[MatchMeta, int]:
        """Take the second seat of an open challenge (a public waiting match), as an invite
        would. Two accepting at once: one gets the seat, the other ``challenge_taken``."""
        caps = caps or MatchCaps()
        async with self._player_lock(player.player_id):
            return await self._join(player, match_id, None, caps)

    async def _join(
        self, player: PlayerRecord, match_id: str, invite: str | None, caps: MatchCaps
    ) -> tuple[MatchMeta, int]:
        live = await self.cache.get(match_id)
        # Who of the two is a bot account, so the first view after the join says it.
        bots = await self.store.bots([p for p in (live.meta.seat_ids[0], player.player_id) if p is not None])

        async def body(live: LiveMatch) -> tuple[MatchMeta, int]:
            meta = live.meta
            if meta.opponent != "human":
                raise Conflict("this match is against the computer: there is no seat to join")
            if player.player_id in meta.seat_ids:
                raise AlreadyJoined("you already have a seat in this match")
            if invite is None:
                if not meta.public:
                    raise Forbidden("this match is not an open challenge: it needs its invite code")
                if meta.seat_ids[1] is not None:
                    raise ChallengeTaken("someone else accepted this challenge first")
            if meta.seat_ids[1] is not None:
                raise MatchFull("both seats of this match are taken")
            if invite is not None and (
                meta.invite_hash is None or not hmac.compare_digest(meta.invite_hash, hash_token(invite))
            ):
                raise Forbidden("the invite code does not match")
            await self._check_cap(player, "active", caps.active)
            new = meta.copy()
            new.seat_ids[1] = player.player_id
            new.seat_names[1] = player.name
            new.status = "active"
            new.invite_hash = None
            new.version += 1
            new.updated_at = self.clock.now()
            live.bots, live.bots_of = (new.seat_ids[0] in bots, player.player_id in bots), tuple(new.seat_ids)
            await self.writer.write(live, new)
            log.info(
                "match joined",
                extra={
                    "match_id": match_id,
                    "player_id": player.player_id,
                    "seat": 1,
                    "public": invite is None,
                },
            )
            return new.copy(), 1

        return await self.writer.exclusive(live, body)

    async def resign(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        live = await self.cache.get(match_id)

        async def body(live: LiveMatch) -> MatchMeta:
            if player.player_id not in live.meta.seat_ids or live.meta.status != "active":
                await self.writer.catch_up(live)  # joined or finished through another process?
            seat = seat_of(live.meta, player)
            if live.meta.status == "finished":
                raise MatchOver("the match is already over")
            if live.meta.status == "waiting":
                raise Conflict("nobody has joined this match yet: there is nothing to resign")
            try:
                live.state.resign(seat)
            except RulesError as e:
                raise from_rules_error(e) from e
            await self.writer.write(live, self.writer.meta_from_state(live))
            log.info("match resigned", extra={"match_id": match_id, "seat": seat})
            return live.meta.copy()

        return await self.writer.exclusive(live, body)

    async def cancel(self, player: PlayerRecord, match_id: str) -> MatchMeta:
        """The creator withdraws a match nobody has joined: it is deleted (it has no actions and
        no hands, so it counts in nobody's statistics) and its invite stops working. Returns the
        match as it was."""
        live = await self.cache.get(match_id)

        async def body(live: LiveMatch) -> MatchMeta:
            await self.writer.catch_up(live)  # joined through another process?
            seat = seat_of(live.meta, player)
            if seat != 0:
                raise Forbidden("only the player who created the match may cancel it")
            if live.meta.status == "finished":
                raise MatchOver("the match is already over")
            if live.meta.opponent == "computer":
                raise Conflict("a match against the computer cannot be cancelled: resign instead")
            if live.meta.status != "waiting":
                raise Conflict("someone has joined this match: resign instead")
            if not await self.store.delete_waiting_match(match_id, live.meta.version):
                await self.cache.reload(live)  # it changed under us; nothing was deleted
                raise Conflict("the match changed meanwhile; look at it again")
            self.cache.forget(live)
            log.info("match cancelled", extra={"match_id": match_id})
            return live.meta.copy()

        return await self.writer.exclusive(live, body)

    async def act(
        self,
        live: LiveMatch,
        seat: int,
        client_id: str | None,
        version: int,
        action: Any,
        on_commit: Callable[[int], None] | None = None,
        *,
        shield: bool = True,
    ) -> tuple[int, bool]:
        """Apply ``action`` (a wire dict) for ``seat``; returns (version, whether it was a
        repeated id answered from before). ``on_commit(version)`` runs after the commit and
        before anyone is told of the new state (the transport sends its ack there). ``shield``:
        see :meth:`Writer.exclusive`."""
        if client_id is not None and client_id.startswith("server:"):
            self.metrics.action_errors.labels("bad_request").inc()
            raise BadRequest("action ids starting 'server:' are the server's own")
        try:
            parsed = Action.from_wire(action)
        except RulesError as e:
            self.metrics.action_errors.labels("bad_request").inc()
            raise from_rules_error(e) from e

        # A partial of a method, not a closure: an action in flight (waiting for its commit)
        # then holds one object for the collector to walk where the closures held a dozen.
        body = partial(self._act, seat, client_id, version, parsed, on_commit)
        try:
            return await self.writer.exclusive(live, body, shield=shield)
        except ServiceError as e:
            self.metrics.labelled(self.metrics.action_errors, e.code).inc()
            raise

    @staticmethod
    def _answered(live: LiveMatch, seat: int, client_id: str | None, parsed: Action) -> int | None:
        """The version a repeated id was answered with; IdReused when it stood for another
        action."""
        answer = None if client_id is None else live.answers[seat].get(client_id)
        if answer is None:
            return None
        if answer[1] == parsed:
            return answer[0]
        raise IdReused(f"the id {client_id!r} was already used for another action")

    async def _act(
        self,
        seat: int,
        client_id: str | None,
        version: int,
        parsed: Action,
        on_commit: Callable[[int], None] | None,
        live: LiveMatch,
    ) -> tuple[int, bool]:
        """:meth:`act`'s work under the match's lock."""
        repeated = self._answered(live, seat, client_id, parsed)
        if repeated is not None:
            return repeated, True
        meta = live.meta
        if meta.status != "active" or version != meta.version or live.state.to_act != seat:
            # About to refuse: first make sure it is not our copy that is behind (another
            # process may have written). Costs a read only on this path.
            await self.writer.catch_up(live)
            repeated = self._answered(live, seat, client_id, parsed)
            if repeated is not None:
                return repeated, True
            meta = live.meta
        if meta.status == "finished":
            raise IllegalAction("the match is over")
        if meta.status == "waiting":
            raise IllegalAction("waiting for an opponent to join")
        if version != meta.version:
            raise StaleVersion(f"the match is at version {meta.version}, not {version}")
        if live.state.to_act != seat:
            raise NotYourTurn(f"it is seat {live.state.to_act}'s turn")
        await self.writer.apply(live, seat, parsed, client_id, on_commit)
        return live.meta.version, False
