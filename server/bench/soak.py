"""``python -m server.bench soak``: well-behaved players under hostile load, a replica killed.

Loopback only, bounded in count and time. Two server processes (replicas) on one fresh Postgres
database (LISTEN/NOTIFY between them). ``--matches`` well-behaved matches are played for
``--seconds`` (half against the computer, through the load package's scripted players; half
human against human, each seat on its own replica) while ``--hostile`` clients, each from its
own loopback address, send bad input round after round: malformed and deeply nested frames,
oversized frames, NUL characters in ids and names, a repeated action id with another action,
floods over the rate limit, slow readers (never read), idle sockets that never say hello and
random tokens on REST. At 40% of the run replica 0 is killed with ``kill -9`` and started again
on its port; at 70% a Postgres backend of replica 1 (its LISTEN connection when it has one) is
terminated with ``pg_terminate_backend``.

It prints the well-behaved actions acknowledged, those lost (acknowledged but not in the final
record: must be 0), those answered with an error (must be 0, bar ``stale_version`` within
``KILL_WINDOW`` seconds of the restart: the protocol says a stale version is followed at once
by a state to resync on, and an action in flight across a reconnect may meet one), the hostile
inputs by kind and their answers, and the tracebacks in the servers' logs. It exits 1 on a
loss, a victim error, a traceback or a hostile kind never sent.

Expect, on two shared cores, with the defaults (60 s, 20 matches, 20 hostile clients): 3,300
to 4,400 acknowledged actions, 0 lost, 0 victim errors, each hostile kind sent 200 to 370 times,
serving again 1 to 3 s after the kill, no traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import secrets
import signal
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from server.bench import load
from server.bench.hostile import KINDS, WS, Hostile, rest, ws_url

DROPPED = "message failed: the database is unreachable"
"""Logged (a warning, no traceback) when a message meets a database connection that the soak's
terminated Postgres backend took away mid-statement: the client is answered ``unavailable`` and
may send it again. Counted and printed, not a failure."""


KILL_WINDOW = 10.0
"""Seconds after the killed replica is healthy again in which ``stale_version`` is allowed."""
ENV = {"GINRUMMY_BOT_DELAY": "0", "GINRUMMY_BROADCAST": "postgres", "GINRUMMY_LOG_LEVEL": "info"}


class Tally:
    """The run's shared tallies: the well-behaved side's errors by code (and those allowed), the
    hostile inputs sent by kind and their answers; and the run's stop."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self.sent: Counter[str] = Counter()
        self.answers: dict[str, Counter[str]] = defaultdict(Counter)
        self.errors: Counter[str] = Counter()
        self.allowed: Counter[str] = Counter()
        self.resent = 0  # messages answered ``unavailable`` and sent again
        self.window: tuple[float, float] | None = None  # (kill, end of the allowance)

    def error(self, code: str) -> None:
        w = self.window
        if code == "stale_version" and w is not None and w[0] <= time.monotonic() <= w[1]:
            self.allowed[code] += 1
        else:
            self.errors[code] += 1


