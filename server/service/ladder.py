"""The bot ladder: enrolled bots and the server's own references play pairs of matches in
the background, within a CPU budget, and each finished pair moves both entrants' ladder ratings.

- Entrants: bot accounts that enrolled (:meth:`Ladder.enroll`), and the references, one player
  per level of :data:`REFERENCES` (``easy``, ``normal``, ``hard`` and ``simple``, the baseline),
  created at start: fixed yardsticks (the same code always) whose ladder ratings move like
  anyone's. A ladder rating is Glicko-2 (:mod:`.glicko`), apart from the human rating.
- A pair: two ordinary matches between two entrants (opponent ``human``, never rated for the
  human rating, never public), the first with ``a`` in seat 0, the second with ``b`` in seat 0,
  the same first starter, so each entrant starts one. Between two references both are dealt
  from one fresh seed (duplicate deals: each seat's cards dealt once to each, the luck of the
  deal cancelling); a pair with an enrolled bot has a fresh seed for each match, since the bot
  plays both at once and would read its opponent's hand and the stock in the other. A pair
  involving an enrolled bot is also timed (:data:`BOT_TIME_CONTROL`), so a bot that went away
  loses on time instead of holding the ladder up. When both matches are over, the pair's result
  (:mod:`.ladder_results`) is one Glicko-2 game between the two.
- Who plays: every ``tick_seconds`` (on the injected clock), while fewer than ``pairs_at_once``
  pairs are playing, a new pair starts: an enrolled bot that asked for its matches in the last
  ``present_seconds`` and has no pair playing, with the fewest pairs counted first (else the
  reference with the fewest), against the other entrant closest in rating among those with the
  fewest pairs. An enrolled bot learns of its matches by asking (:meth:`Ladder.matches_for`,
  ``GET /api/ladder/matches``) and plays them over the WebSocket like any player.
- The budget: ``cpu_share`` of one core (0: the ladder is off). The references' moves are
  thought in the thinking workers and each reports the CPU seconds it took (the injected
  :class:`Thinker`); a move starts only once the CPU spent so far is within ``cpu_share`` of the
  time since the ladder started, so the ladder never uses more than its share (plus one move).

Run it in one process (the operator sets the budget on one replica): two schedulers would each
keep their own budget. Never imports aiohttp or storage; never reveals a seed (pairs name
their matches; a finished match's record reveals what the rules reveal).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from server.rules import RULES, Action, SeatView, new_match

from .clock import Clock
from .errors import BadRequest, Forbidden, NotFound
from .glicko import Glicko, rate
from .ids import Ids
from .ladder_ports import BotRecord, LadderEntry, LadderPair
from .ladder_results import Pairing, pair_result, pairings
from .live import LiveMatch, MatchCache
from .logs import repeat
from .players import hash_token
from .ports import MatchMeta, PlayerRecord, Store
from .timecontrol import TimeControl
from .writer import Writer

log = logging.getLogger("server.service")

REFERENCES: dict[str, str] = {
    "easy": "Easy",
    "normal": "Normal",
    "hard": "Hard",
    "simple": "Simple baseline",
}
"""The references: bot level -> display name (their players are ``ladder-<level>``)."""
REFERENCE_OWNER = "server"
BOT_TIME_CONTROL = TimeControl.realtime(60, 300)
"""A pair with an enrolled bot: a minute a move and five in the bank (a bot that went away
loses on time)."""
_ATTEMPTS = 8

Thinker = Callable[[str, str, SeatView], Awaitable[tuple[Action, float]]]
"""``(level, seed, view) -> (action, CPU seconds it took)``: a reference's move, metered."""


def reference_id(level: str) -> str:
    return f"ladder-{level}"


@dataclass(frozen=True, slots=True)
class LadderSettings:
    cpu_share: float = 0.0
    """Share of one core the references may use (0: the ladder is off)."""
    references: tuple[str, ...] = tuple(REFERENCES)
    """The references that play (a subset of :data:`REFERENCES`)."""
    tick_seconds: float = 2.0
    pairs_at_once: int = 1
    present_seconds: float = 120.0
    """An enrolled bot is paired only if it asked for its matches this recently."""
    rules: str = "house"


@dataclass(frozen=True, slots=True)
class Standing:
    entry: LadderEntry
    rank: int


@dataclass(frozen=True, slots=True)
class LadderMatch:
    """One of a bot's ladder matches to play: the match, its seat and its pair."""

    pair: LadderPair
    match_id: str
    seat: int


