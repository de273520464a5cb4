"""A server killed with SIGKILL under load, then restarted on the same database: every action
it acknowledged is in the records, and every match carries on where it stopped
(``python -m server.bench restart``, run small)."""

from __future__ import annotations

import pytest

from server.bench import restart

pytestmark = pytest.mark.slow

MATCHES = 8


async def kill_and_restart(database_url: str, tmp_path) -> None:
    r = await restart.kill_and_restart(
        database_url, tmp_path, matches=MATCHES, think=0.03, before=1.5, wait=30, play_on=1.5
    )
    assert r["acked_before"] > 20, "the load never got going"
    assert r["stuck_players"] == 0, "some players never finished their turn after the restart"
    assert r["failures"] == []
    assert r["reconnects"] >= MATCHES
    # Every match resumed: each player had actions acknowledged by the new process.
    assert r["players_back"] == MATCHES
    cpu = list(r["cpu_by_then_s"].values())  # the new server's CPU seconds as players came back
    assert all(c is not None and c > 0 for c in cpu) and cpu == sorted(cpu), cpu
    # Errors: none but a possible stale version for an action in flight at the kill.
    assert set(r["errors_after"]) <= {"stale_version"}, r["errors_after"]
    assert r["acked_checked"] == r["acked_before"] + r["acked_after"]
    assert r["lost"] == 0, r["lost_examples"]
    assert r["server_tracebacks"] == 0
    # Health probes on new connections while the players came back: each answered 200.
    assert r["probes"] and all(isinstance(p, float) for p in r["probes"]), r["probes"]
    print("\n" + restart.format_report(r, database_url.split(":", 1)[0]))  # shown with pytest -s


async def test_no_acknowledged_action_is_lost_when_a_sqlite_server_is_killed_and_every_match_resumes(
    tmp_path,
):
    await kill_and_restart(f"sqlite+aiosqlite:///{tmp_path / 'kill.db'}", tmp_path)


@pytest.mark.postgres
async def test_no_acknowledged_action_is_lost_when_a_postgres_server_is_killed_and_every_match_resumes(
    fresh_database, tmp_path
):
    await kill_and_restart(fresh_database, tmp_path)


def test_the_restart_benchmark_is_bounded():
    for args in (["--matches", "0"], ["--matches", "10001"], ["--before", "0"], ["--wait", "601"]):
        with pytest.raises(SystemExit) as e:
            restart.main(args)
        assert e.value.code == 2
