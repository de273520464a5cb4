"""Measurements beside the load: CPU and memory of processes (``/proc``), the service's memory
per live match under ``tracemalloc``, the game work alone per player action, and the servers'
profiles."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec

from server.bench.load.figures import PhaseStats
from server.bench.load.players import choose
from server.bench.load.servers import ROOT


def rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int | None = None) -> float | None:
    """User + system CPU seconds used so far by process ``pid`` and its live child processes
    (the computer's thinking workers), or by this process if None."""
    if pid is None:
        t = os.times()
        return t.user + t.system
    try:
        own = _stat_seconds(Path(f"/proc/{pid}/stat"))
    except OSError:
        return None
    return own + sum(cpu_seconds(child) or 0.0 for child in _children(pid))


def loop_thread_seconds(pid: int) -> tuple[float, float] | None:
    """The event loop's thread of process ``pid`` (its main thread): seconds it has run on a
    core, and seconds it has waited, ready to run, for a core (Linux's ``schedstat``). Over a
    window, the two together are how much of it the loop was busy; the second, how much of that
    the machine's other work (the load processes, the writer thread) kept it from a core. None
    where there is no such file."""
    try:
        ran, waited, _ = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return None
    return int(ran) / 1e9, int(waited) / 1e9


def _stat_seconds(stat: Path) -> float:
    """User + system CPU seconds of one process, from its ``/proc/<pid>/stat``."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def named_cpu_seconds(name: str) -> float:
    """User + system CPU seconds used so far by every live process called ``name`` (``postgres``:
    the database's backends, which no server process counts as its own). A process that exits
    between two readings takes its time with it: compare readings over a steady run."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            if (proc / "comm").read_text().strip() == name:
                total += _stat_seconds(proc / "stat")
    return total


def _children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _cpu_figures(
    before: tuple[list[float | None], float | None],
    after: tuple[list[float | None], float | None],
    phase: PhaseStats,
) -> dict[str, float | None]:
    """CPU used by the servers and by this process over a phase: cores busy, and milliseconds
    per acknowledged player action."""
    out: dict[str, float | None] = {}
    for who, b, a in (("server", before[0], after[0]), ("client", [before[1]], [after[1]])):
        used = None if None in b or None in a else sum(a) - sum(b)  # type: ignore[arg-type]
        out[f"{who}_cores"] = None if used is None else used / phase.seconds
        out[f"{who}_cpu_ms_per_action"] = (
            None if used is None or not phase.acked else 1000 * used / phase.acked
        )
    return out


class _Quiet:
    """A subscriber that drops what it is told, as a socket that sent it would."""

    seat: int | None = 0

    def __init__(self) -> None:
        self.received = 0

    def deliver(self, update: Any) -> None:
        from server.transport.present import state_message

        state_message(update)  # framed, as a socket would
        self.received += 1


async def measure_service_memory(matches: int, actions_each: int = 12) -> dict[str, Any]:
    """tracemalloc growth of a :class:`~server.service.MatchService` holding ``matches`` live
    matches, each subscribed and a dozen actions in, divided by ``matches``."""
    from server.service import MatchCaps, MatchService
    from server.storage import SqlStore, create_engine, upgrade

    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite+aiosqlite:///{tmp}/memory.db")
        await upgrade(engine)
        service = MatchService(SqlStore(engine), bot_delay=0)
        player, token = await service.create_player("Memory")
        rng = random.Random(1)

        # One player holds every match here: lift the per-player cap for this measurement.
        caps = MatchCaps(waiting=1, active=matches + 1)

        async def one() -> tuple[Any, _Quiet]:
            created = await service.create_match(player, caps=caps)
            live, _seat = await service.open(created.meta.match_id, token)
            sub = _Quiet()
            subscribed = service.subscribe(live, sub)
            if inspect.isawaitable(subscribed):  # async once subscribing takes the match's lock
                await subscribed
            return live, sub

        async def advance(live: Any) -> None:
            from server.service import SeatUpdate
            from server.transport.present import view_payload

            for _ in range(actions_each):
                for _ in range(10_000):  # the computer's turn runs as a task: wait for it (10 s)
                    busy = live.lock.locked() or live.bot_task is not None
                    if not busy and (live.state.to_act == 0 or live.meta.status != "active"):
                        break
                    await asyncio.sleep(0.001)
                if live.meta.status != "active":
                    return
                view = view_payload(SeatUpdate(live.meta, live.state.view(0), (True, True)))
                await service.act(live, 0, f"m{rng.random()}", live.meta.version, choose(view, rng))

        warm = await one()
        await advance(warm[0])
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        kept = [await one() for _ in range(matches)]
        for live, _ in kept:
            await advance(live)
        await asyncio.sleep(0.05)
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
        top = [
            {"where": str(s.traceback), "kb_per_match": round(s.size_diff / matches / 1024, 2)}
            for s in after.compare_to(before, "lineno")[:8]
        ]
        await service.close()
        await engine.dispose()
    return {"matches": matches, "bytes_per_match": grown / matches, "top": top}


def measure_game_work(difficulty: str, matches: int = 100, seed: int = 1) -> dict[str, Any]:
    """CPU per player action of the game work alone, in this process with no socket and no
    database: what the server does for an action and the computer's reply (apply the action,
    the player's state message, the computer's view and choice, apply it, the state message
    again), with the scripted players' policy. Its ratio to an echo round trip bounds
    throughput / echo floor from above, however cheap the I/O and the commits were made."""
    from datetime import UTC, datetime

    from server.bots import make_bot
    from server.rules import Action, new_match
    from server.service import SeatUpdate
    from server.service.ports import MatchMeta
    from server.transport.present import view_payload

    rng = random.Random(seed)
    now = datetime.now(UTC)
    player_actions, cpu = 0, 0.0
    for i in range(matches):
        state = new_match("house", f"work-{seed}-{i}", 0)
        meta = MatchMeta(
            f"m_work{i}", "house", "computer", difficulty, state.seed, 0, "active", 0,
            ["p_work", None], ["Work", None], "", None, 1, [0, 0], [0, 0], None, None, None, now, now,
        )  # fmt: skip
        bot = make_bot(difficulty, f"work-{seed}-{i}")
        view = view_payload(SeatUpdate(meta, state.view(0), (True, True)))
        started = time.process_time()
        while not state.is_over:
            if state.to_act == 0:
                state.apply(Action.from_wire(choose(view, rng)), 0)
                player_actions += 1
            else:
                state.apply(bot.choose(state.hand.view(1)), 1)
            view = view_payload(SeatUpdate(meta, state.view(0), (True, True)))
            msgspec.json.encode({"type": "state", "version": 0, "view": view})
        cpu += time.process_time() - started
    return {
        "matches": matches,
        "player_actions": player_actions,
        "cpu_ms_per_action": 1000 * cpu / player_actions,
    }


def _measure_memory_subprocess(matches: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "server.bench", "load", "--measure-memory", str(matches)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def summarize_profiles(paths: list[Path], top: int = 25) -> list[str]:
    """The functions where the servers spent their time (own time, then cumulative)."""
    import io
    import pstats

    if not paths:
        return []
    out = io.StringIO()
    stats = pstats.Stats(*(str(p) for p in paths), stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue().splitlines()