class Ladder:
    def __init__(
        self,
        store: Store,
        cache: MatchCache,
        writer: Writer,
        clock: Clock,
        ids: Ids,
        *,
        settings: LadderSettings,
        think: Thinker,
    ) -> None:
        self.store = store
        self.cache = cache
        self.writer = writer
        self.clock = clock
        self.ids = ids
        self.settings = settings
        self.think = think
        self.cpu_spent = 0.0
        """CPU seconds the references' moves took since the ladder started."""
        self._started_at: float | None = None
        self._seen: dict[str, float] = {}
        """Enrolled bots by when they last asked for their matches (monotonic)."""
        self._seats: dict[str, dict[int, str]] = {}
        """Playing ladder matches: match id -> {reference seat: level}."""
        self._pair_of: dict[str, LadderPair] = {}
        self._drivers: dict[str, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def on(self) -> bool:
        return self.settings.cpu_share > 0

    # --- entrants -----------------------------------------------------------------------------

    async def add_references(self) -> None:
        """Create the references' players, bot accounts and entries that do not exist yet."""
        now = self.clock.now()
        for level in self.settings.references:
            name = REFERENCES[level]
            pid = reference_id(level)
            try:
                if await self.store.player_name(pid) is None:
                    await self.store.create_player(PlayerRecord(pid, name, hash_token(self.ids.token()), now))
                if await self.store.bot(pid) is None:
                    await self.store.create_bot(BotRecord(pid, REFERENCE_OWNER, f"The server's {name}", now))
                await self.store.add_ladder_entry(_new_entry(pid, name, True, now))
            except Exception:
                # Another process adding the same reference at the same moment: it is there.
                log.info("ladder reference exists already", extra={"player_id": pid})

    async def enroll(self, player: PlayerRecord) -> LadderEntry:
        """Enroll a bot account (again: nothing changes)."""
        if await self.store.bot(player.player_id) is None:
            raise Forbidden("only a bot account may enroll in the ladder: create the player with bot true")
        await self.store.add_ladder_entry(_new_entry(player.player_id, player.name, False, self.clock.now()))
        self._seen[player.player_id] = self.clock.monotonic()
        entry = await self.store.ladder_entry(player.player_id)
        assert entry is not None  # (just added, or there already)
        return entry

    async def matches_for(self, player: PlayerRecord) -> list[LadderMatch]:
        """The ladder matches ``player`` has to play (asking counts as being present)."""
        if await self.store.ladder_entry(player.player_id) is None:
            raise NotFound("this player is not enrolled in the ladder: POST /api/ladder/entries first")
        self._seen[player.player_id] = self.clock.monotonic()
        out = []
        for pair in await self.store.ladder_pairs(player_id=player.player_id, status="playing", limit=20):
            for i, match_id in enumerate(pair.match_ids):
                seat = i if pair.a == player.player_id else 1 - i
                meta = await self.store.load_meta(match_id)
                if meta is not None and meta.status == "active":
                    out.append(LadderMatch(pair, match_id, seat))
        return out

    # --- reads --------------------------------------------------------------------------------

    async def standings(self) -> list[Standing]:
        return [Standing(e, i + 1) for i, e in enumerate(await self.store.ladder_entries())]

    async def pairs(self, player_id: str, *, limit: int) -> tuple[list[LadderPair], list[Pairing]]:
        """``player_id``'s recent pairs (newest first) and its paired result against each
        opponent (over its last 200 pairs)."""
        if not 1 <= limit <= 100:
            raise BadRequest("limit must be between 1 and 100")
        if await self.store.ladder_entry(player_id) is None:
            raise NotFound(f"no ladder entrant {player_id!r}")
        recent = await self.store.ladder_pairs(player_id=player_id, status=None, limit=200)
        return recent[:limit], pairings(player_id, recent)

    # --- the scheduler ------------------------------------------------------------------------

    def start(self) -> None:
        """Start scheduling pairs (nothing when the ladder is off)."""
        if not self.on or self._task is not None:
            return
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def close(self) -> None:
        tasks = [t for t in (self._task, *self._drivers.values()) if t is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._task = None
        self._drivers.clear()

    async def _loop(self) -> None:
        self._started_at = self.clock.monotonic()
        await self.add_references()
        await repeat(
            self.clock,
            self.settings.tick_seconds,
            self.tick,
            "ladder tick failed",
            self.store.unreachable,
            log,
        )

    async def tick(self) -> None:
        """Look after the pairs playing (resume their references, count the finished) and start
        a new pair if there is room."""
        if self._started_at is None:
            self._started_at = self.clock.monotonic()
        playing = await self.store.ladder_pairs(player_id=None, status="playing", limit=100)
        for pair in playing:
            if not await self._settle(pair):
                await self._resume(pair)
        playing = [p for p in playing if p.match_ids[0] in self._pair_of]  # (not just counted)
        if len(playing) < self.settings.pairs_at_once and not self.writer.closing:
            await self._start_pair(playing)

    async def _resume(self, pair: LadderPair) -> None:
        for match_id in pair.match_ids:
            self._pair_of[match_id] = pair
            if match_id not in self._seats:
                self._seats[match_id] = _reference_seats(pair, match_id)
            try:
                live = await self.cache.get(match_id)
            except NotFound:
                continue
            self.schedule(live)

    def _choose(
        self, entries: list[LadderEntry], playing: list[LadderPair]
    ) -> tuple[LadderEntry, LadderEntry] | None:
        now = self.clock.monotonic()
        busy = {p for pair in playing for p in (pair.a, pair.b)}
        playing_refs = {reference_id(level) for level in self.settings.references}
        present = [
            e
            for e in entries
            if (e.reference and e.player_id in playing_refs)
            or (
                e.player_id not in busy
                and now - self._seen.get(e.player_id, -1e18) <= self.settings.present_seconds
            )
        ]
        bots = [e for e in present if not e.reference]
        pool = bots or present
        if len(present) < 2 or not pool:
            return None
        a = min(pool, key=lambda e: (e.games, e.player_id))
        others = [e for e in present if e.player_id != a.player_id]
        fewest = min(e.games for e in others)
        b = min(
            (e for e in others if e.games == fewest),
            key=lambda e: (abs(e.rating - a.rating), e.player_id),
        )
        return a, b

    async def _start_pair(self, playing: list[LadderPair]) -> LadderPair | None:
        chosen = self._choose(await self.store.ladder_entries(), playing)
        if chosen is None:
            return None
        a, b = chosen
        rules = self.settings.rules
        seed = self.ids.seed()
        state = new_match(RULES[rules], seed)
        now = self.clock.now()
        references_only = a.reference and b.reference
        timed = not references_only  # an enrolled bot that went away loses on time
        # The same deals twice only between references, which remember nothing from one match to
        # the next: a bot seated in both would read its opponent's hand and the stock's order
        # in the other match (or in its record, once over).
        seeds = (seed, seed) if references_only else (seed, self.ids.seed())
        metas = [
            self._meta(seats, rules, one_seed, state.first_starter, state.deal, timed)
            for seats, one_seed in zip(((a, b), (b, a)), seeds, strict=True)
        ]
        pair = LadderPair(
            self.ids.match_id(),
            a.player_id,
            b.player_id,
            rules,
            (metas[0].match_id, metas[1].match_id),
            "playing",
            now,
        )
        await self.store.create_ladder_pair(pair)
        for meta in metas:
            await self.store.create_match(meta)
            self._pair_of[meta.match_id] = pair
            self._seats[meta.match_id] = _reference_seats(pair, meta.match_id)
            live = self.cache.new(meta, new_match(RULES[rules], meta.seed, state.first_starter, state.deal))
            live.bots, live.bots_of = (True, True), tuple(meta.seat_ids)  # (every entrant is a bot)
            self.schedule(live)
        log.info("ladder pair started", extra={"pair_id": pair.pair_id, "a": a.player_id, "b": b.player_id})
        return pair

    def _meta(
        self,
        seats: tuple[LadderEntry, LadderEntry],
        rules: str,
        seed: str,
        starter: int,
        deal: str,
        timed: bool,
    ) -> MatchMeta:
        now = self.clock.now()
        return MatchMeta(
            match_id=self.ids.match_id(),
            rules=rules,
            opponent="human",
            difficulty=None,
            seed=seed,
            first_starter=starter,
            deal=deal,
            status="active",
            version=0,
            seat_ids=[seats[0].player_id, seats[1].player_id],
            seat_names=[seats[0].name, seats[1].name],
            watch_token_hash=hash_token(self.ids.token()),
            invite_hash=None,
            hand_number=1,
            scores=[0, 0],
            hands_won=[0, 0],
            winner=None,
            resigned=None,
            outcome=None,
            created_at=now,
            updated_at=now,
            time_control=BOT_TIME_CONTROL.to_dict() if timed else None,
        )

    # --- the references' moves ----------------------------------------------------------------

    def after_write(self, live: LiveMatch) -> None:
        """A change committed: play a reference's turn, or count a pair whose matches are over."""
        if live.match_id not in self._seats:
            return
        if live.meta.status == "finished":
            pair = self._pair_of.get(live.match_id)
            if pair is not None:
                asyncio.get_running_loop().create_task(self._settle_logged(pair))
            return
        self.schedule(live)

    def schedule(self, live: LiveMatch) -> None:
        seats = self._seats.get(live.match_id)
        if not seats or live.meta.status != "active" or live.state.to_act not in seats:
            return
        running = self._drivers.get(live.match_id)
        if (running is not None and not running.done()) or self.writer.closing:
            return  # (a driver that just ended is not waited for: it saw the other seat to act)
        task = asyncio.get_running_loop().create_task(self._drive(live))
        self._drivers[live.match_id] = task
        task.add_done_callback(lambda t: self._forget_driver(live.match_id, t))

    def _forget_driver(self, match_id: str, task: asyncio.Task[None]) -> None:
        if self._drivers.get(match_id) is task:
            del self._drivers[match_id]

    async def _wait_for_budget(self) -> None:
        """Until the CPU spent is within the share of the time since the ladder started."""
        share = self.settings.cpu_share
        started = self._started_at if self._started_at is not None else self.clock.monotonic()
        self._started_at = started
        while True:
            ahead = self.cpu_spent / share - (self.clock.monotonic() - started)
            if ahead <= 1e-6:  # (a float's dust is no debt: sleeping it would never end)
                return
            await self.clock.sleep(ahead)

    async def _drive(self, live: LiveMatch) -> None:
        """A reference's moves on ``live`` until it is an enrolled bot's turn or the match ends."""
        seats = self._seats[live.match_id]
        try:
            while live.meta.status == "active" and (seat := live.state.to_act) in seats:
                await self._wait_for_budget()
                version = live.meta.version
                view = live.state.hand.view(seat, arranged=False)
                level = seats[seat]
                action, cpu = await self.think(level, f"{live.meta.seed}:{seat}:ladder", view)
                self.cpu_spent += cpu
                if action not in view.legal_actions:
                    log.error("ladder reference chose an illegal action", extra={"match_id": live.match_id})
                    action = view.legal_actions[0]

                async def move(
                    live: LiveMatch, seat: int = seat, action: Action = action, version: int = version
                ) -> None:
                    if live.meta.version == version and live.state.to_act == seat:
                        await self.writer.apply(live, seat, action, None, None)

                await self.writer.exclusive(live, move)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "ladder reference move failed; the next tick resumes", extra={"match_id": live.match_id}
            )

    # --- results ------------------------------------------------------------------------------

    async def _settle_logged(self, pair: LadderPair) -> None:
        try:
            await self._settle(pair)
        except Exception:
            log.exception("ladder pair result failed; the next tick retries", extra={"pair_id": pair.pair_id})

    async def _settle(self, pair: LadderPair) -> bool:
        """Count a pair whose matches are both over (True: it is counted, now or before)."""
        metas = [await self.store.load_meta(m) for m in pair.match_ids]
        if metas[0] is None or metas[1] is None:
            return False
        result = pair_result(metas[0], metas[1])
        if result is None:
            return False
        for _ in range(_ATTEMPTS):
            a, b = await self.store.ladder_entry(pair.a), await self.store.ladder_entry(pair.b)
            if a is None or b is None:
                return False
            now = self.clock.now()
            new_a = rate(_glicko(a), [(_glicko(b), result.score)])
            new_b = rate(_glicko(b), [(_glicko(a), 1 - result.score)])
            done = dataclasses.replace(
                pair,
                status="finished",
                finished_at=now,
                wins=result.wins,
                points=result.points,
                score=result.score,
            )
            if await self.store.finish_ladder_pair(done, [_moved(a, new_a, now), _moved(b, new_b, now)]):
                log.info("ladder pair counted", extra={"pair_id": pair.pair_id, "score": result.score})
                break
            if [
                p
                for p in await self.store.ladder_pairs(player_id=pair.a, status="playing", limit=100)
                if p.pair_id == pair.pair_id
            ] == []:
                break  # counted already (by another try)
        for m in pair.match_ids:
            self._seats.pop(m, None)
            self._pair_of.pop(m, None)
        return True


def _reference_seats(pair: LadderPair, match_id: str) -> dict[int, str]:
    first = pair.match_ids[0] == match_id
    seats = {0: pair.a, 1: pair.b} if first else {0: pair.b, 1: pair.a}
    prefix = reference_id("")
    return {
        s: pid[len(prefix) :]
        for s, pid in seats.items()
        if pid.startswith(prefix) and pid[len(prefix) :] in REFERENCES
    }


def _new_entry(player_id: str, name: str, reference: bool, now: datetime) -> LadderEntry:
    g = Glicko()
    return LadderEntry(player_id, name, reference, g.rating, g.deviation, g.volatility, 0, now, now)


def _glicko(e: LadderEntry) -> Glicko:
    return Glicko(e.rating, e.deviation, e.volatility)


def _moved(e: LadderEntry, g: Glicko, now: datetime) -> LadderEntry:
    return dataclasses.replace(
        e, rating=g.rating, deviation=g.deviation, volatility=g.volatility, games=e.games + 1, updated_at=now
    )
