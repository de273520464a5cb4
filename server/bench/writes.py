"""``python -m server.bench writes``: what committing actions costs the server on a SQLite file,
with the schema as it is and as it was before a migration, side by side in one run.

Each case is a fresh database migrated to a revision (``head``, and ``--before``: by default
the one before migration 0009, whose unique index on a seat's client ids every action also
wrote), ``--matches`` live matches, then ``--changes`` actions committed through the server's
own group-commit store, ``--batch`` at a time (that many matches' actions committed together,
as a busy server's one writer gathers them): an action each with a client id like a browser's
(a UUID), one version later. A third case runs at head with changes that do not know the row
they replace (the store reads the stored versions first, as it does whenever a compare-and-set
fails), beside the service's own changes, which know it. Printed per case: the process's CPU
time per change (the loop's thread and the SQLite writer's thread), the wall time, the changes
per transaction and the file's size with its write-ahead log; the cases run interleaved
``--rounds`` times and the medians are printed.
Loopback-free and bounded: a temporary folder, nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from server.service.ports import Change, MatchMeta, PlayerRecord, StoredAction
from server.storage import create_engine, upgrade
from server.storage.group_commit import GroupCommitStore

BEFORE = "sessions_only"
"""The revision before 0009 (``actions_lean``) dropped the client-id index."""


def _meta(match_id: str, player: PlayerRecord, now: datetime) -> MatchMeta:
    """An active match between ``player`` and itself, at version 0."""
    return MatchMeta(
        match_id, "house", "human", None, "0" * 64, 0, "active", 0, [player.player_id] * 2,
        [player.name] * 2, uuid.uuid4().hex * 2, None, 1, [0, 0], [0, 0], None, None, None, now, now,
    )  # fmt: skip


READ_FIRST = "head, read first"
"""The case whose changes do not know the row they replace."""


async def measure(
    folder: Path, revision: str, matches: int, changes: int, batch: int, seed: int, known: bool = True
) -> dict[str, float]:
    """One case on a fresh file in ``folder``: CPU and wall time per change, changes per batch."""
    path = folder / f"writes-{revision}-{known}-{batch}-{seed}.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}")
    await upgrade(engine, revision)
    store = GroupCommitStore(engine)
    try:
        now = datetime.now(UTC)
        player = PlayerRecord("p_bench", "Bench", "0" * 64, now)
        await store.create_player(player)
        metas = [_meta(f"m_{i:030d}", player, now) for i in range(matches)]
        for meta in metas:
            await store.create_match(meta)
        # Every batch made first (each commit lands, so each version is known): only the
        # commits are timed.
        seqs = [0] * matches
        rng = random.Random(seed)
        batches: list[list[Change]] = []
        done = 0
        while done < changes:
            picked = rng.sample(range(matches), min(batch, matches))
            writes = []
            for i in picked:
                old = metas[i]
                new = old.copy()
                new.version += 1
                seqs[i] += 1
                action = StoredAction(
                    seqs[i],
                    seqs[i] % 2,
                    {"kind": "draw", "source": "stock"},
                    str(uuid.uuid4()),
                    new.version,
                    now,
                )
                writes.append(Change(old.version, new, action, previous=old if known else None))
                metas[i] = new
            batches.append(writes)
            done += len(picked)
        before_changes, before_batches = store.changes, store.batches
        cpu, wall = time.process_time(), time.perf_counter()
        for writes in batches:
            if not all(await asyncio.gather(*(store.commit(c) for c in writes))):
                raise RuntimeError("a compare-and-set failed: nothing else writes this file")
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        transactions = store.batches - before_batches
        return {
            "cpu_us": cpu / done * 1e6,
            "wall_us": wall / done * 1e6,
            "per_batch": (store.changes - before_changes) / max(1, transactions),
            "kb": sum(f.stat().st_size for f in folder.glob(path.name + "*")) / 1024,
        }
    finally:
        await store.close()
        await engine.dispose()


def run(matches: int, changes: int, batches: list[int], rounds: int, before: str) -> list[dict[str, Any]]:
    """Every case (``head``, :data:`READ_FIRST`, ``before``) at every batch size, interleaved."""
    cases = {"head": ("head", True), READ_FIRST: ("head", False), before: (before, True)}
    results: dict[tuple[str, int], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="gin-writes-") as tmp:
        for r in range(rounds):
            for batch in batches:
                for case, (revision, known) in cases.items():
                    out = asyncio.run(measure(Path(tmp), revision, matches, changes, batch, r, known))
                    results.setdefault((case, batch), []).append(out)
    return [
        {"case": case, "batch": batch, **{k: statistics.median(o[k] for o in outs) for k in outs[0]}}
        for (case, batch), outs in results.items()
    ]


def format_rows(rows: list[dict[str, Any]], matches: int, changes: int, rounds: int) -> str:
    lines = [
        f"writes: {changes:,} actions over {matches} matches per case on a SQLite file, medians of {rounds} rounds",
        "",
        "| Case (revision) | Batch | CPU us per change | Wall us per change | Changes per transaction | File and log KB |",
        "|---|---|---|---|---|---|",
    ]
    order = {"head": 0, READ_FIRST: 1}
    for row in sorted(rows, key=lambda x: (x["batch"], order.get(x["case"], 2))):
        lines.append(
            f"| {row['case']} | {row['batch']} | {row['cpu_us']:.1f} | {row['wall_us']:.1f} "
            f"| {row['per_batch']:.1f} | {row['kb']:,.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m server.bench writes", description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=100, help="live matches (default 100)")
    p.add_argument("--changes", type=int, default=20_000, help="actions committed per case (default 20,000)")
    p.add_argument(
        "--batch", default="1,10,50", help="actions committed together, comma-separated (default 1,10,50)"
    )
    p.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds; medians are printed (default 3)"
    )
    p.add_argument("--before", default=BEFORE, help=f"the revision to compare with head (default {BEFORE})")
    args = p.parse_args(argv)
    batches = [int(b) for b in args.batch.split(",") if b.strip()]
    rows = run(args.matches, args.changes, batches, args.rounds, args.before)
    print(format_rows(rows, args.matches, args.changes, args.rounds))
    return 0
