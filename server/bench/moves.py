"""``python -m server.bench moves``: what a move costs the server's own code, without sockets,
this checkout beside others (``--variant name:root=DIR``) in one run.

Each round of each code is a child process on a fresh SQLite file: the match service on the
group-commit store the server runs, ``--matches`` matches between two people played at once,
``--moves`` moves each (fewer if a match ends), chosen at random from the legal ones (seeded by
the round, so every code plays the same games). ``--opponent easy|normal|hard``: matches against
the computer instead (no pause before its moves), ``--moves`` human actions each, every one
counted with the computer's replies it brings. Each seat is a subscriber that builds and
encodes its ``state`` message as a socket does, and the mover's ``ack`` is encoded. Printed per
code: the process's CPU time per move (the event loop's thread and the SQLite writer's), the
best round's, its ratio to the first code's (of the medians, and round by round: the median of
each round's ratio, with their range), moves per second, and the mean ``state`` message. The
codes run interleaved ``--rounds`` times; medians are printed.

Where the peer benchmark's figures for one code move by 5-10% between runs (sockets, the Node
load generator, the machine), two copies of one code here came 1-4% apart in their medians and
about 1% in their best rounds: a change of a few percent to the service, the rules or the views
shows here. A variant runs this file's driver with that checkout's ``server`` package, so it
measures any checkout whose service has the same calls (``MatchService``, ``create_match``,
``join``, ``subscribe``, ``act``). Loopback-free and bounded: a temporary folder, nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import inspect
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a child imports only what it plays with: another checkout may have no Variant
    from server.bench.load.scale import Variant

HERE = Path(__file__).resolve()


async def play(
    folder: Path, matches: int, moves: int, seed: int, opponent: str = "human", digest: bool = False
) -> dict[str, Any]:
    """One round in this process, with whichever ``server`` package it imports. ``digest``: also
    a SHA-256 of every ``state`` message each seat was sent, in order, less the fields that
    read the clock (the same games give the same digest: tests/test_wheel.py compares the
    compiled modules' messages with Python's)."""
    from server.service import MatchService
    from server.service.ids import SequentialIds
    from server.storage import create_engine, upgrade
    from server.storage.group_commit import GroupCommitStore
    from server.transport.present import encode, state_message
    from server.wire.messages import Ack

    engine = create_engine(f"sqlite+aiosqlite:///{folder / 'moves.db'}")
    await upgrade(engine)
    store = GroupCommitStore(engine)
    # The same deals for every code (the seeds come from the ids): the same games.
    service = MatchService(store, bot_delay=0, ids=SequentialIds(f"-{seed}-"))
    sent = {"messages": 0, "bytes": 0}
    seen: dict[tuple[str, int | None], Any] = {}

    class Seat:
        def __init__(self, seat: int | None) -> None:
            self.seat = seat
            self.moved = asyncio.Event()
            self.turn: tuple[int, Any] | None = None
            """The version and legal actions of the last view that was this seat's turn, as a
            client acts on them (None: not its turn, or already acted on)."""
            self.active = True

        def deliver(self, update: Any) -> None:
            sent["messages"] += 1
            message = state_message(update)
            sent["bytes"] += len(message)
            if digest:
                _digest(seen, update.meta.match_id, self.seat, message)
            hand = update.view.hand
            self.active = update.meta.status == "active"
            self.turn = (update.meta.version, hand.legal_actions) if hand.to_act == self.seat else None
            self.moved.set()

    human = opponent == "human"
    # The write in the acting task itself, as a socket's handler has it (a checkout from before
    # ``shield`` runs every write in a task of its own).
    as_socket = {"shield": False} if "shield" in inspect.signature(service.act).parameters else {}
    lives, people = [], []
    for i in range(matches):
        a, _ = await service.create_player(f"A{i}")
        if human:
            b, _ = await service.create_player(f"B{i}")
            created = await service.create_match(a, opponent="human")
            await service.join(b, created.meta.match_id, created.invite)
        else:
            created = await service.create_match(a, opponent="computer", difficulty=opponent)
        live = await service.cache.get(created.meta.match_id)
        seats = [Seat(0), Seat(1)] if human else [Seat(0)]
        for seat in seats:
            await service.subscribe(live, seat)
        lives.append(live)
        people.append(seats[0])
    sent["messages"] = sent["bytes"] = 0
    played = 0

    async def moves_of(live: Any, person: Seat, rng: random.Random) -> None:
        nonlocal played
        for k in range(moves):
            if human:
                if live.meta.status != "active":
                    return
                seat, version = live.state.to_act, live.meta.version
                action = rng.choice(live.state.legal_actions(seat))
            else:
                # The person acts on the last view it was sent, as a client does: the computer's
                # replies (each a state message) come first.
                while person.active and person.turn is None:
                    person.moved.clear()
                    await person.moved.wait()
                if not person.active or person.turn is None:
                    return
                (version, legal), person.turn = person.turn, None
                seat, action = person.seat, rng.choice(legal)
            msg_id = f"m{k}"

            def ack(version: int, msg_id: str = msg_id) -> None:
                encode(Ack(msg_id, version))

            await service.act(live, seat, msg_id, version, action.to_wire(), ack, **as_socket)
            played += 1

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(
        *(
            moves_of(live, person, random.Random(seed * 100_003 + i))
            for i, (live, person) in enumerate(zip(lives, people))
        )
    )
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    await service.close()
    await engine.dispose()
    return {
        **({"digest": _digests(seen)} if digest else {}),
        "moves": played,
        "cpu_us": 1e6 * cpu / max(played, 1),
        "per_s": played / wall,
        "messages": sent["messages"] / max(played, 1),
        "kb": sent["bytes"] / max(sent["messages"], 1) / 1024,
    }


TIMED = ("claim_at", "claim_in_ms")
"""The fields of these games' ``state`` messages that read the clock (left out of the digest;
the games have no time control, so no clock fields)."""


def _digest(seen: dict[tuple[str, int | None], Any], match_id: str, seat: int | None, message: bytes) -> None:
    def timeless(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: timeless(v) for k, v in value.items() if k not in TIMED}
        if isinstance(value, list):
            return [timeless(v) for v in value]
        return value

    text = json.dumps(timeless(json.loads(message)), sort_keys=True).encode()
    seen.setdefault((match_id, seat), hashlib.sha256()).update(text)


def _digests(seen: dict[tuple[str, int | None], Any]) -> str:
    whole = hashlib.sha256()
    for key in sorted(seen, key=str):
        whole.update(f"{key}:{seen[key].hexdigest()};".encode())
    return whole.hexdigest()


def _child(argv: list[str]) -> None:
    """``--child MATCHES MOVES SEED OPPONENT``: one round here, its figures as one JSON line."""
    from server.__main__ import event_loop  # the server's own loop (uvloop when installed)

    matches, moves, seed = (int(a) for a in argv[:3])
    opponent = argv[3]
    with tempfile.TemporaryDirectory() as folder:
        loop = event_loop(True)
        try:
            figures = loop.run_until_complete(play(Path(folder), matches, moves, seed, opponent))
        finally:
            loop.close()
    print(json.dumps(figures))


def round_of(
    variant: Variant, matches: int, moves: int, seed: int, opponent: str = "human", counted: bool = False
) -> dict[str, float]:
    """One round of ``variant``'s code in a child process: this file's driver, that checkout's
    ``server`` package (first on the path, from a folder of no modules of its own).
    ``counted``: under valgrind's callgrind, which adds ``instructions``, the process's whole
    count (every thread's, from its start)."""
    argv = [str(HERE), "--child", str(matches), str(moves), str(seed), opponent]
    runner = f"import runpy, sys; sys.argv = {argv!r}; "
    runner += f"runpy.run_path({str(HERE)!r}, run_name='__main__')"
    env = {**os.environ, **variant.env, "PYTHONPATH": str(variant.root)}
    with tempfile.TemporaryDirectory() as cwd:
        command = [sys.executable, "-c", runner]
        if counted:
            command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=counts", *command]
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{variant.name} failed: {done.stderr.strip()[-2000:]}")
        out: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
        if counted:
            out["instructions"] = callgrind_total((Path(cwd) / "counts").read_text())
    return out


def callgrind_total(text: str) -> int:
    """The instructions a callgrind output file counts in all (its ``totals:`` or ``summary:``
    line)."""
    for line in text.splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise ValueError("not a callgrind output file: no totals line")


def count_instructions(
    variants: list[Variant], matches: int, moves: int, opponent: str = "human"
) -> dict[str, dict[str, float]]:
    """Each code's instructions per move, counted by callgrind: a round of ``moves`` moves a
    match less a round of none (the same start and matches made), over the moves played. The
    count hardly moves with the machine's load, so a change of 1-2% shows in one round (the
    same code counted again came within 0.7% a move, the group commit's batches following the
    threads' timing; the CPU time between rounds moves by 5-10% on a busy two-core machine)."""
    if shutil.which("valgrind") is None:
        raise RuntimeError("--instructions needs valgrind (Debian's package valgrind)")
    out = {}
    for v in variants:
        played = round_of(v, matches, moves, 1, opponent, counted=True)
        start = round_of(v, matches, 0, 1, opponent, counted=True)
        per_move = (played["instructions"] - start["instructions"]) / max(played["moves"], 1)
        out[v.name] = {"moves": played["moves"], "per_move": per_move}
        print(f"{v.name}: {per_move:,.0f} instructions a move", file=sys.stderr)
    return out


def format_instructions(counts: dict[str, dict[str, float]], matches: int, moves: int, opponent: str) -> str:
    who = "between two people" if opponent == "human" else f"against the computer ({opponent})"
    lines = [
        f"moves benchmark, instructions counted by callgrind: {matches} matches {who}, "
        f"{moves} moves each, less the same start with none",
        "",
        "| Code | instructions per move | vs the first | moves |",
        "|---|---|---|---|",
    ]
    first = next(iter(counts.values()))["per_move"]
    for name, c in counts.items():
        lines.append(f"| {name} | {c['per_move']:,.0f} | {c['per_move'] / first:.3f}x | {c['moves']:,.0f} |")
    return "\n".join(lines)


def run(
    variants: list[Variant], matches: int, moves: int, rounds: int, opponent: str = "human"
) -> dict[str, list[dict[str, float]]]:
    results: dict[str, list[dict[str, float]]] = {v.name: [] for v in variants}
    for r in range(rounds):
        for v in variants:
            figures = round_of(v, matches, moves, r + 1, opponent)
            results[v.name].append(figures)
            print(
                f"round {r + 1} {v.name}: {figures['moves']:.0f} moves, {figures['cpu_us']:.1f} us of CPU a move",
                file=sys.stderr,
            )
    return results


def format_rows(
    results: dict[str, list[dict[str, float]]], matches: int, moves: int, rounds: int, opponent: str = "human"
) -> str:
    who = "between two people" if opponent == "human" else f"against the computer ({opponent})"
    each = "moves" if opponent == "human" else "human actions (with the computer's replies)"
    lines = [
        f"moves benchmark: {matches} matches {who}, {moves} {each} each, on SQLite through "
        f"the service (no sockets), {rounds} rounds interleaved, medians",
        "",
        "| Code | CPU per move | best round | vs the first | round by round | moves/s | moves "
        "| state messages per move | mean state message |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    first: list[dict[str, float]] = next(iter(results.values()))
    for name, rows in results.items():
        cpu = statistics.median(r["cpu_us"] for r in rows)
        # Each round's ratio to the first code's same round: the machine's drift between
        # rounds (children run one after the other) cancels out.
        paired = [r["cpu_us"] / f["cpu_us"] for r, f in zip(rows, first)]
        lines.append(
            f"| {name} | {cpu:.1f} us | {min(r['cpu_us'] for r in rows):.1f} us "
            f"| {cpu / statistics.median(f['cpu_us'] for f in first):.3f}x "
            f"| {statistics.median(paired):.3f}x ({min(paired):.3f}-{max(paired):.3f}) "
            f"| {statistics.median(r['per_s'] for r in rows):,.0f} | {statistics.median(r['moves'] for r in rows):,.0f} "
            f"| {statistics.median(r['messages'] for r in rows):.2f} | {statistics.median(r['kb'] for r in rows):.2f} KB |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        _child(argv[1:])
        return 0
    p = argparse.ArgumentParser(prog="python -m server.bench moves", description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=100, help="matches played at once (default 100)")
    p.add_argument("--moves", type=int, default=300, help="moves per match (default 300)")
    p.add_argument(
        "--rounds", type=int, default=5, help="interleaved rounds; medians are printed (default 5)"
    )
    p.add_argument(
        "--opponent",
        choices=("human", "easy", "normal", "hard"),
        default="human",
        help="human (default: both seats played here) or the computer at that level (a move: a human action)",
    )
    p.add_argument(
        "--variant",
        dest="variants",
        action="append",
        default=[],
        help="name:root=DIR[,KEY=VALUE...]: another checkout (and environment), run beside this one; "
        "compiled=1: a copy of it compiled as a wheel is",
    )
    p.add_argument(
        "--instructions",
        action="store_true",
        help="count each code's instructions per move with valgrind's callgrind (one round; "
        "about 25 s a thousand moves): repeatable where CPU time is not; try --matches 20 --moves 150",
    )
    args = p.parse_args(argv)
    from server.bench.load.scale import Variant

    variants = [Variant("this checkout"), *(Variant.parse(s) for s in args.variants)]
    if args.instructions:
        counts = count_instructions(variants, args.matches, args.moves, args.opponent)
        print(format_instructions(counts, args.matches, args.moves, args.opponent))
        return 0
    results = run(variants, args.matches, args.moves, args.rounds, args.opponent)
    print(format_rows(results, args.matches, args.moves, args.rounds, args.opponent))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
