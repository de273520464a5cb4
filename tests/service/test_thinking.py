"""The Hard computer thinks in worker processes: the same moves as the server's own bot would
make (bots are deterministic in seed and view), the event loop free meanwhile, and a dead worker
costs one decision, not the match."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from concurrent.futures.process import BrokenProcessPool

import pytest

from server.bots import make_bot
from server.rules import new_match
from server.service import MatchService
from server.service.thinking import ThinkingPool
from server.storage import SqlStore, create_engine, upgrade


def views_of_play(seed: int, count: int):
    """``count`` views of the seat to act, from a match played by Normal bots."""
    m = new_match("house", seed=seed)
    bots = [make_bot("normal", f"{seed}:{s}") for s in (0, 1)]
    out = []
    while len(out) < count and not m.is_over:
        seat = m.hand.to_act
        view = m.hand.view(seat)
        out.append(view)
        m.apply(bots[seat].choose(view), seat)
    return out


async def test_a_worker_chooses_exactly_what_the_bot_in_this_process_would():
    pool = ThinkingPool(1, queue_limit=100)  # all twelve at once, none made lighter
    try:
        views = views_of_play(11, 12)
        chosen = await asyncio.gather(*(pool.choose("hard", "m:bot", v) for v in views))
        here = make_bot("hard", "m:bot")
        assert chosen == [here.choose(v) for v in views]
    finally:
        pool.close()


async def test_an_analysis_and_a_hint_run_in_a_worker_and_answer_as_they_would_here():
    from server.bots.analysis import analyse_hand
    from server.service.analysis import compute_hand, compute_hint

    m = new_match("house", seed=4)
    bots = [make_bot("normal", s) for s in (0, 1)]
    while m.hand_number == 1:
        seat = m.hand.to_act
        m.apply(bots[seat].choose(m.hand.view(seat)), seat)
    view = m.hand.view(m.hand.to_act)
    pool = ThinkingPool(1)
    try:
        there = await pool.run(compute_hand, "house", m.log[0], 0, (0, 0), 2)
        hint = await pool.run(compute_hint, view, 2)
        assert pool.pending == 0
    finally:
        pool.close()
    assert there == analyse_hand(m.rules, m.log[0], 0, worlds=2) and there.decisions
    assert hint == compute_hint(view, 2) and hint.best in view.legal_actions


async def test_decisions_behind_a_long_queue_sample_fewer_worlds_and_stay_deterministic():
    lighter = 0

    def count() -> None:
        nonlocal lighter
        lighter += 1

    pool = ThinkingPool(1, queue_limit=2, on_lighter=count)
    try:
        views = views_of_play(5, 8)
        chosen = await asyncio.gather(*(pool.choose("hard", "m:bot", v) for v in views))
        # The first two found room in the queue; the n-th found n decisions ahead of it.
        budgets = [pool.worlds(n) for n in range(len(views))]
        assert budgets[:2] == [80, 80] and budgets[2:] == [53, 40, 32, 26, 22, 20]
        assert lighter == 6 and pool.pending == 0
        assert chosen == [
            make_bot("hard", "m:bot", worlds=w).choose(v) for w, v in zip(budgets, views, strict=True)
        ]
        # Easy and Normal have no budget to lighten.
        easy = await asyncio.gather(*(pool.choose("easy", "e", v) for v in views))
        assert easy == [make_bot("easy", "e").choose(v) for v in views] and lighter == 6
    finally:
        pool.close()


async def test_a_dead_worker_fails_one_decision_and_the_next_one_gets_a_new_pool():
    pool = ThinkingPool(1)
    try:
        (view,) = views_of_play(3, 1)
        await pool.choose("hard", "s", view)
        for pid in list(pool._pool._processes):  # the pool's own workers, started above
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(Exception):  # noqa: B017 (BrokenProcessPool, whatever the moment)
            await pool.choose("hard", "s", view)
        assert await pool.choose("hard", "s", view) == make_bot("hard", "s").choose(view)
    finally:
        pool.close()


def computer_moves(live) -> list:
    return [a for log in live.state.log for s, a in log.actions if s == 1]


@contextlib.asynccontextmanager
async def hard_match(tmp_path, pool: ThinkingPool):
    """A service thinking with ``pool`` (closed at the end) and a new Hard match in it."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'thinking.db'}")
    await upgrade(engine)
    service = MatchService(SqlStore(engine), bot_delay=0, thinking=pool)
    try:
        ada, _ = await service.create_player("Ada")
        created = await service.create_match(ada, difficulty="hard")
        yield service, await service.cache.get(created.meta.match_id)
    finally:
        await service.close()
        pool.close()
        await engine.dispose()