class Seat:
    """One human seat of a match against a human: one socket, moving to the other replica when
    its own dies; acts on its turn only, keeps what was acknowledged."""

    _ids = itertools.count(1)

    def __init__(self, session: aiohttp.ClientSession, urls: list[str], token: str, think: float) -> None:
        self.session, self.urls, self.token, self.think = session, urls, token, think
        self.rng = random.Random(secrets.randbits(32))
        self.acked: dict[str, list[tuple[int, dict[str, Any]]]] = defaultdict(list)

    async def play(self, match_id: str, victims: Tally, stop: asyncio.Event) -> None:
        pending: tuple[str, dict[str, Any]] | None = None
        acted_on = -1
        deadline = time.monotonic() + 60
        for attempt in itertools.count():
            try:
                ws = await self.session.ws_connect(ws_url(self.urls[attempt % 2]), autoping=True)
            except (aiohttp.ClientError, OSError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
                continue
            async with ws:
                await ws.send_json({"type": "hello", "match": match_id, "token": self.token})
                pending, acted_on = None, -1
                while True:
                    try:
                        msg = await ws.receive(timeout=1)
                    except TimeoutError:
                        if stop.is_set() and pending is None:
                            return
                        continue
                    if msg.type not in (WS.TEXT, WS.BINARY):
                        break
                    data = json.loads(msg.data)
                    if data["type"] == "ack" and pending and data["id"] == pending[0]:
                        self.acked[match_id].append((data["version"], pending[1]))
                        pending = None
                    elif data["type"] == "error" and data["code"] == "unavailable":
                        # As the protocol asks: the same message again, the same id for an act.
                        victims.resent += 1
                        await asyncio.sleep(0.2)
                        again: dict[str, Any] = {"type": "hello", "match": match_id, "token": self.token}
                        if pending:
                            again = {
                                "type": "act",
                                "id": pending[0],
                                "version": acted_on,
                                "action": pending[1],
                            }
                        with contextlib.suppress(ConnectionError):
                            await ws.send_json(again)
                    elif data["type"] == "error":
                        victims.error(data["code"])
                        pending = None
                    elif data["type"] == "state":
                        view = data["view"]
                        if view["status"] == "finished":
                            return
                        legal = view["hand"]["legal_actions"]
                        if not legal or pending or data["version"] == acted_on:
                            continue
                        if stop.is_set():
                            return
                        acted_on = data["version"]
                        await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
                        action = load.choose(view, self.rng)
                        pending = (f"h{next(self._ids)}", action)
                        act = {"type": "act", "id": pending[0], "version": acted_on, "action": action}
                        with contextlib.suppress(ConnectionError):
                            await ws.send_json(act)
            if stop.is_set() and pending is None:
                return
            await asyncio.sleep(0.1)  # closed (the replica died): hello again, elsewhere


async def human_pair(
    session: aiohttp.ClientSession, urls: list[str], think: float, victims: Tally, stop: asyncio.Event
) -> tuple[int, int, list[str]]:
    """Matches between two humans, one after another until ``stop``; each seat on its own
    replica. Returns (acked, lost, problems) after checking every record."""
    ada_p = await rest(session, "POST", f"{urls[0]}/api/players", name="Soak Ada")
    bob_p = await rest(session, "POST", f"{urls[1]}/api/players", name="Soak Bob")
    ada = Seat(session, urls, ada_p["token"], think)
    bob = Seat(session, urls[::-1], bob_p["token"], think)
    matches: list[str] = []
    while not stop.is_set():
        try:
            m = await rest(session, "POST", f"{urls[0]}/api/matches", ada.token, opponent="human")
            invite = m["invite"]["code"]
            await rest(
                session, "POST", f"{urls[1]}/api/matches/{m['match_id']}/join", bob.token, invite=invite
            )
        except (RuntimeError, aiohttp.ClientError, OSError):
            urls = urls[::-1]  # a replica is down: create through the other
            await asyncio.sleep(0.5)
            continue
        matches.append(m["match_id"])
        await asyncio.gather(ada.play(m["match_id"], victims, stop), bob.play(m["match_id"], victims, stop))
    acked = lost = 0
    problems: list[str] = []
    for mid in matches:
        with contextlib.suppress(RuntimeError):
            await rest(session, "POST", f"{urls[0]}/api/matches/{mid}/resign", ada.token)
        record = await rest(session, "GET", f"{urls[0]}/api/matches/{mid}/record", ada.token)
        flat = [(a["seat"], a["action"]) for hand in record["hands"] for a in hand["actions"]]
        for seat, who in ((0, ada), (1, bob)):
            for version, action in who.acked[mid]:
                acked += 1
                if not (1 < version <= len(flat) + 1 and flat[version - 2] == (seat, action)):
                    lost += 1  # version 1 is the join: the action at version v is flat[v - 2]
                    problems.append(f"{mid}: seat {seat}'s acked action at version {version} missing")
    return acked, lost, problems


def backend_ports(pid: int) -> set[int]:
    """The local ports of ``pid``'s TCP connections to port 5432 (from /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = fd.readlink().name
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[9] in inodes and f[2].endswith(":1538"):
                ports.add(int(f[1].rsplit(":", 1)[1], 16))
    return ports


async def terminate_backend(admin_dsn: str, database: str, pid: int) -> str:
    conn = await asyncpg.connect(admin_dsn, timeout=5)
    try:
        rows = await conn.fetch(
            "SELECT pid, query FROM pg_stat_activity WHERE datname = $1 AND client_port = ANY($2::int[]) "
            "ORDER BY (query ILIKE 'LISTEN%') DESC",
            database,
            list(backend_ports(pid)),
        )
        if not rows:
            return "no backend found"
        ok = await conn.fetchval("SELECT pg_terminate_backend($1)", rows[0]["pid"])
        return f"terminated={ok} (of {len(rows)}; its last query: {rows[0]['query'][:40]!r})"
    finally:
        await conn.close()


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"seconds": args.seconds, "matches": args.matches, "hostile": args.hostile}
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="gin-soak-") as tmp:
        log_dir = Path(tmp)
        async with load.postgres_database(args.postgres_admin) as db_url:
            servers = [load.start_server(db_url, log_dir, ENV) for _ in range(2)]
            try:
                await asyncio.gather(*(load.wait_healthy(s.url, s.process) for s in servers))
                out.update(await drive(args, servers, db_url, log_dir, tally))
            finally:
                for s in servers:
                    load.stop_server(s)
            logs = [p.read_text(errors="replace") for p in sorted(log_dir.glob("server-*.log"))]
    # Any traceback fails the run; the first are kept whole, to be read.
    out["tracebacks"], out["traceback_lines"] = load.tracebacks(logs)
    lines = [ln for t in logs for ln in t.splitlines()]
    out["dropped_connection_messages"] = sum(DROPPED in ln for ln in lines)
    out["resent"] = tally.resent
    out["victim_errors"], out["allowed_errors"] = dict(tally.errors), dict(tally.allowed)
    out["hostile_sent"] = dict(tally.sent)
    out["hostile_answers"] = {k: dict(v) for k, v in tally.answers.items()}
    return out


async def drive(
    args: argparse.Namespace, servers: list[load.Server], db_url: str, log_dir: Path, tally: Tally
) -> dict[str, Any]:
    urls, victims, stop, sent, answers = (
        [s.url for s in servers],
        tally,
        tally.stop,
        tally.sent,
        tally.answers,
    )
    out: dict[str, Any] = {}
    control = load.Control(think=args.think)
    computer = (args.matches + 1) // 2
    async with contextlib.AsyncExitStack() as stack:
        sessions = await stack.enter_async_context(load.client_sessions(computer + 2, urls[0]))
        players = [
            load.Player(
                i,
                sessions[i // load.CLIENTS_PER_ADDRESS],
                urls[i % 2],
                control,
                difficulty="normal",
                keep_messages=False,
                seed=i,
            )
            for i in range(computer)
        ]
        await load.gather_limited([p.setup() for p in players], 20)
        for p in players:
            p.urls, p.reconnect_for = [p.base, urls[1 - p.index % 2]], 60.0
        human_session = sessions[-1]
        hostile_sessions = [
            await stack.enter_async_context(
                aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(local_addr=(f"127.0.1.{1 + i % 250}", 0))
                )
            )
            for i in range(args.hostile)
        ]
        hostiles = [Hostile(i, urls, sent, answers) for i in range(args.hostile)]
        control.stats = before = load.PhaseStats("before")
        tasks = [asyncio.ensure_future(p.play()) for p in players]
        pairs = [
            asyncio.ensure_future(human_pair(human_session, urls, args.think, victims, stop))
            for _ in range(args.matches - computer)
        ]
        attacks = [asyncio.ensure_future(h.run(s, stop)) for h, s in zip(hostiles, hostile_sessions)]
        started = time.monotonic()
        await asyncio.sleep(args.seconds * 0.4)
        killed = servers[0]
        assert killed.process is not None
        killed.process.send_signal(signal.SIGKILL)
        killed.process.wait(10)
        control.stats = window = load.PhaseStats("window")
        victims.window = (time.monotonic(), time.monotonic() + 120)
        port = int(killed.url.rsplit(":", 1)[1])
        servers[0] = load.start_server(db_url, log_dir, {**ENV, "GINRUMMY_MIGRATE": "0"}, port=port)
        await load.wait_healthy(servers[0].url, servers[0].process)
        out["healthy_after_kill_s"] = round(time.monotonic() - victims.window[0], 1)
        victims.window = (victims.window[0], time.monotonic() + KILL_WINDOW)
        after = load.PhaseStats("after")
        asyncio.get_running_loop().call_later(KILL_WINDOW, setattr, control, "stats", after)
        await asyncio.sleep(max(0.0, started + args.seconds * 0.7 - time.monotonic()))
        assert servers[1].pid is not None
        out["pg_terminate"] = await terminate_backend(
            args.postgres_admin, db_url.rsplit("/", 1)[1], servers[1].pid
        )
        await asyncio.sleep(max(0.0, started + args.seconds - time.monotonic()))
        stop.set()
        control.stopping = True
        crashed = await asyncio.gather(*attacks, return_exceptions=True)
        out["hostile_crashes"] = [repr(e) for e in crashed if e is not None]
        _, stuck = await asyncio.wait(tasks, timeout=30)
        for t in stuck:
            t.cancel()
        out["stuck_players"] = len(stuck)
        out["failures"] = [p.failure for p in players if p.failure]
        for phase in (before, window, after):
            victims.resent += phase.resent
            for code, n in phase.errors.items():
                allowed = phase is window and code == "stale_version"
                (victims.allowed if allowed else victims.errors)[code] += n
        settled = await load.gather_limited([p.settle() for p in players], 20)
        paired = await asyncio.wait_for(asyncio.gather(*pairs), 60)
        results = settled + paired
        out["acked"] = sum(a for a, _, _ in results)
        out["lost"] = sum(n for _, n, _ in results)
        out["lost_examples"] = [x for _, _, problems in results for x in problems][:5]
        await asyncio.gather(*(p.ws.close() for p in players if p.ws is not None), return_exceptions=True)
    return out


def format_report(r: dict[str, Any]) -> str:
    lines = [
        f"soak: {r['seconds']} s, {r['matches']} well-behaved matches on 2 replicas, {r['hostile']} hostile clients",
        f"replica 0 killed (-9) and serving again after {r['healthy_after_kill_s']} s; "
        f"replica 1's Postgres backend: {r['pg_terminate']}",
        f"well-behaved actions acknowledged: {r['acked']}; lost: {r['lost']}"
        + (f" e.g. {r['lost_examples']}" if r["lost_examples"] else ""),
        f"answered with an error: {r['victim_errors'] or 'none'}; allowed (stale_version within "
        f"{KILL_WINDOW:.0f} s of the restart): {r['allowed_errors'] or 'none'}; stuck: {r['stuck_players']}; "
        f"failures: {r['failures'] or 'none'}; hostile clients crashed: {r['hostile_crashes'] or 'none'}",
        "hostile inputs sent, and their answers:",
    ]
    for kind in KINDS:
        got = ", ".join(f"{a}: {n}" for a, n in sorted(r["hostile_answers"].get(kind, {}).items()))
        lines.append(f"  {kind}: {r['hostile_sent'].get(kind, 0)} sent; {got or 'no answer'}")
    lines.append(
        f"messages answered unavailable on a connection the terminated backend dropped: "
        f"{r['dropped_connection_messages']}; sent again by the well-behaved: {r['resent']}"
    )
    lines.append(
        f"tracebacks in the servers' logs: {r['tracebacks']}"
        + "".join(f"\n  {x}" for x in r["traceback_lines"])
    )
    return "\n".join(lines)


def verdict(r: dict[str, Any]) -> list[str]:
    problems = [f"{r['lost']} lost"] if r["lost"] else []
    problems += [f"victim errors {r['victim_errors']}"] if r["victim_errors"] else []
    problems += [f"failures {r['failures']}"] if r["failures"] or r["stuck_players"] else []
    problems += [f"{r['tracebacks']} tracebacks"] if r["tracebacks"] else []
    problems += [f"hostile clients crashed: {r['hostile_crashes']}"] if r["hostile_crashes"] else []
    problems += [f"never sent: {k}" for k in KINDS if not r["hostile_sent"].get(k)]
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m server.bench soak",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n")[-1],
    )
    p.add_argument("--seconds", type=float, default=60.0, help="length of the run (default 60; at most 600)")
    p.add_argument("--matches", type=int, default=20, help="well-behaved matches at once (default 20)")
    p.add_argument("--hostile", type=int, default=20, help="hostile clients (default 20; at most 250)")
    p.add_argument(
        "--think", type=float, default=0.2, help="well-behaved players' mean pause (default 0.2 s)"
    )
    p.add_argument("--postgres-admin", default=load.DEFAULT_POSTGRES_ADMIN)
    p.add_argument("--json", dest="json_path", help="also write the figures as JSON here")
    args = p.parse_args(argv)
    if not 5 <= args.seconds <= 600 or not 2 <= args.matches <= 500 or not 1 <= args.hostile <= 250:
        p.error("bounded: 5 to 600 seconds, 2 to 500 matches, 1 to 250 hostile clients")
    r = asyncio.run(soak(args))
    print(format_report(r))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(r, indent=2))
    problems = verdict(r)
    if problems:
        print("FAILED: " + "; ".join(problems))
    return 1 if problems else 0
