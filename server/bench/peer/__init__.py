"""``python -m server.bench peer``: our server beside boardgame.io 0.50, in one run, driven by the
same Node load generator.

boardgame.io (the open server people pick for turn-based card games with hidden state) plays a
pinned minimal draw-and-discard game with secret hands through ``playerView``
(``server/bench/peer_js/game.js``); it and the load generator are installed from the npm
registry into a cache folder (``node.py``). Each round runs every target on a fresh server, in
turn, so the machine's noise falls on all of them alike (3 rounds, medians):

- ``ours-hvh``: ours, human vs human on SQLite (every action committed before it is
  acknowledged);
- ``bgio-memory`` and ``bgio-flatfile``: boardgame.io with its in-memory and FlatFile storage
  (it sends the new state before it writes);
- ``ours-hvc``: ours, human vs the computer: a human action brings the computer's move and its
  commit, measured per human action;
- ``ours-pg1`` and ``ours-pg2`` (not run unless named): ours, human vs human on a fresh Postgres
  database (``--postgres-admin`` creates it), one process or two replicas with the two seats of
  every match on different replicas (each move reaches the other seat through Postgres's
  notices); the CPU per move of Postgres's own processes is printed beside ours.

For each: ``--matches`` live matches set up, a paced phase (players pause uniform 0.5x to 1.5x
``--think`` before each move: p50/p99 from a move to its acknowledgement, CPU per move), then a
saturated phase (no pause: moves/s, CPU per move). CPU is the server process's CPU time (with
its children) over the moves; memory per match is its RSS growth from idle to the end of the
paced phase over the matches. ``--variant name:KEY=VALUE,...`` (repeatable; ``root=DIR`` runs the
server from another checkout, ``compiled=1`` from a copy of it compiled as a wheel is (what the
Docker image runs; :mod:`server.bench.compiled_copy`), any other key is an environment variable
of the server) runs each
of our targets once more per variant in every round, as ``ours-hvh@name``: a change and what it
replaces, measured interleaved in one run. The load generator offers permessage-deflate as browsers do
(``--no-deflate``: it does not). Loopback only, bounded in count and time. Nothing here is a
test: the ratios are printed beside the targets, met or not."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from server.bench.load.scale import Variant
from server.bench.load.servers import DEFAULT_POSTGRES_ADMIN, ROOT
from server.bench.peer.node import DEFAULT_CACHE, NodeUnavailable, install
from server.bench.peer.report import format_report
from server.bench.peer.run import DEFAULT_TARGETS, TARGETS, Figures, Options, Target, run_round

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m server.bench peer", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--matches", type=int, default=100, help="live matches per target (default 100; issue: 1000)"
    )
    p.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds; medians are printed (default 3)"
    )
    p.add_argument("--paced", type=float, default=20.0, help="seconds of paced play (default 20)")
    p.add_argument("--saturate", type=float, default=10.0, help="seconds of play with no pause (default 10)")
    p.add_argument(
        "--think", type=float, default=2.0, help="mean pause before each move when paced (default 2)"
    )
    p.add_argument("--difficulty", default="normal", help="the computer in ours-hvc (default normal)")
    p.add_argument(
        "--targets",
        default=",".join(DEFAULT_TARGETS),
        help=f"comma-separated, of {', '.join(TARGETS)} (default {','.join(DEFAULT_TARGETS)})",
    )
    p.add_argument(
        "--variant",
        dest="variants",
        action="append",
        default=[],
        help="name:KEY=VALUE,... (root=DIR: another checkout; compiled=1: compiled as a wheel is); "
        "our targets run once more per variant",
    )
    p.add_argument(
        "--no-deflate", action="store_true", help="the load generator offers no permessage-deflate"
    )
    p.add_argument(
        "--postgres-admin",
        default=DEFAULT_POSTGRES_ADMIN,
        help=f"DSN the Postgres targets create their database with (default {DEFAULT_POSTGRES_ADMIN})",
    )
    p.add_argument(
        "--cache-dir", default=str(DEFAULT_CACHE), help=f"where npm installs (default {DEFAULT_CACHE})"
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    names = [n.strip() for n in args.targets.split(",") if n.strip()]
    unknown = [n for n in names if n not in TARGETS]
    if unknown or not names:
        _parser().error(f"unknown targets {unknown}; choose among {', '.join(TARGETS)}")
    if not 1 <= args.matches <= 10_000 or not 1 <= args.rounds <= 10:
        _parser().error("--matches must be 1..10000 and --rounds 1..10")
    if not 0 < args.paced <= 600 or not 0 < args.saturate <= 600 or not 0 <= args.think <= 60:
        _parser().error("--paced and --saturate must be in (0, 600] s and --think in [0, 60] s")
    try:
        node_dir = install(Path(args.cache_dir))
    except NodeUnavailable as e:
        print(f"peer benchmark: {e}")
        return 1
    options = Options(
        args.matches,
        args.paced,
        args.saturate,
        args.think,
        args.difficulty,
        not args.no_deflate,
        args.postgres_admin,
    )
    targets: dict[str, Target] = {}
    for name in names:
        targets[name] = TARGETS[name]
        if TARGETS[name].server == "ours":
            for spec in args.variants:
                v = Variant.parse(spec)
                root = None if v.root == ROOT else v.root
                variant = TARGETS[name].as_variant(v.name, v.env, root)
                targets[variant.name] = variant
    names = list(targets)
    results: dict[str, list[Figures]] = {n: [] for n in names}
    started = time.monotonic()
    for round_no in range(1, args.rounds + 1):
        for name in names:
            began = time.monotonic()
            try:
                figures = run_round(node_dir, targets[name], options)
            except RuntimeError as e:  # one target's failed round must not lose the others'
                print(
                    f"round {round_no} {name}: failed after {time.monotonic() - began:.1f} s: {e}", flush=True
                )
                continue
            results[name].append(figures)
            print(
                f"round {round_no} {name}: {figures.paced_moves} paced and {figures.saturated_moves} "
                f"saturated moves, {figures.moves_per_s_saturated or 0:,.0f} moves/s saturated "
                f"(set up in {figures.setup_seconds:.1f} s, {figures.setup_errors} setup errors, "
                f"{figures.setup_retries} retried after 503; "
                f"{time.monotonic() - began:.1f} s in all)",
                flush=True,
            )
    load = os.getloadavg()[0]
    header = (
        f"peer benchmark: {args.matches} matches per target, {args.rounds} rounds interleaved, "
        f"{args.paced:g} s paced (think {args.think:g} s) + {args.saturate:g} s saturated, "
        f"permessage-deflate {'offered' if options.deflate else 'off'}, {time.monotonic() - started:.0f} s, "
        f"load average {load:.1f} on {os.cpu_count()} cores"
    )
    print(format_report(results, header, targets))
    return 0
