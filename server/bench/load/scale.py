"""The scale mode of the load benchmark: ``python -m server.bench load --scale 100,1000,3000,10000``.

For each number of live matches it starts a fresh server (SQLite in a temporary folder, on
loopback; or ``--database postgres`` on a fresh database, with ``--servers N`` replicas), has
load processes (:mod:`server.bench.load.scale_client`, at most ``per_client`` players each) set
the matches up against the computer, lets them play at a human pace (``think``, 5 s by default)
and, after a warm-up, measures over a window of ``duration`` seconds: server CPU per player
action (with the computer's reply), ack latency, the collector's pauses over 20 ms (from
``/metrics``, timed with ``gc.callbacks``) and the server's memory per live match (RSS growth
over the matches and their sockets).

With ``variants`` (``name:KEY=VALUE,...``; ``root=DIR`` runs the server from another checkout,
any other key is an environment variable of the server) every level runs each variant in turn,
``rounds`` times: before and after a change, interleaved in one run, so the machine's noise
falls on both alike. Bounded: at most 10,000 matches, 600 s per window, loopback only.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.bench.compiled_copy import compiled_copy
from server.bench.load.figures import percentile
from server.bench.load.measure import cpu_seconds, loop_thread_seconds, rss_bytes
from server.bench.load.scale_loads import Load, start_loads
from server.bench.load.servers import DEFAULT_POSTGRES_ADMIN, ROOT, Server, scrape_metrics, started_servers

MAX_SCALE = 10_000
TARGETS = {"cpu_ratio": 1.15, "p99_ack_ms": 50.0, "slow_gc": 0, "kb_per_match": 40.0}


@dataclass
class Variant:
    name: str
    env: dict[str, str] = field(default_factory=dict)
    root: Path = ROOT

    @staticmethod
    def parse(spec: str) -> Variant:
        """``name:KEY=VALUE,KEY=VALUE`` (``root=DIR``: the checkout to run the server from;
        ``compiled=1``: a copy of that checkout with its hot paths compiled as a wheel's are,
        built now if not cached: :mod:`server.bench.compiled_copy`).

        >>> Variant.parse("old:root=/tmp/base,GINRUMMY_UVLOOP=0")
        Variant(name='old', env={'GINRUMMY_UVLOOP': '0'}, root=PosixPath('/tmp/base'))
        """
        name, _, rest = spec.partition(":")
        env: dict[str, str] = {}
        root = ROOT
        compiled = False
        for item in filter(None, rest.split(",")):
            key, _, value = item.partition("=")
            if key == "root":
                root = Path(value)
            elif key == "compiled":
                compiled = value.lower() in ("1", "yes", "true")
            else:
                env[key] = value
        if compiled:
            root = compiled_copy(root)
        return Variant(name or "default", env, root)


@dataclass
class ScaleOptions:
    levels: list[int]
    think: float = 5.0
    duration: float = 20.0
    warmup: float | None = None
    """Seconds of play before the window (default: 1.5 x think, until every player has acted)."""
    variants: list[Variant] = field(default_factory=lambda: [Variant("default")])
    rounds: int = 1
    per_client: int = 2500
    deflate: bool = True
    seed: int = 1
    setup_timeout: float = 1200.0
    database: str = "sqlite"
    servers: int = 1
    """Server processes (replicas on one Postgres database when more than one); each match's
    player is on one of them, the players spread evenly."""
    cross: bool = False
    """With replicas: each player's socket on the next replica, its REST calls (its matches'
    creation) on its own, as behind a balancer without stickiness."""
    postgres_admin: str = DEFAULT_POSTGRES_ADMIN
    load: str = "python"
    """Who plays: ``python`` load processes or one ``node`` process (:mod:`.scale_loads`)."""


def shares(matches: int, servers: int, per_client: int) -> list[tuple[int, int, int]]:
    """``(server, first player, players)`` for each load process: the matches spread evenly over
    the servers, at most ``per_client`` players per process.

    >>> shares(3000, 2, 2500)
    [(0, 0, 1500), (1, 1500, 1500)]
    >>> shares(6000, 1, 2500)
    [(0, 0, 2500), (0, 2500, 2500), (0, 5000, 1000)]
    """
    out = []
    first = 0
    for server in range(servers):
        mine = matches // servers + (1 if server < matches % servers else 0)
        for offset in range(0, mine, per_client):
            out.append((server, first + offset, min(per_client, mine - offset)))
        first += mine
    return out


async def run_level(matches: int, variant: Variant, opts: ScaleOptions, log_dir: Path) -> dict[str, Any]:
    """``opts.servers`` fresh servers, ``matches`` live matches, measured over the window."""
    env = {"GINRUMMY_BOT_DELAY": "0", "GINRUMMY_LOG_LEVEL": "info", **variant.env}
    loads: list[Load] = []
    async with started_servers(
        opts.database, opts.servers, log_dir, env, postgres_admin=opts.postgres_admin, root=variant.root
    ) as servers:
        try:
            pids = [s.pid for s in servers if s.pid is not None]
            await asyncio.sleep(0.5)
            rss_before = _total(rss_bytes(p) for p in pids)
            started = time.perf_counter()
            urls = [s.url for s in servers]
            socket_urls = [urls[(i + opts.cross) % len(urls)] for i in range(len(urls))]
            loads = await start_loads(
                matches, urls, socket_urls, shares(matches, len(urls), opts.per_client), opts
            )
            for load in loads:
                await load.ready(opts.setup_timeout)
            setup_seconds = time.perf_counter() - started
            warmup = opts.think * 1.5 if opts.warmup is None else opts.warmup
            t0 = time.time() + warmup + 0.5
            t1 = t0 + opts.duration
            for load in loads:
                await load.go(t0, t1)
            await asyncio.sleep(max(0.0, t0 - time.time()))
            cpu0, m0 = _total(cpu_seconds(p) for p in pids), await _metrics(servers)
            loops0 = [loop_thread_seconds(p) for p in pids]
            await asyncio.sleep(max(0.0, t1 - time.time()))
            cpu1, m1 = _total(cpu_seconds(p) for p in pids), await _metrics(servers)
            loops1 = [loop_thread_seconds(p) for p in pids]
            rss_live = _total(rss_bytes(p) for p in pids)
            outs = list(await asyncio.gather(*(load.stop() for load in loads)))
        finally:
            for load in loads:
                await load.kill()
    acked = sum(o["acked"] for o in outs)
    ack_ms = [x for o in outs for x in o["ack_ms"]]
    reply_ms = [x for o in outs for x in o["reply_ms"]]
    live = m1.get("ginrummy_live_matches", 0.0)
    server_cpu = cpu1 - cpu0
    errors: dict[str, int] = {}
    for o in outs:
        for k, v in o["errors"].items():
            errors[k] = errors.get(k, 0) + v
    return {
        "matches": matches,
        "variant": variant.name,
        "database": opts.database,
        "servers": len(servers),
        "setup_seconds": round(setup_seconds, 1),
        "setup_failures": sum(o["setup_failures"] for o in outs),
        "setup_refused": sum(o.get("setup_refused", 0) for o in outs),
        # Players refused at setup who came back after Retry-After and were let in (Node load).
        "setup_came_back": sum(o.get("setup_came_back", 0) for o in outs),
        "load": opts.load,
        "load_processes": len(loads),
        "live_matches": live,
        "connections": m1.get("ginrummy_ws_connections", 0.0),
        "window_seconds": opts.duration,
        "acked": acked,
        "actions_per_second": acked / opts.duration,
        "server_cores": server_cpu / opts.duration,
        "server_cpu_ms_per_action": 1000 * server_cpu / acked if acked else None,
        # The busiest server's loop thread over the window: the share of it on a core, and
        # waiting for one (ready to run).
        **_loop_shares(loops0, loops1, opts.duration),
        "client_cores": sum(o["cpu_seconds"] for o in outs) / opts.duration,
        "ack_p50_ms": percentile(ack_ms, 50),
        "ack_p99_ms": percentile(ack_ms, 99),
        "ack_max_ms": max(ack_ms) if ack_ms else None,
        "reply_p99_ms": percentile(reply_ms, 99),
        "gc_slow_pauses": m1.get("ginrummy_gc_slow_pauses_total", 0.0) - m0.get("ginrummy_gc_slow_pauses_total", 0.0),
        "gc_pauses": m1.get("ginrummy_gc_pause_seconds_count", 0.0) - m0.get("ginrummy_gc_pause_seconds_count", 0.0),
        # The share of the window's wall time the loop spent in the collector (every generation).
        "gc_share": _delta(m0, m1, "ginrummy_gc_pause_seconds_sum") / opts.duration,
        # The longest since the server started (its setup too), not the window's: a gauge.
        "gc_pause_max_ms": 1000 * m1["ginrummy_gc_pause_max_seconds"] if "ginrummy_gc_pause_max_seconds" in m1 else None,
        "gc_slow_pauses_cpu": _delta(m0, m1, "ginrummy_gc_slow_pauses_cpu_total"),
        "gc_pause_max_cpu_ms": 1000 * m1["ginrummy_gc_pause_max_cpu_seconds"] if "ginrummy_gc_pause_max_cpu_seconds" in m1 else None,
        "gc_slow_by_generation": _slow_by_generation(m0, m1),
        "commit_mean_ms": _mean_ms(m0, m1, "ginrummy_commit_seconds"),
        "batches_per_second": _delta(m0, m1, "ginrummy_commit_batch_size_count") / opts.duration,
        "batch_mean": _mean(m0, m1, "ginrummy_commit_batch_size"),
        "action_mean_ms": _mean_ms(m0, m1, "ginrummy_action_seconds"),
        # Where an ack's tail is spent: the share of acts whose ack the server sent more than
        # 50 ms after reading them, and of commits that took more than 50 ms.
        "server_ack_over_50ms": _share_over(m0, m1, "ginrummy_action_seconds", "0.05"),
        "commit_over_50ms": _share_over(m0, m1, "ginrummy_commit_seconds", "0.05"),
        "kb_per_live_match": (rss_live - rss_before) / max(1.0, live) / 1024,
        # New matches and hellos the server refused as busy (its admission), setup included.
        "refused": m1.get("ginrummy_refused_total", 0.0),
        "errors": errors,
        "failures": [f for o in outs for f in o["failures"]][:3],
    }  # fmt: skip


def _total(values: Iterable[float | None]) -> float:
    return sum(v or 0.0 for v in values)


async def _metrics(servers: list[Server]) -> dict[str, float]:
    """The servers' ``/metrics`` together: counters and gauges summed, the largest of each
    ``_max`` gauge."""
    out: dict[str, float] = {}
    for one in [await scrape_metrics(s.url) for s in servers]:
        for name, value in one.items():
            out[name] = max(out.get(name, value), value) if "_max" in name else out.get(name, 0.0) + value
    return out


def _delta(m0: dict[str, float], m1: dict[str, float], name: str) -> float:
    return m1.get(name, 0.0) - m0.get(name, 0.0)


def _slow_by_generation(m0: dict[str, float], m1: dict[str, float]) -> dict[str, int]:
    """The window's pauses over 20 ms (wall time), by the generation collected: from the pause
    histogram, its count less its 20 ms bucket."""
    out = {}
    for generation in ("0", "1", "2"):
        count = _delta(m0, m1, f"ginrummy_gc_pause_seconds_count{{generation={generation}}}")
        fast = _delta(m0, m1, f"ginrummy_gc_pause_seconds_bucket{{generation={generation},le=0.02}}")
        out[generation] = round(count - fast)
    return out


def _loop_shares(
    before: list[tuple[float, float] | None], after: list[tuple[float, float] | None], seconds: float
) -> dict[str, float | None]:
    """The loop thread's shares of the window, of the server whose loop was busiest.

    >>> _loop_shares([(1.0, 0.5), None], [(1.8, 0.6), None], 1.0)
    {'loop_running': 0.8, 'loop_waiting': 0.1}
    """
    shares = [
        (round((a[0] - b[0]) / seconds, 3), round((a[1] - b[1]) / seconds, 3))
        for b, a in zip(before, after)
        if a is not None and b is not None
    ]
    if not shares:
        return {"loop_running": None, "loop_waiting": None}
    running, waiting = max(shares, key=sum)
    return {"loop_running": running, "loop_waiting": waiting}


def _mean(m0: dict[str, float], m1: dict[str, float], name: str) -> float | None:
    """A histogram's mean over the window.

    >>> _mean({"h_sum": 10.0, "h_count": 2.0}, {"h_sum": 40.0, "h_count": 7.0}, "h")
    6.0
    """
    count = _delta(m0, m1, f"{name}_count")
    return _delta(m0, m1, f"{name}_sum") / count if count else None


def _share_over(m0: dict[str, float], m1: dict[str, float], name: str, le: str) -> float | None:
    """The share of a histogram's observations over the window above its bucket ``le``.

    >>> m1 = {"h_count": 10.0, "h_bucket{le=0.05}": 9.0}
    >>> _share_over({"h_count": 2.0, "h_bucket{le=0.05}": 2.0}, m1, "h", "0.05")
    0.125
    """
    count = _delta(m0, m1, f"{name}_count")
    return (count - _delta(m0, m1, f"{name}_bucket{{le={le}}}")) / count if count else None


def _mean_ms(m0: dict[str, float], m1: dict[str, float], name: str) -> float | None:
    """A histogram of seconds: its mean over the window, in milliseconds."""
    mean = _mean(m0, m1, name)
    return None if mean is None else 1000 * mean


async def run_scale(opts: ScaleOptions) -> dict[str, Any]:
    """Every level, every variant in turn, ``rounds`` times; the medians by level and variant."""
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gin-scale-") as tmp:
        for _ in range(opts.rounds):
            for level in opts.levels:
                for variant in opts.variants:
                    runs.append(await run_level(level, variant, opts, Path(tmp)))
                    print(format_run(runs[-1]), file=sys.stderr, flush=True)
    table = []
    for level in opts.levels:
        for variant in opts.variants:
            mine = [r for r in runs if r["matches"] == level and r["variant"] == variant.name]
            table.append(_median_row(mine))
    return {"options": _options(opts), "runs": runs, "table": table, "verdict": scale_verdict(table, opts)}


def _options(opts: ScaleOptions) -> dict[str, Any]:
    out = {k: v for k, v in opts.__dict__.items() if k != "postgres_admin"}
    out["variants"] = [{"name": v.name, "env": v.env, "root": str(v.root)} for v in opts.variants]
    return out


def _median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The runs' medians, figure by figure; a value every run shares (the level, say) as it is.

    >>> _median_row([{"matches": 3000, "gc_slow_pauses": 1}, {"matches": 3000, "gc_slow_pauses": 0}])
    {'matches': 3000, 'gc_slow_pauses': 0.5, 'rounds': 2}
    """
    row = dict(runs[0])
    for key, value in runs[0].items():
        values = [r[key] for r in runs if isinstance(r[key], int | float) and not isinstance(r[key], bool)]
        if isinstance(value, int | float) and len(values) == len(runs) and len(set(values)) > 1:
            row[key] = statistics.median(values)
    row["rounds"] = len(runs)
    return row


