"""``python -m server.bench loads``: what a hello's reads from a SQLite file cost the server
(the match it does not hold; the player by token and the seats' bot accounts: the herd's after a
restart), read as the group commit store reads them (in one step on the loop's thread:
:mod:`server.storage.sqlite_read`) and through the engine (SQLAlchemy on aiosqlite, as every
read was before), side by side in one run.

For each ``--actions`` count: a fresh file with ``--matches`` matches between two people, each
played that many actions through the match service; then every match loaded, 100 at once as a
herd of hellos would, by each reader in turn, ``--rounds`` times, and likewise each match's
player and bot-account reads. Printed: the process's CPU time per match (both threads: the
loop's and aiosqlite's), the median round. A temporary folder only.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from server.service import MatchService
from server.service.players import hash_token
from server.storage import SqlStore, create_engine, upgrade
from server.storage.group_commit import GroupCommitStore

AT_ONCE = 100


async def setup(service: MatchService, matches: int, actions: int) -> list[tuple[str, str, list[str]]]:
    """``matches`` matches between two people, each played ``actions`` actions (or to its end):
    each match's id, its first player's token hash, and its seats."""
    made = []
    for i in range(matches):
        ada, token = await service.create_player(f"A{i}")
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
        made.append((created.meta.match_id, hash_token(token), [ada.player_id, bob.player_id]))
    return made


async def per_match(read: Callable[[Any], Awaitable[Any]], each: list[Any]) -> float:
    started = time.process_time()
    for i in range(0, len(each), AT_ONCE):
        await asyncio.gather(*(read(x) for x in each[i : i + AT_ONCE]))
    return (time.process_time() - started) / len(each)


async def others(reader: SqlStore, made: tuple[str, str, list[str]]) -> None:
    """A hello's reads besides the match's: the player by token, the seats' bot accounts."""
    _, token_hash, seats = made
    await reader.player_by_token_hash(token_hash)
    await reader.bots(seats)


async def measure(folder: Path, matches: int, actions: int, rounds: int) -> dict[str, float]:
    engine = create_engine(f"sqlite+aiosqlite:///{folder / f'loads-{actions}.db'}")
    await upgrade(engine)
    store = GroupCommitStore(engine)
    service = MatchService(store, bot_delay=0)
    try:
        made = await setup(service, matches, actions)
        ids = [match_id for match_id, _, _ in made]
        readers: dict[str, SqlStore] = {"one step": store, "engine": SqlStore(engine)}
        times: dict[str, list[float]] = {
            f"{what} {name}": [] for what in ("match", "others") for name in readers
        }
        for _ in range(rounds):
            for name, reader in readers.items():
                times[f"match {name}"].append(await per_match(reader.load_match, ids))
                times[f"others {name}"].append(await per_match(functools.partial(others, reader), made))
        stored = 0
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
    print(
        "| Actions per match | match: one step | engine | ratio | player and bots: one step | engine | ratio |"
    )
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for actions in levels:
            m = asyncio.run(measure(Path(folder), args.matches, actions, args.rounds))
            cells = [f"{m['actions']:.0f}"]
            for what in ("match", "others"):
                ours, engine = m[f"{what} one step"] * 1e6, m[f"{what} engine"] * 1e6
                cells += [f"{ours:,.0f} us", f"{engine:,.0f} us", f"{ours / engine:.3f}x"]
            print("| " + " | ".join(cells) + " |")
    return 0
