"""``python -m server.bench load``: many concurrent matches against the computer, measured.

A separate process from the server, on loopback only, bounded in count and time. It starts the
server itself (``python -m server``, SQLite in a temporary folder or a fresh Postgres database
that it drops afterwards; ``--servers K`` processes) or targets running ones (``--server URL``),
then:

1. creates ``--matches N`` players, matches against the computer and sockets;
2. **paced**: every scripted player acts after a human-like pause (``--think``, uniform between
   half and one and a half times it) for ``--duration`` seconds, starting a new match whenever
   one ends, so N matches stay live: latency from an action to its ``ack`` and to the
   computer's reply (the next state where it is the player's turn again), errors, and the
   server's memory per live match (RSS growth of its processes over N);
3. **saturated**: the same players with no pause for ``--saturate`` seconds: the most actions
   per second the server can take;
4. checks every acknowledged action against the final record of its match (resigning the
   matches still going): an acknowledged action missing from the record is *lost*; with
   ``--check-hidden`` it also replays every record and checks that no state message ever named
   a card hidden from its seat;
5. measures the floor: a bare aiohttp WebSocket echo server in its own process, the same
   number of clients sending as fast as they can, for ``--echo-duration`` seconds;
6. measures the service's memory per live match in a fresh process with ``tracemalloc``.

It prints the figures (``--json FILE`` writes them too). Nothing here is a test: the targets are
printed beside the figures, met or not. It never reads a hidden card except from a finished
match's record, which the protocol publishes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import inspect
import itertools
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import msgspec

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"
CLIENTS_PER_ADDRESS = 25
"""Players created from one loopback address: each group of scripted players connects from its
own 127.0.0.x, as real players come from their own addresses (the server allows 30 new
identities per address per minute)."""
TARGETS = {"matches": 1000, "p99_ack_ms": 100.0, "floor_ratio": 0.30, "kb_per_match": 100.0}

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


# --- figures ---------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (nearest rank) of ``values``, None when empty.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50)
    3.0
    >>> percentile([float(v) for v in range(1, 101)], 99)
    99.0
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def latency_summary(seconds: list[float]) -> dict[str, float | None]:
    ms = [s * 1000 for s in seconds]
    return {
        "count": len(ms),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "max_ms": max(ms) if ms else None,
        "mean_ms": statistics.fmean(ms) if ms else None,
    }


@dataclass
class PhaseStats:
    name: str
    started: float = field(default_factory=time.perf_counter)
    ended: float | None = None
    sent: int = 0
    acked: int = 0
    ack_latency: list[float] = field(default_factory=list)
    reply_latency: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    matches_finished: int = 0

    def close(self) -> None:
        self.ended = time.perf_counter()

    @property
    def seconds(self) -> float:
        return (self.ended or time.perf_counter()) - self.started

    def report(self) -> dict[str, Any]:
        return {
            "seconds": round(self.seconds, 2),
            "actions_sent": self.sent,
            "actions_acked": self.acked,
            "actions_per_second": self.acked / self.seconds if self.seconds else 0.0,
            "ack_latency": latency_summary(self.ack_latency),
            "reply_latency": latency_summary(self.reply_latency),
            "errors": dict(self.errors),
            "error_count": sum(self.errors.values()),
            "matches_finished": self.matches_finished,
        }


# --- scripted players --------------------------------------------------------------------------


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
        self.urls = [base]
        """Servers to reconnect to, tried in turn, when the socket drops."""
        self.reconnect_for = 0.0
        """Seconds to keep trying to reconnect (0: a dropped socket is a failure)."""
        self.reconnects = 0
        self.acks_by_phase: Counter[str] = Counter()

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def _post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        async with self.session.post(self.base + path, json=body or {}, headers=self.headers) as r:
            data: dict[str, Any] = await r.json(loads=_decode)
            if r.status >= 300:
                raise RuntimeError(f"POST {path}: {r.status} {data}")
            return data

    async def setup(self) -> None:
        data = await self._post("/api/players", {"name": f"Load {self.index}"})
        self.token = data["token"]
        self.ws = await self._connect(self.base)
        await self.new_match()

    async def _connect(self, base: str) -> aiohttp.ClientWebSocketResponse:
        ws_url = base.replace("http", "ws", 1) + "/ws"
        return await self.session.ws_connect(ws_url, heartbeat=None, autoping=True, max_msg_size=0)

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
        match = await self._post("/api/matches", {"opponent": "computer", "difficulty": self.difficulty})
        self.match_id = match["match_id"]
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
            if kind == "error":
                (pending.stats if pending else control.stats).errors[str(data.get("code"))] += 1
                self.pending = None
                continue
            if kind != "state":
                continue
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


# --- the hidden-card check -----------------------------------------------------------------------


def hidden_card_leaks(record: dict[str, Any], messages: list[dict[str, Any]], seat: int | None) -> list[str]:
    """Replay ``record`` to the point of every state message and list the cards each names that
    ``seat`` (None: a watcher) could not know then: the stock, and the other hand except cards
    it took face up (a watcher: both hands). Results are exempt (they reveal hands once the
    hand is over) but may never name a stock card. Also a problem: a message for another seat,
    a seat shown a hand that is not its own, a watcher shown a hand or legal actions."""
    from server.rules import RULES, Action, new_hand

    rules = RULES[record["rules"]]
    problems: list[str] = []
    replayed: dict[int, tuple[Any, int]] = {}  # hand number -> (the hand so far, actions applied)
    for msg in messages:
        if msg.get("type") != "state":
            continue
        view = msg["view"]
        version = msg["version"]
        if view["seat"] != seat:
            problems.append(f"version {version}: a message for seat {view['seat']} sent to seat {seat}")
        if view["status"] == "waiting":
            continue
        hv = view["hand"]
        number = view["hand_number"]
        deal = record["hands"][number - 1]
        history = hv["history"]
        truth, applied = replayed.get(number, (None, 0))
        if truth is None or applied > len(history):
            truth, applied = (
                new_hand(rules, deal["starter"], tuple(deal["hands"]), deal["upcard"], deal["stock"]),
                0,
            )
        for entry in deal["actions"][applied : len(history)]:
            truth.apply(Action.from_wire(entry["action"]), entry["seat"])
        replayed[number] = (truth, len(history))
        public = {e["card"] for e in history if "card" in e}
        stock = {c.code for c in truth.stock_order()}
        hidden = set(stock)
        if truth.result is None:
            for s in (0, 1):
                if s != seat:
                    hidden |= {c.code for c in truth.hand(s)} - public
        if seat is not None:
            own = {c.code for c in truth.hand(seat)}
            if set(hv["hand"]) != own:
                problems.append(f"version {version}: the seat's hand is not its own")
            hidden -= own
        elif hv["hand"] or hv["legal_actions"]:
            problems.append(f"version {version}: a watcher was shown a hand or legal actions")
        # Everything but results and static rule text; the match id is random text.
        visible = _cards({k: v for k, v in hv.items() if k != "result"})
        visible |= _cards(
            {k: v for k, v in view.items() if k not in ("hand", "last_result", "rules", "match_id")}
        )
        if hv.get("result") is not None:
            visible |= _cards(hv["result"]) & stock
        leaked = visible & hidden
        if leaked:
            problems.append(f"version {version}: seat {seat} saw hidden {sorted(leaked)}")
    return problems


_CARD_CODES = {r + s for r in "A23456789TJQK" for s in "cdhs"}


def _cards(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        found.update(w for w in value.replace(",", " ").replace(":", " ").split() if w in _CARD_CODES)
    elif isinstance(value, dict):
        for k, v in value.items():
            found |= _cards(k) | _cards(v)
    elif isinstance(value, list):
        for v in value:
            found |= _cards(v)
    return found


# --- servers ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int | None = None) -> float | None:
    """User + system CPU seconds used so far by process ``pid`` and its live child processes
    (the computer's thinking workers), or by this process if None."""
    if pid is None:
        t = os.times()
        return t.user + t.system
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_seconds(child) or 0.0 for child in _children(pid))