def scale_verdict(table: list[dict[str, Any]], opts: ScaleOptions) -> dict[str, Any]:
    """Per variant: CPU per action at the largest level over the smallest, and the targets at the
    largest level."""
    out: dict[str, Any] = {}
    for variant in opts.variants:
        rows = sorted((r for r in table if r["variant"] == variant.name), key=lambda r: r["matches"])
        low, high = rows[0], rows[-1]
        a, b = low["server_cpu_ms_per_action"], high["server_cpu_ms_per_action"]
        # One level has nothing to compare with: no ratio (not 1.00x "met").
        ratio = b / a if a and b and low["matches"] < high["matches"] else None
        out[variant.name] = {
            "levels": [low["matches"], high["matches"]],
            "cpu_ratio": ratio,
            "cpu_ratio_met": None if ratio is None else ratio <= TARGETS["cpu_ratio"],
            "ack_p99_ms": high["ack_p99_ms"],
            "ack_p99_met": high["ack_p99_ms"] is not None and high["ack_p99_ms"] <= TARGETS["p99_ack_ms"],
            "gc_slow_pauses": high["gc_slow_pauses"],
            "gc_met": high["gc_slow_pauses"] <= TARGETS["slow_gc"],
            "gc_slow_pauses_cpu": high.get("gc_slow_pauses_cpu"),
            "kb_per_live_match": high["kb_per_live_match"],
            "kb_met": high["kb_per_live_match"] <= TARGETS["kb_per_match"],
        }
    return out


