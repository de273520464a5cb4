"""``python -m server.bench restart``: a server killed with ``kill -9`` under load, then started
again on the same database. How long until it serves again, and until every player is back.

Loopback only, bounded in count and time. It starts one server (SQLite in a temporary folder,
or a fresh Postgres database with ``--database postgres``), lets ``--matches`` scripted players
play against the computer for ``--before`` seconds at a human pace (``--think``), kills the
server, starts it again on the same port and database, and waits until every player has had
an action acknowledged by the new process. Then it checks every acknowledged action against
the final record of its match. It prints: actions acknowledged before and after, lost actions,
seconds from the kill until health checks pass, and until 50/90/99/100% of the players are
back (and the new server's CPU seconds by each of those moments), how health probes fared
meanwhile (:mod:`server.bench.health_probe`), and the errors after the restart.
``tests/scale/test_kill.py`` runs it small and holds it to 0 lost, every match resumed, every
health probe answered, no traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from server.bench import health_probe, load
from server.bench.load import measure

BACK = (0.5, 0.9, 0.99, 1.0)
"""Fractions of the players whose return is timed."""


async def kill_and_restart(
    database_url: str,
    log_dir: Path,
    *,
    matches: int,
    think: float,
    before: float,
    wait: float = 60.0,
    play_on: float = 0.0,
) -> dict[str, Any]:
    """The figures of one kill and restart (see the module docstring); ``wait``: seconds to
    wait for every player to be back; ``play_on``: seconds of play after that."""
    port = load.free_port()
    env = {"GINRUMMY_BOT_DELAY": "0"}
    server = load.start_server(database_url, log_dir, env, port=port)
    restarted: load.Server | None = None
    control = load.Control(think=think)
    out: dict[str, Any] = {"matches": matches, "think": think}
    try:
        await load.wait_healthy(server.url, server.process)
        async with load.client_sessions(matches, server.url) as sessions:
            players = [
                load.Player(
                    i,
                    sessions[i // load.CLIENTS_PER_ADDRESS],
                    server.url,
                    control,
                    difficulty="normal",
                    keep_messages=False,
                    seed=i,
                )
                for i in range(matches)
            ]
            await load.gather_limited([p.setup() for p in players], 50)
            for p in players:
                p.reconnect_for = wait
            control.stats = first = load.PhaseStats("before")
            tasks = [asyncio.ensure_future(p.play()) for p in players]
            await asyncio.sleep(before)

            process = server.process
            assert process is not None  # start_server's servers always have one
            process.send_signal(signal.SIGKILL)
            process.wait(10)
            killed_at = time.perf_counter()
            control.stats = after = load.PhaseStats("after")
            restarted = load.start_server(database_url, log_dir, env, port=port)
            await load.wait_healthy(restarted.url, restarted.process)
            out["healthy_after_s"] = time.perf_counter() - killed_at
            prober = await asyncio.to_thread(health_probe.start, restarted.url)
            try:
                back: dict[float, float] = {}
                cpu: dict[float, float | None] = {}
                assert restarted.process is not None  # (as above)
                pid = restarted.process.pid
                deadline = time.perf_counter() + wait
                while len(back) < len(BACK) and time.perf_counter() < deadline:
                    n = sum(1 for p in players if p.acks_by_phase["after"])
                    for q in BACK:
                        if q not in back and n >= q * matches:
                            back[q] = time.perf_counter() - killed_at
                            cpu[q] = measure.cpu_seconds(pid)
                    await asyncio.sleep(0.02)
            finally:
                out["probes"] = await asyncio.to_thread(health_probe.stop, prober)
            out["back_after_s"] = {f"{q:.0%}": back.get(q) for q in BACK}
            out["cpu_by_then_s"] = {f"{q:.0%}": cpu.get(q) for q in BACK}
            out["players_back"] = sum(1 for p in players if p.acks_by_phase["after"])
            await asyncio.sleep(play_on)

            control.stopping = True
            # A player may be in a pause of up to 1.5 x think before it sees the stop.
            _, stuck = await asyncio.wait(tasks, timeout=15 + 1.5 * think)
            for t in stuck:
                t.cancel()
            out["stuck_players"] = len(stuck)
            out["failures"] = [repr(p.failure) for p in players if p.failure]
            out["reconnects"] = sum(p.reconnects for p in players)
            out["acked_before"], out["acked_after"] = first.acked, after.acked
            out["errors_after"] = dict(after.errors)
            settled = await load.gather_limited([p.settle() for p in players], 50)
            out["acked_checked"] = sum(a for a, _, _ in settled)
            out["lost"] = sum(lost for _, lost, _ in settled)
            out["lost_examples"] = [x for _, _, problems in settled for x in problems][:5]
            await asyncio.gather(*(p.ws.close() for p in players if p.ws is not None))
    finally:
        load.stop_server(server)
        if restarted is not None:
            load.stop_server(restarted)
    out["server_tracebacks"], out["traceback_lines"] = load.tracebacks(
        [(log_dir / f"server-{port}.log").read_text(errors="replace")]
    )
    return out


def format_report(r: dict[str, Any], database: str) -> str:
    back = ", ".join(
        f"{q} {s:.1f} s" if s is not None else f"{q} never" for q, s in r["back_after_s"].items()
    )
    cpu = ", ".join(f"{q} {s:.1f} s" for q, s in r["cpu_by_then_s"].items() if s is not None)
    return "\n".join(
        [
            f"restart: {r['matches']} matches vs the computer (normal), database {database}, "
            f"think {r['think']} s",
            f"acknowledged: {r['acked_before']} before the kill, {r['acked_after']} after; "
            f"lost: {r['lost']} of {r['acked_checked']}"
            + (f" e.g. {r['lost_examples']}" if r["lost_examples"] else ""),
            f"serving again {r['healthy_after_s']:.1f} s after the kill; players back "
            f"(an action acknowledged by the new process): {back}",
            f"the new server's CPU by then: {cpu or 'not measured'}",
            health_probe.report(r["probes"]),
            f"errors after: {r['errors_after'] or 'none'}; stuck players: {r['stuck_players']}; "
            f"failures: {len(r['failures'])}; tracebacks in the server log: {r['server_tracebacks']}",
            *r.get("traceback_lines", []),
        ]
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gin-restart-") as tmp:
        async with contextlib.AsyncExitStack() as stack:
            if args.database == "postgres":
                url = await stack.enter_async_context(load.postgres_database(args.postgres_admin))
            else:
                url = f"sqlite+aiosqlite:///{Path(tmp) / 'restart.db'}"
            return await kill_and_restart(
                url, Path(tmp), matches=args.matches, think=args.think, before=args.before, wait=args.wait
            )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m server.bench restart", description=__doc__.split("\n")[0])
    p.add_argument("--matches", type=int, default=200, help="concurrent matches (default 200)")
    p.add_argument("--think", type=float, default=1.0, help="players' mean pause, seconds (default 1)")
    p.add_argument("--before", type=float, default=10.0, help="seconds of play before the kill (default 10)")
    p.add_argument("--wait", type=float, default=60.0, help="seconds to wait for every player (default 60)")
    p.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    p.add_argument("--postgres-admin", default=load.DEFAULT_POSTGRES_ADMIN)
    p.add_argument("--json", dest="json_path", help="also write the figures as JSON here")
    args = p.parse_args(argv)
    if not 1 <= args.matches <= 10_000 or not 0 < args.before <= 600 or not 0 < args.wait <= 600:
        p.error("bounded: 1 to 10,000 matches, up to 600 s before the kill and of waiting")
    report = asyncio.run(run(args))
    print(format_report(report, args.database))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report, indent=2))
    return 0
