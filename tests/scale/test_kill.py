"""A server killed with SIGKILL under load, then restarted on the same database: every action
it acknowledged is in the records, and every match carries on where it stopped."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import pytest

from server.bench import load

pytestmark = pytest.mark.slow

MATCHES = 8


async def kill_and_restart(database_url: str, log_dir: Path) -> None:
    port = load.free_port()
    server = load.start_server(database_url, log_dir, {"GINRUMMY_BOT_DELAY": "0"}, port=port)
    restarted: load.Server | None = None
    control = load.Control(think=0.03)
    try:
        await load.wait_healthy(server.url, server.process)
        async with load.client_sessions(MATCHES, server.url) as sessions:
            players = [
                load.Player(
                    i, sessions[0], server.url, control, difficulty="normal", keep_messages=False, seed=i
                )
                for i in range(MATCHES)
            ]
            await asyncio.gather(*(p.setup() for p in players))
            for p in players:
                p.reconnect_for = 30.0
            control.stats = before = load.PhaseStats("before")
            tasks = [asyncio.ensure_future(p.play()) for p in players]
            await asyncio.sleep(1.5)
            assert before.acked > 20, "the load never got going"

            server.process.send_signal(signal.SIGKILL)
            server.process.wait(10)
            killed_at = time.perf_counter()
            control.stats = after = load.PhaseStats("after")
            await asyncio.sleep(0.3)
            restarted = load.start_server(database_url, log_dir, {"GINRUMMY_BOT_DELAY": "0"}, port=port)
            await load.wait_healthy(restarted.url, restarted.process)
            healthy_after = time.perf_counter() - killed_at
            await asyncio.sleep(2.0)
            # Each player reconnects and acts at its own pace: on a slow machine, give every one
            # the time to have an action acknowledged by the new server (checked below).
            deadline = time.monotonic() + 30
            while not all(p.acks_by_phase["after"] for p in players) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)

            control.stopping = True
            _, stuck = await asyncio.wait(tasks, timeout=15)
            for t in stuck:
                t.cancel()
            assert not stuck, "some players never finished their turn after the restart"
            assert [p.failure for p in players if p.failure] == []
            assert all(p.reconnects >= 1 for p in players)
            # Every match resumed: each player had actions acknowledged after the restart.
            assert after.started >= killed_at
            resumed = [p.acks_by_phase["after"] for p in players]
            assert all(n > 0 for n in resumed), resumed
            # Errors: none but a possible stale version for an action in flight at the kill.
            assert set(after.errors) <= {"stale_version"}, after.errors

            settled = await asyncio.gather(*(p.settle() for p in players))
            assert sum(a for a, _, _ in settled) == before.acked + after.acked
            problems = [x for _, _, probs in settled for x in probs]
            assert sum(lost for _, lost, _ in settled) == 0, problems[:5]
            # The figures (shown with pytest -s).
            print(
                f"\nkill -9 under load ({database_url.split(':', 1)[0]}): {before.acked} actions "
                f"acknowledged before the kill and {after.acked} after; 0 lost; serving again "
                f"{healthy_after:.1f} s after the kill; all {MATCHES} matches resumed; errors after: "
                f"{dict(after.errors) or 'none'}"
            )
            await asyncio.gather(*(p.ws.close() for p in players if p.ws is not None))
    finally:
        load.stop_server(server)
        if restarted is not None:
            load.stop_server(restarted)
    logs = (log_dir / f"server-{port}.log").read_text(errors="replace")
    assert "Traceback" not in logs, logs[-3000:]


async def test_no_acknowledged_action_is_lost_when_a_sqlite_server_is_killed_and_every_match_resumes(
    tmp_path,
):
    await kill_and_restart(f"sqlite+aiosqlite:///{tmp_path / 'kill.db'}", tmp_path)


@pytest.mark.postgres
async def test_no_acknowledged_action_is_lost_when_a_postgres_server_is_killed_and_every_match_resumes(
    fresh_database, tmp_path
):
    await kill_and_restart(fresh_database, tmp_path)