async def play_until_the_computer_moved(service, live, moves: int = 3) -> list:
    """Seat 0 plays its first legal action at each of its turns until the computer has made
    ``moves`` moves; the computer's moves."""
    for _ in range(200):
        async with live.lock:
            version, legal = live.meta.version, live.state.legal_actions(0)
        if len(computer_moves(live)) >= moves:
            break
        if legal:
            await service.act(live, 0, None, version, legal[0].to_wire())
        else:
            await asyncio.sleep(0.02)
    async with live.lock:
        return computer_moves(live)


async def test_a_hard_match_is_played_by_the_workers(tmp_path):
    pool = ThinkingPool(1)
    calls = 0
    choose = pool.choose

    async def counted(*args):
        nonlocal calls
        calls += 1
        return await choose(*args)

    pool.choose = counted  # type: ignore[method-assign]
    async with hard_match(tmp_path, pool) as (service, live):
        computer = await play_until_the_computer_moved(service, live)
    assert len(computer) >= 3 and calls >= len(computer)


async def test_when_the_workers_fail_the_servers_own_bot_makes_the_same_choice(tmp_path, caplog):
    pool = ThinkingPool(1)
    asked: list = []

    async def broken(level, seed, view):
        asked.append((seed, view))
        raise BrokenProcessPool("a worker died")

    pool.choose = broken  # type: ignore[method-assign]
    async with hard_match(tmp_path, pool) as (service, live):
        played = await play_until_the_computer_moved(service, live)
    # Every move was first asked of the (broken) workers, then chosen here: the move the Hard
    # bot makes for that view, not a fallback.
    assert len(played) >= 3 and len(asked) >= len(played)
    assert played == [make_bot("hard", seed).choose(view) for seed, view in asked[: len(played)]]
    assert "thinking worker failed" in caplog.text


PARENT = """
import asyncio, sys
from server.rules import new_match
from server.service.thinking import ThinkingPool

async def main():
    pool = ThinkingPool(1)
    m = new_match("house", seed=1)
    await pool.choose("hard", "s", m.hand.view(m.hand.to_act))
    print(*pool._pool._processes, flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def test_workers_exit_when_their_server_is_killed():
    import subprocess
    import sys
    import time

    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(p) for p in parent.stdout.readline().split()]
        assert workers and all(os.path.exists(f"/proc/{w}") for w in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers)
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def test_a_crowd_asking_for_analyses_queues_behind_no_move_and_past_its_limit_is_refused(monkeypatch):
    """Before, every analysis or hint went straight into the workers' one queue: 40 throwaway
    players asking for hints held a Hard reply in another match up for 21 s."""
    from server.service.errors import Unavailable

    pool = ThinkingPool(1, background_limit=3)
    started: list[str] = []
    gates: dict[str, asyncio.Event] = {}

    async def run(fn, name):  # the workers, held until a test lets each job finish
        started.append(name)
        gates[name] = asyncio.Event()
        await gates[name].wait()
        return name

    monkeypatch.setattr(pool, "run", run)
    asked = [asyncio.create_task(pool.background(None, f"analysis {i}")) for i in range(3)]
    await asyncio.sleep(0)
    # One in the workers, two waiting their turn; a fourth is refused at once, not queued.
    assert started == ["analysis 0"] and pool.background_asked == 3
    with pytest.raises(Unavailable):
        await pool.background(None, "analysis 3")
    # The computer's move goes straight to the workers, ahead of the two waiting.
    move = asyncio.create_task(pool.run(None, "move"))
    await asyncio.sleep(0)
    assert started == ["analysis 0", "move"]
    for name in ("analysis 0", "move", "analysis 1", "analysis 2"):
        while name not in gates:
            await asyncio.sleep(0)
        gates[name].set()
    assert await move == "move" and [await a for a in asked] == ["analysis 0", "analysis 1", "analysis 2"]
    assert started == ["analysis 0", "move", "analysis 1", "analysis 2"] and pool.background_asked == 0
