"""The scripted players: each a player identity and one socket, playing matches against the
computer one after another, timing every action to its ``ack`` and to the computer's reply, and
afterwards checking every acknowledged action against its match's record."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from server.bench.load.clients import _decode, _encode
from server.bench.load.figures import PhaseStats
from server.transport.ws import CLOSE_TRY_AGAIN

BUSY_FOR = 60.0
"""Seconds one REST call keeps coming back to a server that refuses it as busy."""


class Refused(RuntimeError):
    """The server stayed busy (503 with Retry-After) for ``BUSY_FOR``: this player was turned away."""


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A plain choice among ``legal_actions`` only: knock with the least deadwood when allowed,
    else discard to the least deadwood, else draw, take or pass at random."""
    hand = view["hand"]
    legal = hand["legal_actions"]
    dd = hand.get("discard_deadwood") or {}
    knocks = [a for a in legal if a["kind"] == "knock"]
    if knocks:
        return min(knocks, key=lambda a: dd.get(a["card"], 99))
    discards = [a for a in legal if a["kind"] == "discard"]
    if discards:
        best = min(dd.get(a["card"], 99) for a in discards)
        return rng.choice([a for a in discards if dd.get(a["card"], 99) == best])
    return rng.choice(legal)


@dataclass
class Pending:
    id: str
    action: dict[str, Any]
    sent_at: float
    stats: PhaseStats
    acked: bool = False
    waiting_reply: bool = False


class Control:
    """What every scripted player reads: the current phase's stats, the pause, and stop."""

    def __init__(self, think: float) -> None:
        self.stats = PhaseStats("setup")
        self.think = think
        self.stopping = False
        self.stopped = asyncio.Event()


