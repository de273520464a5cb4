"""Quick pairing under load: ``python -m server.bench seeks --seekers 500``.

Starts two server processes on one fresh Postgres database (``GINRUMMY_BROADCAST=postgres``: a
pairing made on one reaches a seeker on the other by LISTEN/NOTIFY), or, when Postgres cannot be
reached (or with ``--database sqlite``), one process on a SQLite file. Creates the players, opens
one lobby socket each (alternating between the servers), then sends their seeks at ``--rate``
seeks a second, all for the same rules, clock and rating by default (one pool: the hardest
case, every placement waits for the pool's lock), or spread over ``--pools`` pools.

The figure is the pairing latency **once a partner exists**: for each match, for each of its
two seekers, the time from when the later of the two seeks was sent to when that seeker heard
``paired``. It then checks every seeker is in exactly one match: each got ``paired`` once, each
match id names exactly two seekers (seats 0 and 1), each seeker's match has it in its seat
(read back over REST with its own token), and nobody is left seeking.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import aiohttp

from server.bench.load.clients import CLIENTS_PER_ADDRESS, client_sessions, gather_limited
from server.bench.load.figures import latency_summary
from server.bench.load.servers import DEFAULT_POSTGRES_ADMIN, started_servers

TIME_CONTROL = {"kind": "realtime", "move_seconds": 20, "bank_seconds": 120}
CLOCKS = [None, TIME_CONTROL, {"kind": "correspondence", "move_seconds": 86400, "bank_seconds": 0}]
POOLS = [
    {"rules": rules, "rated": rated, **({"time_control": tc} if tc else {})}
    for rated in (True, False)
    for tc in (TIME_CONTROL, None, CLOCKS[2])
    for rules in ("house", "classic", "oklahoma")
]
"""Every pool a seek can be in (preset, clock, rated): with ``--pools K`` the seekers are spread
over the first K, two by two (the first, K=1, is rated house 20+120)."""


async def _postgres_reachable(admin: str) -> bool:
    import asyncpg

    try:
        conn = await asyncpg.connect(admin, timeout=3)
    except (OSError, asyncpg.PostgresError):
        return False
    await conn.close()
    return True


class Seeker:
    def __init__(self, index: int, session: aiohttp.ClientSession, base: str) -> None:
        self.index = index
        self.session = session
        self.base = base
        self.token = ""
        self.player_id = ""
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.sent_at: float | None = None
        self.paired_at: float | None = None
        self.paired: list[dict[str, Any]] = []
        self.errors: list[str] = []

    async def setup(self) -> None:
        async with self.session.post(self.base + "/api/players", json={"name": f"Seeker {self.index}"}) as r:
            body = await r.json()
            if r.status != 201:
                raise RuntimeError(f"creating a player: {r.status} {body}")
        self.token, self.player_id = body["token"], body["player_id"]
        # As a player in the lobby has already been seen by the server (its session touched).
        async with self.session.get(
            self.base + "/api/me", headers={"Authorization": f"Bearer {self.token}"}
        ) as r:
            await r.read()
        self.ws = await self.session.ws_connect(self.base.replace("http", "ws", 1) + "/ws/lobby")

    async def seek(self, pool: dict[str, Any]) -> None:
        assert self.ws is not None
        self.sent_at = time.perf_counter()
        await self.ws.send_json({"type": "seek", "token": self.token, **pool})

    async def listen(self, timeout: float) -> None:
        assert self.ws is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                async for msg in self.ws:
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    data = json.loads(msg.data)
                    if data["type"] == "paired":
                        self.paired_at = self.paired_at or time.perf_counter()
                        self.paired.append(data)
                        return
                    if data["type"] == "error":
                        self.errors.append(f"{data['code']}: {data['message']}")
                        return


async def run(
    seekers: int, rate: float, database: str, admin: str, wait: float, log_dir: Path, pools: int = 1
) -> dict[str, Any]:
    if database == "auto":
        database = "postgres" if await _postgres_reachable(admin) else "sqlite"
    replicas = 2 if database == "postgres" else 1
    async with started_servers(database, replicas, log_dir, {}, postgres_admin=admin) as servers:
        return await _measure(seekers, rate, wait, [s.url for s in servers], database, pools)


async def _measure(
    n: int, rate: float, wait: float, urls: list[str], database: str, pools: int
) -> dict[str, Any]:
    async with client_sessions(n, urls[0]) as sessions:
        seekers = [Seeker(i, sessions[i // CLIENTS_PER_ADDRESS], urls[i % len(urls)]) for i in range(n)]
        await gather_limited((s.setup() for s in seekers), 50)
        listeners = [asyncio.ensure_future(s.listen(wait)) for s in seekers]
        began = time.perf_counter()
        for i, s in enumerate(seekers):
            delay = began + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            await s.seek(POOLS[(i // 2) % pools])
        await asyncio.gather(*listeners)
        seeking_time = time.perf_counter() - began
        async with sessions[0].get(urls[0] + "/api/lobby") as r:
            left_seeking = (await r.json())["seeking"]
        by_match: dict[str, list[tuple[Seeker, dict[str, Any]]]] = defaultdict(list)
        for s in seekers:
            for p in s.paired:
                by_match[p["match_id"]].append((s, p))
        latencies: list[float] = []
        problems: list[str] = []
        for match_id, pair in by_match.items():
            if len(pair) != 2 or {p["seat"] for _, p in pair} != {0, 1} or pair[0][0] is pair[1][0]:
                problems.append(f"match {match_id} has {len(pair)} seekers")
                continue
            partner_exists = max(s.sent_at or 0.0 for s, _ in pair)
            latencies.extend((s.paired_at or 0.0) - partner_exists for s, _ in pair)
        unpaired = [s.index for s in seekers if len(s.paired) != 1]
        errors = [e for s in seekers for e in s.errors]

        async def check(s: Seeker) -> str | None:
            if len(s.paired) != 1:
                return None
            p = s.paired[0]
            headers = {"Authorization": f"Bearer {s.token}"}
            async with s.session.get(f"{s.base}/api/matches/{p['match_id']}", headers=headers) as r:
                body = await r.json()
            seat = body.get("seat")
            if r.status != 200 or seat != p["seat"] or body["players"][seat]["name"] != f"Seeker {s.index}":
                return f"seeker {s.index} is not in seat {p['seat']} of {p['match_id']}"
            return None

        problems += [p for p in await gather_limited((check(s) for s in seekers), 50) if p]
        for s in seekers:
            if s.ws is not None:
                await s.ws.close()
    return {
        "database": database,
        "replicas": len(urls),
        "seekers": n,
        "rate_per_second": rate,
        "pools": pools,
        "seconds": round(seeking_time, 2),
        "matches": len(by_match),
        "unpaired": len(unpaired),
        "errors": errors[:10],
        "problems": problems[:10],
        "left_seeking": left_seeking,
        "pairing_once_partner_exists": latency_summary(latencies),
        "ok": not unpaired and not problems and not errors and left_seeking == 0 and len(by_match) * 2 == n,
    }


def format_report(r: dict[str, Any]) -> str:
    lat = r["pairing_once_partner_exists"]

    def ms(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f} ms"

    return "\n".join(
        [
            f"quick pairing: {r['seekers']} seekers on {r['replicas']} replica(s), {r['database']},"
            f" {r['rate_per_second']:.0f} seeks/s, {r['pools']} pool(s)"
            + (" (rated house 20+120)" if r["pools"] == 1 else ""),
            f"pairing once a partner exists: p50 {ms(lat['p50_ms'])}, p95 {ms(lat['p95_ms'])},"
            f" p99 {ms(lat['p99_ms'])}, max {ms(lat['max_ms'])} ({lat['count']} seekers)",
            f"matches {r['matches']}, unpaired {r['unpaired']}, left seeking {r['left_seeking']},"
            f" errors {len(r['errors'])}, problems {len(r['problems'])}",
            *r["errors"],
            *r["problems"],
            "every seeker in exactly one match: " + ("yes" if r["ok"] else "NO"),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m server.bench seeks", description=__doc__.split("\n")[0])
    p.add_argument("--seekers", type=int, default=500, help="how many seek (even; default 500)")
    p.add_argument("--rate", type=float, default=250.0, help="seeks sent per second (default 250)")
    p.add_argument("--database", choices=("auto", "postgres", "sqlite"), default="auto")
    p.add_argument("--postgres-admin", default=DEFAULT_POSTGRES_ADMIN)
    p.add_argument(
        "--pools", type=int, default=1, help=f"spread the seekers over this many pools (1 to {len(POOLS)})"
    )
    p.add_argument("--wait", type=float, default=60.0, help="seconds each seeker waits at most")
    p.add_argument("--json", dest="json_path", help="also write the figures as JSON here")
    args = p.parse_args(argv)
    if not 2 <= args.seekers <= 5000 or args.seekers % 2 or not 0 < args.rate <= 10000:
        p.error("--seekers: an even number from 2 to 5000; --rate: up to 10000 a second")
    if not 1 <= args.pools <= len(POOLS):
        p.error(f"--pools: 1 to {len(POOLS)}")
    with tempfile.TemporaryDirectory(prefix="gin-seeks-") as tmp:
        report = asyncio.run(
            run(args.seekers, args.rate, args.database, args.postgres_admin, args.wait, Path(tmp), args.pools)
        )
    print(format_report(report))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
