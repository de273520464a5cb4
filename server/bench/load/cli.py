"""``python -m server.bench load``: many concurrent matches against the computer, measured.

The command line: its flags and their bounds, and the two hidden modes a run starts this same
command in (``--serve-echo``, the echo floor's server; ``--measure-memory``, the tracemalloc
figure in a fresh process). What a run does: see :mod:`server.bench.load`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

from server.bench.load.echo import serve_echo
from server.bench.load.measure import measure_service_memory
from server.bench.load.report import format_report
from server.bench.load.runner import Options, run
from server.bench.load.scale_loads import LOADS
from server.bench.load.servers import DEFAULT_POSTGRES_ADMIN


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
    p.add_argument(
        "--no-deflate",
        action="store_true",
        help="do not offer permessage-deflate (browsers do; default: offer)",
    )
    p.add_argument("--scale", help="scale mode: live matches per level, e.g. 100,1000,3000,10000")
    p.add_argument(
        "--variant",
        dest="variants",
        action="append",
        default=[],
        help="scale mode: name:KEY=VALUE,... (root=DIR: another checkout; compiled=1: compiled as a "
        "wheel is); each level runs each in turn",
    )
    p.add_argument("--rounds", type=int, default=1, help="scale mode: rounds of every level and variant")
    p.add_argument("--warmup", type=float, help="scale mode: seconds of play before the window")
    p.add_argument("--per-client", type=int, default=2500, help="scale mode: players per load process")
    p.add_argument(
        "--cross",
        action="store_true",
        help="scale mode, with --servers 2 or more: each player's socket on another replica than its REST calls",
    )
    p.add_argument(
        "--load",
        choices=LOADS,
        default="python",
        help="scale mode: who plays, Python load processes (default) or one Node process (lighter)",
    )
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
    if args.scale:
        return _scale(args)
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
        deflate=not args.no_deflate,
    )
    report = asyncio.run(run(opts))
    print(format_report(report))
    if opts.json_path:
        Path(opts.json_path).write_text(json.dumps(report, indent=2, default=str))
    return 0


def _scale(args: argparse.Namespace) -> int:
    from server.bench.load.scale import MAX_SCALE, ScaleOptions, Variant, format_scale, run_scale

    try:
        levels = [int(x) for x in args.scale.split(",") if x.strip()]
    except ValueError:
        print("error: --scale takes numbers of matches, e.g. 100,1000", file=sys.stderr)
        return 2
    if not levels or not all(1 <= n <= MAX_SCALE for n in levels):
        print(f"error: each --scale level must be between 1 and {MAX_SCALE}", file=sys.stderr)
        return 2
    if not 0 < args.duration <= MAX_SECONDS or not 1 <= args.rounds <= 5 or args.per_client < 1:
        print(f"error: --duration in (0, {MAX_SECONDS}], --rounds 1-5, --per-client >= 1", file=sys.stderr)
        return 2
    if not 1 <= args.servers <= 4 or (args.servers > 1 and args.database != "postgres"):
        print("error: --servers 1-4, more than one only with --database postgres", file=sys.stderr)
        return 2
    if args.cross and (args.servers < 2 or args.load == "node"):
        print("error: --cross needs --servers 2 or more, and the Python load", file=sys.stderr)
        return 2
    opts = ScaleOptions(
        levels=levels,
        think=args.think,
        duration=args.duration,
        warmup=args.warmup,
        variants=[Variant.parse(v) for v in args.variants] or [Variant("default")],
        rounds=args.rounds,
        per_client=args.per_client,
        deflate=not args.no_deflate,
        seed=args.seed,
        database=args.database,
        servers=args.servers,
        cross=args.cross,
        postgres_admin=args.postgres_admin,
        load=args.load,
    )
    report = asyncio.run(run_scale(opts))
    print(format_scale(report))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report, indent=2, default=str))
    return 0