def _children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _cpu_figures(
    before: tuple[list[float | None], float | None],
    after: tuple[list[float | None], float | None],
    phase: PhaseStats,
) -> dict[str, float | None]:
    """CPU used by the servers and by this process over a phase: cores busy, and milliseconds
    per acknowledged player action."""
    out: dict[str, float | None] = {}
    for who, b, a in (("server", before[0], after[0]), ("client", [before[1]], [after[1]])):
        used = None if None in b or None in a else sum(a) - sum(b)  # type: ignore[arg-type]
        out[f"{who}_cores"] = None if used is None else used / phase.seconds
        out[f"{who}_cpu_ms_per_action"] = (
            None if used is None or not phase.acked else 1000 * used / phase.acked
        )
    return out


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None


async def wait_healthy(url: str, process: subprocess.Popen[bytes] | None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as s:
        while True:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the server at {url} exited with {process.returncode}")
            with contextlib.suppress(aiohttp.ClientError, OSError):
                async with s.get(url + "/healthz", timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 200:
                        return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server at {url} did not become healthy in {timeout:.0f} s")
            await asyncio.sleep(0.1)


def start_server(
    database_url: str,
    log_dir: Path,
    env: dict[str, str] | None = None,
    port: int | None = None,
    profile: Path | None = None,
) -> Server:
    """``python -m server`` on loopback (a free port unless given), its output in ``log_dir``;
    under cProfile, writing ``profile`` when it stops, if given."""
    port = port or free_port()
    log_path = log_dir / f"server-{port}.log"
    full_env = {
        **os.environ,
        "GINRUMMY_LOG_LEVEL": "warning",
        "DATABASE_URL": database_url,
        **(env or {}),
    }
    with open(log_path, "ab") as log:
        profiler = ["-m", "cProfile", "-o", str(profile)] if profile else []
        process = subprocess.Popen(
            [sys.executable, *profiler, "-m", "server", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env=full_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return Server(f"http://127.0.0.1:{port}", process, log_path)


def stop_server(server: Server) -> None:
    p = server.process
    if p is None or p.poll() is not None:
        return
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(15)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


@contextlib.asynccontextmanager
async def postgres_database(admin_dsn: str) -> AsyncIterator[str]:
    """A fresh Postgres database for this run (dropped at the end); yields its URL."""
    import asyncpg

    name = f"gin_load_{secrets.token_hex(5)}"
    conn = await asyncpg.connect(admin_dsn, timeout=5)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    head = admin_dsn.rpartition("/")[0]
    try:
        yield f"{head}/{name}".replace("postgresql://", "postgresql+asyncpg://", 1)
    finally:
        conn = await asyncpg.connect(admin_dsn, timeout=5)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


async def scrape_metrics(url: str) -> dict[str, float]:
    """The server's /metrics as ``{name{labels}: value}`` (summed over label sets by name too)."""
    from prometheus_client.parser import text_string_to_metric_families

    async with aiohttp.ClientSession() as s, s.get(url + "/metrics") as r:
        text = await r.text()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[sample.name] = out.get(sample.name, 0.0) + sample.value
    return out


# --- the echo floor ------------------------------------------------------------------------------


def serve_echo(port: int) -> None:
    """A bare aiohttp WebSocket echo server (the floor): what aiohttp alone costs."""
    from aiohttp import web

    async def echo(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for msg in ws:
            if msg.type == aiohttp.WSMsgType.TEXT:
                await ws.send_str(msg.data)
            elif msg.type == aiohttp.WSMsgType.BINARY:
                await ws.send_bytes(msg.data)
        return ws

    async def health(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_get("/ws", echo)
    app.router.add_get("/healthz", health)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


async def echo_floor(clients: int, seconds: float, log_dir: Path) -> dict[str, Any]:
    """Round trips per second of ``clients`` sockets each sending act-sized messages as fast as
    the echo answers them."""
    port = free_port()
    log = open(log_dir / "echo.log", "wb")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        [sys.executable, "-m", "server.bench", "load", "--serve-echo", str(port)],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    payload = _encode(
        {"type": "act", "id": "a123456", "version": 42, "action": {"kind": "discard", "card": "7h"}}
    )
    latencies: list[float] = []
    stop = False
    try:
        await wait_healthy(url, process)
        async with client_sessions(clients, url) as sessions:
            sockets = await gather_limited(
                [sessions[i // CLIENTS_PER_ADDRESS].ws_connect(url + "/ws") for i in range(clients)], 100
            )

            async def loop(ws: aiohttp.ClientWebSocketResponse) -> None:
                while not stop:
                    t0 = time.perf_counter()
                    await ws.send_bytes(payload)
                    msg = await ws.receive()
                    if msg.type != aiohttp.WSMsgType.BINARY:
                        raise ConnectionError("echo socket closed")
                    latencies.append(time.perf_counter() - t0)

            tasks = [asyncio.ensure_future(loop(ws)) for ws in sockets]
            await asyncio.sleep(min(1.0, seconds / 5))  # warm up
            latencies.clear()
            started, cpu_before = time.perf_counter(), cpu_seconds(process.pid)
            await asyncio.sleep(seconds)
            count, elapsed = len(latencies), time.perf_counter() - started
            cpu_after = cpu_seconds(process.pid)
            stop = True
            await asyncio.wait(tasks, timeout=5)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
    measured = latencies[:count]
    cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "round_trips_per_second": count / elapsed,
        "latency": latency_summary(measured),
        "server_cpu_ms_per_round_trip": 1000 * cpu / count if cpu is not None and count else None,
    }


# --- memory per live match, in process --------------------------------------------------------------


class _Quiet:
    """A subscriber that drops what it is told, as a socket that sent it would."""

    seat: int | None = 0

    def __init__(self) -> None:
        self.received = 0

    def deliver(self, update: Any) -> None:
        from server.transport.present import state_message

        state_message(update)  # framed, as a socket would
        self.received += 1


async def measure_service_memory(matches: int, actions_each: int = 12) -> dict[str, Any]:
    """tracemalloc growth of a :class:`~server.service.MatchService` holding ``matches`` live
    matches, each subscribed and a dozen actions in, divided by ``matches``."""
    from server.service import MatchService
    from server.storage import SqlStore, create_engine, upgrade

    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite+aiosqlite:///{tmp}/memory.db")
        await upgrade(engine)
        service = MatchService(SqlStore(engine), bot_delay=0)
        player, token = await service.create_player("Memory")
        rng = random.Random(1)

        async def one() -> tuple[Any, _Quiet]:
            created = await service.create_match(player)
            live, _seat = await service.open(created.meta.match_id, token)
            sub = _Quiet()
            subscribed = service.subscribe(live, sub)
            if inspect.isawaitable(subscribed):  # async once subscribing takes the match's lock
                await subscribed
            return live, sub

        async def advance(live: Any) -> None:
            from server.service import SeatUpdate
            from server.transport.present import view_payload

            for _ in range(actions_each):
                for _ in range(200):  # the computer's turn runs as a task: wait for it
                    busy = live.lock.locked() or live.bot_task is not None
                    if not busy and (live.state.to_act == 0 or live.meta.status != "active"):
                        break
                    await asyncio.sleep(0.001)
                if live.meta.status != "active":
                    return
                view = view_payload(SeatUpdate(live.meta, live.state.view(0), (True, True)))
                await service.act(live, 0, f"m{rng.random()}", live.meta.version, choose(view, rng))

        warm = await one()
        await advance(warm[0])
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        kept = [await one() for _ in range(matches)]
        for live, _ in kept:
            await advance(live)
        await asyncio.sleep(0.05)
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
        top = [
            {"where": str(s.traceback), "kb_per_match": round(s.size_diff / matches / 1024, 2)}
            for s in after.compare_to(before, "lineno")[:8]
        ]
        await service.close()
        await engine.dispose()
    return {"matches": matches, "bytes_per_match": grown / matches, "top": top}


def measure_game_work(difficulty: str, matches: int = 100, seed: int = 1) -> dict[str, Any]:
    """CPU per player action of the game work alone, in this process with no socket and no
    database: what the server does for an action and the computer's reply (apply the action,
    the player's state message, the computer's view and choice, apply it, the state message
    again), with the scripted players' policy. Its ratio to an echo round trip bounds
    throughput / echo floor from above, however cheap the I/O and the commits were made."""
    from datetime import UTC, datetime

    from server.bots import make_bot
    from server.rules import Action, new_match
    from server.service import SeatUpdate
    from server.service.ports import MatchMeta
    from server.transport.present import view_payload

    rng = random.Random(seed)
    now = datetime.now(UTC)
    player_actions, cpu = 0, 0.0
    for i in range(matches):
        state = new_match("house", f"work-{seed}-{i}", 0)
        meta = MatchMeta(
            f"m_work{i}", "house", "computer", difficulty, state.seed, 0, "active", 0,
            ["p_work", None], ["Work", None], "", None, 1, [0, 0], [0, 0], None, None, None, now, now,
        )  # fmt: skip
        bot = make_bot(difficulty, f"work-{seed}-{i}")
        view = view_payload(SeatUpdate(meta, state.view(0), (True, True)))
        started = time.process_time()
        while not state.is_over:
            if state.to_act == 0:
                state.apply(Action.from_wire(choose(view, rng)), 0)
                player_actions += 1
            else:
                state.apply(bot.choose(state.hand.view(1)), 1)
            view = view_payload(SeatUpdate(meta, state.view(0), (True, True)))
            msgspec.json.encode({"type": "state", "version": 0, "view": view})
        cpu += time.process_time() - started
    return {
        "matches": matches,
        "player_actions": player_actions,
        "cpu_ms_per_action": 1000 * cpu / player_actions,
    }


def _measure_memory_subprocess(matches: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "server.bench", "load", "--measure-memory", str(matches)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def summarize_profiles(paths: list[Path], top: int = 25) -> list[str]:
    """The functions where the servers spent their time (own time, then cumulative)."""
    import io
    import pstats

    if not paths:
        return []
    out = io.StringIO()
    stats = pstats.Stats(*(str(p) for p in paths), stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue().splitlines()


# --- the run ---------------------------------------------------------------------------------


async def gather_limited(
    aws: Iterable[Awaitable[Any]], limit: int, *, return_exceptions: bool = False
) -> list[Any]:
    """``asyncio.gather`` with at most ``limit`` awaitables running at once."""
    sem = asyncio.Semaphore(limit)

    async def one(aw: Awaitable[Any]) -> Any:
        async with sem:
            return await aw

    return list(await asyncio.gather(*(one(aw) for aw in aws), return_exceptions=return_exceptions))


@contextlib.asynccontextmanager
async def client_sessions(clients: int, url: str) -> AsyncIterator[list[aiohttp.ClientSession]]:
    """One client session per group of players, each bound to its own loopback address when
    the target is 127.0.0.1."""
    host = urlsplit(url).hostname
    groups = max(1, -(-clients // CLIENTS_PER_ADDRESS))
    sessions = []
    for g in range(groups):
        local = (f"127.0.0.{2 + g % 250}", 0) if host == "127.0.0.1" else None
        connector = aiohttp.TCPConnector(limit=0, local_addr=local)
        sessions.append(aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)))
    try:
        yield sessions
    finally:
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)


@dataclass
class Options:
    matches: int = 50
    duration: float = 15.0
    saturate: float = 10.0
    think: float = 1.0
    database: str = "sqlite"
    servers: int = 1
    server_urls: list[str] = field(default_factory=list)
    server_pids: list[int] = field(default_factory=list)
    difficulty: str = "normal"
    echo_duration: float = 10.0
    check_hidden: bool = False
    bot_delay: float = 0.0
    memory_matches: int = 200
    postgres_admin: str = DEFAULT_POSTGRES_ADMIN
    seed: int = 1
    json_path: str | None = None
    server_env: dict[str, str] = field(default_factory=dict)
    profile: str | None = None


async def run(opts: Options) -> dict[str, Any]:
    """The whole measurement; the report as a dict (also printed by :func:`main`)."""
    # The load generator's own collector pauses would show up as server latency: same
    # treatment as the server process (see server.__main__._settle_gc).
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
    report: dict[str, Any] = {
        "options": {
            k: v for k, v in opts.__dict__.items() if k not in ("json_path", "server_env", "postgres_admin")
        },
        "cores": os.cpu_count(),
    }
    with tempfile.TemporaryDirectory(prefix="gin-load-") as tmp:
        log_dir = Path(tmp)
        async with contextlib.AsyncExitStack() as stack:
            servers: list[Server] = [Server(u.rstrip("/")) for u in opts.server_urls]
            if not servers:
                if opts.database == "postgres":
                    database_url = await stack.enter_async_context(postgres_database(opts.postgres_admin))
                else:
                    database_url = f"sqlite+aiosqlite:///{log_dir / 'load.db'}"
                env = {"GINRUMMY_BOT_DELAY": str(opts.bot_delay), **opts.server_env}
                if opts.database == "postgres" and opts.servers > 1:
                    env.setdefault("GINRUMMY_BROADCAST", "postgres")
                profiles = [
                    Path(opts.profile) / f"server{i}.prof" if opts.profile else None
                    for i in range(opts.servers)
                ]
                if opts.profile:
                    Path(opts.profile).mkdir(parents=True, exist_ok=True)
                # The first one migrates the fresh database; the others start once it has.
                servers = [start_server(database_url, log_dir, env, profile=profiles[0])]
                stack.callback(stop_server, servers[0])
                await wait_healthy(servers[0].url, servers[0].process)
                others = {**env, "GINRUMMY_MIGRATE": "0"}
                servers += [start_server(database_url, log_dir, others, profile=p) for p in profiles[1:]]
                for s in servers[1:]:
                    stack.callback(stop_server, s)
                await asyncio.gather(*(wait_healthy(s.url, s.process) for s in servers[1:]))
            pids = [s.pid for s in servers if s.pid] or list(opts.server_pids)
            report["servers"] = [s.url for s in servers]
            report["game"] = await _play_phases(opts, servers, pids, report)
        logs = [s.log_path.read_text(errors="replace") for s in servers if s.log_path is not None]
        if logs:
            report["server_tracebacks"] = sum(text.count("Traceback") for text in logs)
        if opts.echo_duration > 0:
            report["echo"] = await echo_floor(opts.matches, opts.echo_duration, log_dir)
            # Hard's choice takes ~15 ms: fewer matches give as steady a figure.
            matches = 10 if opts.difficulty == "hard" else 100
            report["game_work"] = measure_game_work(opts.difficulty, matches, opts.seed)
    if opts.profile:
        report["profile"] = summarize_profiles(sorted(Path(opts.profile).glob("server*.prof")))
    if opts.memory_matches > 0:
        report["tracemalloc"] = await asyncio.to_thread(_measure_memory_subprocess, opts.memory_matches)
    report["verdict"] = verdict(report)
    return report


async def _play_phases(
    opts: Options, servers: list[Server], pids: list[int], report: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    control = Control(opts.think)
    rss_before = [rss_bytes(p) for p in pids]
    async with client_sessions(opts.matches, servers[0].url) as sessions:
        players = [
            Player(
                i,
                sessions[i // CLIENTS_PER_ADDRESS],
                servers[i % len(servers)].url,
                control,
                difficulty=opts.difficulty,
                keep_messages=opts.check_hidden,
                seed=opts.seed * 1_000_003 + i,
            )
            for i in range(opts.matches)
        ]
        started = time.perf_counter()
        results = await gather_limited([p.setup() for p in players], 50, return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        out["setup_seconds"] = round(time.perf_counter() - started, 2)
        out["setup_failures"] = len(failed)
        if failed:
            out["setup_failure_example"] = repr(failed[0])
        players = [p for p, r in zip(players, results) if not isinstance(r, BaseException)]
        tasks = [asyncio.ensure_future(p.play()) for p in players]

        cpu_start = [cpu_seconds(p) for p in pids], cpu_seconds()
        control.stats = paced = PhaseStats("paced")
        control.think = opts.think
        await asyncio.sleep(opts.duration)
        paced.close()
        cpu_paced = [cpu_seconds(p) for p in pids], cpu_seconds()
        rss_live = [rss_bytes(p) for p in pids]
        metrics_live = [await scrape_metrics(s.url) for s in servers]
        live_matches = sum(m.get("ginrummy_live_matches", 0) for m in metrics_live)
        out["paced"] = paced.report()
        out["paced"].update(_cpu_figures(cpu_start, cpu_paced, paced))
        out["live_matches"] = live_matches
        out["connections"] = sum(m.get("ginrummy_ws_connections", 0) for m in metrics_live)
        if all(r is not None for r in rss_before + rss_live) and pids:
            delta = sum(rss_live) - sum(rss_before)  # type: ignore[arg-type]
            out["rss"] = {
                "before_mb": round(sum(rss_before) / 2**20, 1),  # type: ignore[arg-type]
                "live_mb": round(sum(rss_live) / 2**20, 1),  # type: ignore[arg-type]
                "kb_per_live_match": delta / max(1, live_matches or len(players)) / 1024,
            }

        if opts.saturate > 0:
            cpu_start = [cpu_seconds(p) for p in pids], cpu_seconds()
            control.stats = saturated = PhaseStats("saturated")
            control.think = 0.0
            await asyncio.sleep(opts.saturate)
            saturated.close()
            cpu_end = [cpu_seconds(p) for p in pids], cpu_seconds()
            out["saturated"] = saturated.report()
            out["saturated"].update(_cpu_figures(cpu_start, cpu_end, saturated))

        control.stopping = True
        stop_phase = control.stats = PhaseStats("stopping")
        _, slow = await asyncio.wait(tasks, timeout=15)
        for t in slow:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        out["stuck_players"] = len(slow)
        out["failures"] = [p.failure for p in players if p.failure][:5]
        out["stopping_errors"] = dict(stop_phase.errors)

        metrics_end = [await scrape_metrics(s.url) for s in servers]
        commits = sum(m.get("ginrummy_commit_seconds_count", 0) for m in metrics_end)
        commit_sum = sum(m.get("ginrummy_commit_seconds_sum", 0) for m in metrics_end)
        bot_count = sum(m.get("ginrummy_bot_think_seconds_count", 0) for m in metrics_end)
        bot_sum = sum(m.get("ginrummy_bot_think_seconds_sum", 0) for m in metrics_end)
        out["server"] = {
            "commits": commits,
            "commit_mean_ms": 1000 * commit_sum / commits if commits else None,
            "bot_moves": bot_count,
            "bot_think_mean_ms": 1000 * bot_sum / bot_count if bot_count else None,
            "bot_lighter": sum(m.get("ginrummy_bot_lighter_total", 0) for m in metrics_end),
        }

        settled = await gather_limited([p.settle() for p in players], 50)
        out["acked_total"] = sum(a for a, _, _ in settled)
        out["lost"] = sum(lost for _, lost, _ in settled)
        out["lost_examples"] = [x for _, _, problems in settled for x in problems][:5]
        out["matches_checked"] = sum(len(p.acked) for p in players)
        if opts.check_hidden:
            checked = 0
            leaks: list[str] = []
            for p in players:
                for match_id, messages in p.messages.items():
                    record = p.records.get(match_id)
                    if record is None:
                        continue
                    leaks += hidden_card_leaks(record, [_decode(m) for m in messages], 0)
                    checked += len(messages)
            out["hidden"] = {"states_checked": checked, "leaks": len(leaks), "examples": leaks[:5]}
        await asyncio.gather(*(p.ws.close() for p in players if p.ws is not None), return_exceptions=True)
    return out


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    """Each target beside its figure: met, missed, or not measured."""
    game = report["game"]
    paced = game["paced"]
    saturated = game.get("saturated")
    echo = report.get("echo")
    opts = report["options"]
    out: dict[str, Any] = {}
    p99 = paced["ack_latency"]["p99_ms"]
    out["concurrent_matches"] = {"figure": game.get("live_matches"), "target": TARGETS["matches"]}
    out["p99_ack_ms"] = {
        "figure": p99,
        "target": TARGETS["p99_ack_ms"],
        "met": p99 is not None and p99 <= TARGETS["p99_ack_ms"],
    }
    errors = paced["error_count"] + (saturated["error_count"] if saturated else 0) + game["setup_failures"]
    out["errors"] = {"figure": errors, "target": 0, "met": errors == 0 and game["stuck_players"] == 0}
    out["lost_actions"] = {"figure": game["lost"], "target": 0, "met": game["lost"] == 0}
    if saturated and echo:
        ratio = saturated["actions_per_second"] / echo["round_trips_per_second"]
        out["floor_ratio"] = {"figure": ratio, "target": TARGETS["floor_ratio"], "met": ratio >= 0.30}
    per_match = [x for x in (game.get("rss", {}).get("kb_per_live_match"),) if x is not None]
    if "tracemalloc" in report:
        per_match.append(report["tracemalloc"]["bytes_per_match"] / 1024)
    if per_match:
        worst = max(per_match)
        out["kb_per_match"] = {"figure": worst, "target": TARGETS["kb_per_match"], "met": worst <= 100}
    out["at_target_scale"] = opts["matches"] >= TARGETS["matches"]
    return out


# --- printing ----------------------------------------------------------------------------------


def _ms(summary: dict[str, Any]) -> str:
    def f(x: Any) -> str:
        return "-" if x is None else f"{x:.1f}"

    return (
        f"p50 {f(summary['p50_ms'])} p95 {f(summary['p95_ms'])} p99 {f(summary['p99_ms'])} "
        f"max {f(summary['max_ms'])} ms (n={summary['count']})"
    )


def format_report(report: dict[str, Any]) -> str:
    o, g = report["options"], report["game"]
    lines = [
        f"load: {o['matches']} concurrent matches vs the computer ({o['difficulty']}), "
        f"database {o['database']}, {len(report['servers'])} server process(es), "
        f"think {o['think']} s, bot delay {o['bot_delay']} s, {report['cores']} cores",
        f"setup: {o['matches']} players, matches and sockets in {g['setup_seconds']} s "
        f"({g['setup_failures']} failed)",
    ]
    for name in ("paced", "saturated"):
        ph = g.get(name)
        if not ph:
            continue
        lines.append(
            f"{name} ({ph['seconds']} s): {ph['actions_per_second']:.0f} player actions/s acked, "
            f"{ph['matches_finished']} matches finished, errors {ph['error_count']} {ph['errors'] or ''}"
        )
        if ph.get("server_cores") is not None:
            per = ""
            if ph.get("server_cpu_ms_per_action") is not None:
                per = (
                    f"; per player action (with the computer's reply): server "
                    f"{ph['server_cpu_ms_per_action']:.2f} ms, load generator {ph['client_cpu_ms_per_action']:.2f} ms"
                )
            lines.append(
                f"  CPU: server {ph['server_cores']:.2f} cores, load generator {ph['client_cores']:.2f} cores{per}"
            )
        lines.append(f"  action -> ack:           {_ms(ph['ack_latency'])}")
        lines.append(f"  action -> computer reply: {_ms(ph['reply_latency'])}")
    lines.append(
        f"live on the server(s) after the paced phase: {g['live_matches']:.0f} matches, "
        f"{g['connections']:.0f} sockets"
    )
    s = g["server"]
    if s["commits"]:
        lines.append(
            f"server: {s['commits']:.0f} commits, mean {s['commit_mean_ms']:.2f} ms; "
            f"{s['bot_moves']:.0f} computer moves, mean think {s['bot_think_mean_ms'] or 0:.2f} ms"
            + (f", {s['bot_lighter']:.0f} made lighter (workers behind)" if s.get("bot_lighter") else "")
        )
    echo = report.get("echo")
    if echo:
        lines.append(
            f"echo floor (bare aiohttp WebSocket, {echo['clients']} clients, {echo['seconds']} s): "
            f"{echo['round_trips_per_second']:.0f} round trips/s, {_ms(echo['latency'])}"
        )
        if echo.get("server_cpu_ms_per_round_trip") is not None:
            lines.append(f"  CPU: echo server {echo['server_cpu_ms_per_round_trip']:.3f} ms per round trip")
        saturated = g.get("saturated")
        if saturated:
            ratio = saturated["actions_per_second"] / echo["round_trips_per_second"]
            lines.append(f"throughput / echo floor: {ratio:.2f}")
            echo_cpu, game_cpu = (
                echo.get("server_cpu_ms_per_round_trip"),
                saturated.get("server_cpu_ms_per_action"),
            )
            if echo_cpu and game_cpu:
                lines.append(
                    f"  server CPU per player action (its ack, its state and the computer's reply) / per "
                    f"echo round trip: {game_cpu / echo_cpu:.0f}x"
                )
            work = report.get("game_work")
            if echo_cpu and work:
                work_cpu = work["cpu_ms_per_action"]
                lines.append(
                    f"  of which the game work alone (rules, views, the computer's choice; in process, "
                    f"no socket, no database): {work_cpu:.3f} ms = {work_cpu / echo_cpu:.0f}x: "
                    f"throughput / echo floor <= {echo_cpu / work_cpu:.2f} even with free I/O and commits"
                )
    lines.append(
        f"lost actions: {g['lost']} of {g['acked_total']} acknowledged "
        f"({g['matches_checked']} matches checked against their records)"
        + (f" e.g. {g['lost_examples']}" if g["lost_examples"] else "")
    )
    if g["stuck_players"] or g["failures"]:
        lines.append(f"stuck players: {g['stuck_players']}; failures: {g['failures']}")
    if "hidden" in g:
        h = g["hidden"]
        lines.append(
            f"hidden cards: {h['leaks']} leaks in {h['states_checked']} state messages checked"
            + (f" e.g. {h['examples']}" if h["examples"] else "")
        )
    if "rss" in g:
        r = g["rss"]
        lines.append(
            f"memory: server RSS {r['before_mb']} -> {r['live_mb']} MB: "
            f"{r['kb_per_live_match']:.1f} KB per live match (with its socket)"
        )
    if "tracemalloc" in report:
        t = report["tracemalloc"]
        lines.append(
            f"memory: tracemalloc in-process: {t['bytes_per_match'] / 1024:.1f} KB per live match "
            f"({t['matches']} matches)"
        )
    if report.get("profile"):
        lines.append("server profile (cProfile, all server processes):")
        lines += ["  " + line for line in report["profile"]]
    if "server_tracebacks" in report:
        lines.append(f"tracebacks in the server logs: {report['server_tracebacks']}")
    lines.append("targets:")
    for name, v in report["verdict"].items():
        if isinstance(v, dict):
            met = v.get("met")
            mark = "-" if met is None else ("met" if met else "MISSED")
            fig = v["figure"]
            fig_s = f"{fig:.2f}" if isinstance(fig, float) else str(fig)
            lines.append(f"  {name}: {fig_s} (target {v['target']}) {mark}")
    if not report["verdict"]["at_target_scale"]:
        lines.append(f"  (this run is below the target scale of {TARGETS['matches']} matches)")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m server.bench load", description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=50, help="concurrent matches (default 50; target 1000)")
    p.add_argument("--duration", type=float, default=15.0, help="seconds of paced play (default 15)")
    p.add_argument("--saturate", type=float, default=10.0, help="seconds with no pause (default 10; 0: skip)")
    p.add_argument(
        "--think", type=float, default=1.0, help="mean pause before each action in the paced phase"
    )
    p.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("--servers", type=int, default=1, help="server processes to start (default 1)")
    p.add_argument("--server", action="append", default=[], help="URL of a running server (repeatable)")
    p.add_argument("--server-pid", type=int, action="append", default=[], help="its pid, for memory figures")
    p.add_argument("--difficulty", choices=("easy", "normal", "hard"), default="normal")
    p.add_argument("--echo-duration", type=float, default=10.0, help="seconds of echo floor (0: skip)")
    p.add_argument("--check-hidden", action="store_true", help="keep every state and check no hidden card")
    p.add_argument("--bot-delay", type=float, default=0.0, help="the computer's pause, in started servers")
    p.add_argument("--memory-matches", type=int, default=200, help="matches in the tracemalloc figure")
    p.add_argument("--postgres-admin", default=DEFAULT_POSTGRES_ADMIN, help="DSN to create the database with")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", dest="json_path", help="also write the report as JSON here")
    p.add_argument("--profile", help="run the started servers under cProfile, writing to this folder")
    p.add_argument("--serve-echo", type=int, help=argparse.SUPPRESS)
    p.add_argument("--measure-memory", type=int, help=argparse.SUPPRESS)
    return p


MAX_MATCHES = 5000
MAX_SECONDS = 600


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.serve_echo:
        serve_echo(args.serve_echo)
        return 0
    if args.measure_memory:
        print(json.dumps(asyncio.run(measure_service_memory(args.measure_memory))))
        return 0
    if not 1 <= args.matches <= MAX_MATCHES:
        print(f"error: --matches must be between 1 and {MAX_MATCHES}", file=sys.stderr)
        return 2
    for name in ("duration", "saturate", "echo_duration"):
        if not 0 <= getattr(args, name) <= MAX_SECONDS:
            print(f"error: --{name.replace('_', '-')} must be between 0 and {MAX_SECONDS}", file=sys.stderr)
            return 2
    if args.duration <= 0:
        print("error: --duration must be positive", file=sys.stderr)
        return 2
    for url in args.server:
        if urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
            print(f"error: loopback only: {url}", file=sys.stderr)
            return 2
    opts = Options(
        matches=args.matches,
        duration=args.duration,
        saturate=args.saturate,
        think=args.think,
        database=args.database,
        servers=max(1, args.servers),
        server_urls=args.server,
        server_pids=args.server_pid,
        difficulty=args.difficulty,
        echo_duration=args.echo_duration,
        check_hidden=args.check_hidden,
        bot_delay=args.bot_delay,
        memory_matches=args.memory_matches,
        postgres_admin=args.postgres_admin,
        seed=args.seed,
        json_path=args.json_path,
        profile=args.profile,
    )
    report = asyncio.run(run(opts))
    print(format_report(report))
    if opts.json_path:
        Path(opts.json_path).write_text(json.dumps(report, indent=2, default=str))
    return 0
