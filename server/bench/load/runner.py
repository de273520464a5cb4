"""The whole load run: start (or target) the servers, play the paced and saturated phases,
settle and check the matches, then the echo floor and the in-process measurements."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.bench.load.clients import CLIENTS_PER_ADDRESS, _decode, client_sessions, gather_limited
from server.bench.load.echo import echo_floor
from server.bench.load.figures import PhaseStats
from server.bench.load.hidden import hidden_card_leaks
from server.bench.load.measure import (
    _cpu_figures,
    _measure_memory_subprocess,
    cpu_seconds,
    measure_game_work,
    rss_bytes,
    summarize_profiles,
)
from server.bench.load.players import Control, Player
from server.bench.load.report import verdict
from server.bench.load.servers import DEFAULT_POSTGRES_ADMIN, Server, scrape_metrics, started_servers


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
    deflate: bool = True
    """The players offer permessage-deflate, as browsers do."""


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
                profiles: list[Path | None] = [
                    Path(opts.profile) / f"server{i}.prof" if opts.profile else None
                    for i in range(opts.servers)
                ]
                if opts.profile:
                    Path(opts.profile).mkdir(parents=True, exist_ok=True)
                env = {"GINRUMMY_BOT_DELAY": str(opts.bot_delay), **opts.server_env}
                servers = await stack.enter_async_context(
                    started_servers(
                        opts.database,
                        opts.servers,
                        log_dir,
                        env,
                        postgres_admin=opts.postgres_admin,
                        profiles=profiles,
                    )
                )
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


async def set_up_and_play(
    players: list[Player], at_once: int = 50
) -> tuple[list[BaseException | None], list[asyncio.Future[None]]]:
    """Set up every player, ``at_once`` at a time, each playing from the moment its own setup
    is done; each setup's result (None or its error) and the players' play tasks.

    Playing at once, each player reads its socket (and answers the server's pings) from then
    on: left unread until every setup was done (over 30 s at a few thousand matches), the first
    were dropped by the server's heartbeat. Their moves meanwhile count in the "setup" phase."""
    tasks: list[asyncio.Future[None]] = []

    async def set_up(p: Player) -> None:
        await p.setup()
        tasks.append(asyncio.ensure_future(p.play()))

    return await gather_limited([set_up(p) for p in players], at_once, return_exceptions=True), tasks


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
        for p in players:
            p.deflate = opts.deflate
        started = time.perf_counter()
        results, tasks = await set_up_and_play(players)
        failed = [r for r in results if isinstance(r, BaseException)]
        out["setup_seconds"] = round(time.perf_counter() - started, 2)
        out["setup_failures"] = len(failed)
        if failed:
            out["setup_failure_example"] = repr(failed[0])
        players = [p for p, r in zip(players, results) if not isinstance(r, BaseException)]

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