def _f(x: Any, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def format_run(r: dict[str, Any]) -> str:
    return (
        f"{r['matches']:>6} {r['variant']:<10} live {r['live_matches']:>6.0f}  "
        f"{r['actions_per_second']:>6.0f}/s  cpu/action {_f(r['server_cpu_ms_per_action'], 3):>6} ms  "
        f"cores {_f(r['server_cores'], 2)}  loop {_f(r.get('loop_running'), 2)} + "
        f"{_f(r.get('loop_waiting'), 2)} waiting  ack p50 {_f(r['ack_p50_ms'])} p99 {_f(r['ack_p99_ms'])} "
        f"max {_f(r['ack_max_ms'])} ms  over 50 ms: server {_pct(r.get('server_ack_over_50ms'))} "
        f"commit {_pct(r.get('commit_over_50ms'))}  commit {_f(r.get('commit_mean_ms'))} ms  "
        f"batches {_f(r.get('batches_per_second'), 0)}/s of {_f(r.get('batch_mean'))}  "
        f"gc {_pct(r.get('gc_share'))} of the time, >20ms {r['gc_slow_pauses']:g} "
        f"(longest since start {_f(r['gc_pause_max_ms'])} ms; "
        f"by CPU time {_f(r.get('gc_slow_pauses_cpu'), 0)}, longest {_f(r.get('gc_pause_max_cpu_ms'))} ms; "
        f"by generation {_generations(r.get('gc_slow_by_generation'))})  "
        f"{_f(r['kb_per_live_match'])} KB/match  load gen {_f(r['client_cores'], 2)} cores  "
        f"setup {_f(r['setup_seconds'])} s  refused as busy {r.get('refused', 0):g} "
        f"(players turned away {r.get('setup_refused', 0)}, let in on coming back "
        f"{r.get('setup_came_back', 0)})  "
        f"errors {sum(r['errors'].values())}"
    )


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def _generations(slow: dict[str, int] | None) -> str:
    return "-" if not slow else "/".join(str(slow.get(g, 0)) for g in ("0", "1", "2"))


def format_scale(report: dict[str, Any]) -> str:
    o = report["options"]
    lines = [
        f"scale: {', '.join(map(str, o['levels']))} live matches vs the computer on {o['database']}, "
        f"{o['servers']} server process(es)"
        + (", each socket on another replica than its player's REST calls" if o.get("cross") else "")
        + f", think {o['think']} s, "
        f"window {o['duration']} s, {o['rounds']} round(s), deflate offered: {o['deflate']}, "
        f"load from {o.get('load', 'python')}; "
        f"variants interleaved: {', '.join(v['name'] for v in o['variants'])}",
        "matches variant    live   acked/s  server CPU per action  cores  ack latency  GC pauses  memory",
    ]
    lines += [format_run(r) for r in report["table"]]
    lines.append("targets (at the largest level; CPU per action against the smallest):")
    mark = {True: "met", False: "MISSED"}
    for name, v in report["verdict"].items():
        low, high = v["levels"]
        if low == high:
            cpu = f"CPU {low} -> {high}: no ratio (one level: run --scale 100,{high} for it)"
        elif v["cpu_ratio"] is None:
            cpu = f"CPU {low} -> {high}: no ratio (no CPU figure)"
        else:
            ratio = f"{_f(v['cpu_ratio'], 2)}x (<= {TARGETS['cpu_ratio']}) {mark[v['cpu_ratio_met']]}"
            cpu = f"CPU {low} -> {high}: {ratio}"
        lines.append(
            f"  {name}: {cpu}; ack p99 {_f(v['ack_p99_ms'])} ms (<= {TARGETS['p99_ack_ms']:.0f}) "
            f"{mark[v['ack_p99_met']]}; GC pauses > 20 ms {v['gc_slow_pauses']:g} (0) {mark[v['gc_met']]} "
            f"({_f(v['gc_slow_pauses_cpu'], 0)} by CPU time); "
            f"{_f(v['kb_per_live_match'])} KB per live match (<= {TARGETS['kb_per_match']:.0f}) {mark[v['kb_met']]}"
        )
    return "\n".join(lines)
