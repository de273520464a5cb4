"""``python -m server.bench loads``: what loading one match from a SQLite file costs the server
(a hello's read of a match it does not hold, and the herd's after a restart), read as the group
commit store reads it (in one step on the loop's thread: :mod:`server.storage.sqlite_read`) and
through the engine (SQLAlchemy on aiosqlite, as every read was before), side by side in one run.

For each ``--actions`` count: a fresh file with ``--matches`` matches between two people, each
played that many actions through the match service; then every match loaded, 100 at once as a
herd of hellos would, by each reader in turn, ``--rounds`` times. Printed: the process's CPU time
per load (both threads: the loop's and aiosqlite's), the median round. A temporary folder only.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from server.service import MatchService
from server.storage import SqlStore, create_engine, upgrade
from server.storage.group_commit import GroupCommitStore

AT_ONCE = 100


async def setup(service: MatchService, matches: int, actions: int) -> list[str]:
    """``matches`` matches between two people, each played ``actions`` actions (or to its end)."""
    ids = []
    for i in range(matches):
        ada, _ = await service.create_player(f"A{i}")
        bob, _ = await service.create_player(f"B{i}")
        created = await service.create_match(ada, opponent="human")
        await service.join(bob, created.meta.match_id, created.invite)
        live = await service.cache.get(created.meta.match_id)
        for _ in range(actions):
            seat = live.state.to_act
            if live.meta.status != "active" or seat is None:
                break
            await service.act(
                live, seat, None, live.meta.version, live.state.legal_actions(seat)[0].to_wire()
            )
        ids.append(created.meta.match_id)
    return ids


async def per_load(load: Callable[[str], Awaitable[Any]], ids: list[str]) -> float:
    started = time.process_time()
    for i in range(0, len(ids), AT_ONCE):
        await asyncio.gather(*(load(m) for m in ids[i : i + AT_ONCE]))
    return (time.process_time() - started) / len(ids)


async def measure(folder: Path, matches: int, actions: int, rounds: int) -> dict[str, float]:
    engine = create_engine(f"sqlite+aiosqlite:///{folder / f'loads-{actions}.db'}")
    await upgrade(engine)
    store = GroupCommitStore(engine)
    service = MatchService(store, bot_delay=0)
    try:
        ids = await setup(service, matches, actions)
        readers = {"one step": store.load_match, "engine": SqlStore(engine).load_match}
        times: dict[str, list[float]] = {name: [] for name in readers}
        stored = 0
        for _ in range(rounds):
            for name, load in readers.items():
                times[name].append(await per_load(load, ids))
        for match_id in ids:
            loaded = await store.load_match(match_id)
            stored += len(loaded[1]) if loaded else 0
        return {"actions": stored / len(ids), **{n: statistics.median(t) for n, t in times.items()}}
    finally:
        await service.close()
        await store.close()
        await engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.bench loads", description=__doc__)
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--actions", default="40,200", help="actions per match, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    levels = [int(n) for n in args.actions.split(",")]
    if args.matches > 5000 or max(levels) > 1000:
        parser.error("at most 5,000 matches and 1,000 actions each")
    print(
        f"loads benchmark: CPU per match loaded from SQLite, {args.matches} matches, median of {args.rounds} round(s)"
    )
    print()
    print("| Actions per match | one step | engine | ratio |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for actions in levels:
            m = asyncio.run(measure(Path(folder), args.matches, actions, args.rounds))
            ours, engine = m["one step"] * 1e6, m["engine"] * 1e6
            print(f"| {m['actions']:.0f} | {ours:,.0f} us | {engine:,.0f} us | {ours / engine:.3f}x |")
    return 0