class Player:
    """One scripted human: a player identity, one socket, and matches against the computer
    played one after another on that socket."""

    _ids = itertools.count(1)

    def __init__(
        self,
        index: int,
        session: aiohttp.ClientSession,
        base: str,
        control: Control,
        *,
        difficulty: str,
        keep_messages: bool,
        seed: int,
    ) -> None:
        self.index = index
        self.session = session
        self.base = base
        self.control = control
        self.difficulty = difficulty
        self.keep_messages = keep_messages
        self.rng = random.Random(seed)
        self.token = ""
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.match_id = ""
        self.acted_on = -1
        self.pending: Pending | None = None
        self.acked: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        self.messages: dict[str, list[str | bytes]] = {}
        """With ``keep_messages``: each match's state messages as received. Kept undecoded: a
        decoded message is a hundred objects for the garbage collector to walk, and with tens
        of thousands kept its full collections paused the load generator for up to a second,
        which the run then reported as server latency."""
        self.finished: set[str] = set()
        self.done = False
        self.failure: str | None = None
        self.socket_base = base
        """The server to open the socket on (another replica than ``base``, which serves the
        REST calls, for a balancer without stickiness)."""
        self.urls = [base]
        """Servers to reconnect to, tried in turn, when the socket drops."""
        self.reconnect_for = 0.0
        """Seconds to keep trying to reconnect (0: a dropped socket is a failure)."""
        self.reconnects = 0
        self.tries = 0
        """Hellos closed with 1013 in a row (:meth:`_back_off`)."""
        self.acks_by_phase: Counter[str] = Counter()
        self.deflate = True
        """Offer permessage-deflate on the socket, as browsers do (the server decides)."""

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def _post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        started, refusals = time.monotonic(), 0
        while True:
            async with self.session.post(self.base + path, json=body or {}, headers=self.headers) as r:
                data: dict[str, Any] = await r.json(loads=_decode)
                retry_after = r.headers.get("Retry-After") if r.status == 503 else None
                if retry_after is None:
                    if r.status >= 300:
                        raise RuntimeError(f"POST {path}: {r.status} {data}")
                    return data
            # The server is busy with the players it has and changed nothing: come back after
            # the time it says, twice as long after each refusal before (up to a minute: a crowd
            # turned away does not come back all at once, again and again), give or take half,
            # for up to BUSY_FOR (then: refused).
            if time.monotonic() - started > BUSY_FOR:
                raise Refused(f"POST {path}: the server stayed busy for {BUSY_FOR:.0f} s")
            wait = min(60.0, float(retry_after) * 2**refusals)
            refusals += 1
            await asyncio.sleep(wait * random.uniform(0.5, 1.5))

    async def setup(self) -> None:
        data = await self._post("/api/players", {"name": f"Load {self.index}"})
        self.token = data["token"]
        # The match first, the socket once it is made: a busy server may keep the player
        # waiting, and closes a socket that says no hello for 30 s.
        match_id = await self._create_match()
        self.ws = await self._connect(self.socket_base)
        await self._hello(match_id)

    async def _connect(self, base: str) -> aiohttp.ClientWebSocketResponse:
        ws_url = base.replace("http", "ws", 1) + "/ws"
        return await self.session.ws_connect(
            ws_url, heartbeat=None, autoping=True, max_msg_size=0, compress=15 if self.deflate else 0
        )

    async def _reconnect(self) -> None:
        """Back on the same match through any of ``urls``: hello again, and act on the state
        that answers it (an action sent but never acknowledged may or may not have landed)."""
        deadline = time.monotonic() + self.reconnect_for
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        self.pending = None
        self.acted_on = -1
        for attempt in itertools.count():
            base = self.urls[attempt % len(self.urls)]
            try:
                self.ws = await self._connect(base)
                await self.ws.send_bytes(
                    _encode({"type": "hello", "match": self.match_id, "token": self.token})
                )
            except (aiohttp.ClientError, OSError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
                continue
            self.base = base
            self.reconnects += 1
            return

    async def new_match(self) -> None:
        await self._hello(await self._create_match())

    async def _create_match(self) -> str:
        match = await self._post("/api/matches", {"opponent": "computer", "difficulty": self.difficulty})
        return str(match["match_id"])

    async def _hello(self, match_id: str) -> None:
        self.match_id = match_id
        self.acked[self.match_id] = []
        if self.keep_messages:
            self.messages[self.match_id] = []
        self.acted_on = -1
        assert self.ws is not None
        await self.ws.send_bytes(_encode({"type": "hello", "match": self.match_id, "token": self.token}))

    async def play(self) -> None:
        try:
            await self._play()
        except asyncio.CancelledError:
            raise
        except Exception as e:  # counted, not raised: one broken player must not stop the run
            self.failure = f"{type(e).__name__}: {e}"
            self.control.stats.errors[f"client:{type(e).__name__}"] += 1
        finally:
            self.done = True

    async def _play(self) -> None:
        control = self.control
        while True:
            ws = self.ws
            assert ws is not None
            msg = await ws.receive()
            now = time.perf_counter()
            if msg.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                if self.reconnect_for > 0 and not control.stopping:
                    if ws.close_code == CLOSE_TRY_AGAIN:
                        await self._back_off()
                    await self._reconnect()
                    continue
                raise ConnectionError(f"socket closed ({msg.type.name}, {ws.close_code})")
            data = _decode(msg.data)
            kind = data.get("type")
            if self.keep_messages and kind == "state":
                self.messages[data["view"]["match_id"]].append(msg.data)
            pending = self.pending
            if kind == "ack":
                if pending is None or data.get("id") != pending.id:
                    control.stats.errors["unexpected_ack"] += 1
                    continue
                pending.acked = True
                pending.stats.acked += 1
                pending.stats.ack_latency.append(now - pending.sent_at)
                self.acks_by_phase[pending.stats.name] += 1
                self.acked[self.match_id].append((data["version"], pending.action))
                continue
            if kind == "error" and data.get("code") == "unavailable" and pending is not None:
                # As the protocol asks: the same act again, with the same id (counted, no error).
                pending.stats.resent += 1
                await asyncio.sleep(0.2)
                await ws.send_bytes(
                    _encode(
                        {"type": "act", "id": pending.id, "version": self.acted_on, "action": pending.action}
                    )
                )
                continue
            if kind == "error":
                (pending.stats if pending else control.stats).errors[str(data.get("code"))] += 1
                self.pending = None
                continue
            if kind != "state":
                continue
            self.tries = 0
            view = data["view"]
            if view["match_id"] != self.match_id:
                continue  # a late state of the previous match
            if view["status"] == "finished":
                self.finished.add(self.match_id)
                (pending.stats if pending else control.stats).matches_finished += 1
                self.pending = None
                if control.stopping:
                    return
                await self._survive(self.new_match)
                continue
            legal = view["hand"]["legal_actions"]
            if not legal:
                if pending is not None and pending.acked:
                    pending.waiting_reply = True
                continue
            if pending is not None:
                if pending.waiting_reply:
                    pending.stats.reply_latency.append(now - pending.sent_at)
                if not pending.acked:
                    continue  # our action's state before its ack cannot happen; wait for it
                self.pending = None
            if control.stopping:
                return
            version = data["version"]
            if version == self.acted_on:
                continue
            self.acted_on = version
            if control.think > 0:
                await asyncio.sleep(control.think * self.rng.uniform(0.5, 1.5))
                if control.stopping:
                    return
            action = choose(view, self.rng)
            msg_id = f"a{next(self._ids)}"
            stats = control.stats
            self.pending = Pending(msg_id, action, time.perf_counter(), stats)
            stats.sent += 1
            try:
                await ws.send_bytes(
                    _encode({"type": "act", "id": msg_id, "version": version, "action": action})
                )
            except (ConnectionError, aiohttp.ClientError):
                if self.reconnect_for <= 0:
                    raise
                await self._reconnect()

    async def _back_off(self) -> None:
        """Before reconnecting after a hello the server could not answer (close 1013), as the
        browser client does: 0.5 s, 1 s, 2 s ... up to 10 s, each halved at random so that
        thousands of players coming back at once spread out."""
        base = min(10.0, 0.5 * 2**self.tries)
        self.tries += 1
        await asyncio.sleep(base / 2 + self.rng.random() * base / 2)

    async def _survive(self, step: Callable[[], Awaitable[None]]) -> None:
        """Run ``step()``; while reconnecting is allowed, a server that is down (or restarting)
        means: reconnect and try again."""
        deadline = time.monotonic() + self.reconnect_for
        while True:
            try:
                return await step()
            except (ConnectionError, aiohttp.ClientError, RuntimeError):
                if self.reconnect_for <= 0 or time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
                await self._reconnect()

    async def settle(self) -> tuple[int, int, list[str]]:
        """After the run: resign the match still going, then check every acknowledged action
        against the records. Returns (acked, lost, problems)."""
        if self.match_id and self.match_id not in self.finished and self.token:
            with contextlib.suppress(RuntimeError):
                await self._post(f"/api/matches/{self.match_id}/resign")
        acked = lost = 0
        problems: list[str] = []
        self.records: dict[str, dict[str, Any]] = {}
        for match_id, actions in self.acked.items():
            async with self.session.get(
                f"{self.base}/api/matches/{match_id}/record", headers=self.headers
            ) as r:
                if r.status != 200:
                    problems.append(f"{match_id}: record {r.status} {await r.text()}")
                    lost += len(actions)
                    acked += len(actions)
                    continue
                record = await r.json(loads=_decode)
            self.records[match_id] = record
            flat = [(a["seat"], a["action"]) for hand in record["hands"] for a in hand["actions"]]
            for version, action in actions:
                acked += 1
                # Against the computer every version but the last (a resignation) is one action.
                if not (0 < version <= len(flat) and flat[version - 1] == (0, action)):
                    lost += 1
                    problems.append(f"{match_id}: acked action at version {version} is not in the record")
        return acked, lost, problems
