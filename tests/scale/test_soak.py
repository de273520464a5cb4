"""Well-behaved matches on two replicas under hostile load, one replica killed with ``kill -9``
and a Postgres backend of the other terminated: nothing acknowledged is lost, no well-behaved
action is refused, and every kind of bad input is sent and answered without a traceback
(``python -m server.bench soak``, run small)."""

from __future__ import annotations

import argparse

import pytest

from server.bench import soak

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


async def test_a_short_soak_loses_nothing_refuses_no_victim_and_logs_no_traceback(postgres_admin):
    args = argparse.Namespace(seconds=20.0, matches=6, hostile=10, think=0.1, postgres_admin=postgres_admin)
    r = await soak.soak(args)
    print("\n" + soak.format_report(r))  # shown with pytest -s
    assert r["acked"] > 50, "the well-behaved load never got going"
    assert r["lost"] == 0, r["lost_examples"]
    assert r["victim_errors"] == {}, r["victim_errors"]
    assert set(r["allowed_errors"]) <= {"stale_version"}
    assert r["stuck_players"] == 0 and r["failures"] == []
    assert all(r["hostile_sent"].get(k) for k in soak.KINDS), r["hostile_sent"]
    assert all(r["hostile_answers"].get(k) for k in soak.KINDS), r["hostile_answers"]
    assert r["tracebacks"] == 0, r["traceback_lines"]
    assert soak.verdict(r) == []


def test_the_soak_benchmark_is_bounded():
    for argv in (["--seconds", "4"], ["--seconds", "601"], ["--matches", "1"], ["--hostile", "0"]):
        with pytest.raises(SystemExit) as e:
            soak.main(argv)
        assert e.value.code == 2
