"""The scale mode of the load benchmark, run tiny: two variants interleaved, two load processes;
it runs, and prints every figure (no timing target is checked here)."""

from __future__ import annotations

import pytest

from server.bench.load.scale import ScaleOptions, Variant, _options, format_scale, run_scale, scale_verdict

pytestmark = pytest.mark.slow


async def test_the_scale_mode_runs_every_level_and_variant_and_prints_its_figures():
    opts = ScaleOptions(
        levels=[6],
        think=0.2,
        duration=1.0,
        warmup=0.5,
        variants=[
            Variant.parse("plain:GINRUMMY_UVLOOP=0"),
            Variant.parse("compressed:GINRUMMY_WS_COMPRESS=1"),
        ],
        per_client=4,  # 6 matches: two load processes
    )
    report = await run_scale(opts)
    assert [(r["matches"], r["variant"]) for r in report["runs"]] == [
        (6, "plain"), (6, "compressed"),
    ]  # fmt: skip
    for r in report["runs"]:
        assert r["setup_failures"] == 0 and not r["failures"] and not r["errors"], r
        assert r["live_matches"] == r["matches"] == r["connections"]
        assert r["acked"] > 0 and r["server_cpu_ms_per_action"] > 0
        assert r["ack_p99_ms"] is not None and r["gc_pause_max_ms"] is not None
        # The collector's share of the window: a part of it, never more than all of it.
        assert 0 <= r["gc_share"] < 1
        # The group commit's batches over the window: each commits one change or more.
        assert r["batches_per_second"] > 0 and r["batch_mean"] >= 1
        # The loop thread ran part of the window (Linux's schedstat), never more than all of it.
        assert 0 < r["loop_running"] <= 1.05 and r["loop_waiting"] >= 0
    assert report["runs"][-1]["load_processes"] == 2
    text = format_scale(report)
    print(text)
    figures = (
        "cpu/action",
        "waiting",
        "ack p50",
        "batches",
        "of the time",
        ">20ms",
        "longest since start",
        "by generation",
        "KB/match",
    )
    for figure in (*figures, "plain: CPU 6 -> 6", "load from python"):
        assert figure in text


def two_replicas(postgres_admin: str, matches: int, **options) -> ScaleOptions:
    """A short scale run of ``matches`` on two replicas on a fresh Postgres database."""
    return ScaleOptions(
        levels=[matches],
        think=0.2,
        duration=1.0,
        warmup=0.5,
        database="postgres",
        servers=2,
        postgres_admin=postgres_admin,
        **options,
    )


async def test_the_scale_mode_runs_on_postgres_with_two_replicas(postgres_admin: str):
    # per_client 2: 3 and 2 matches on the two replicas, two load processes for the first
    report = await run_scale(two_replicas(postgres_admin, 5, per_client=2))
    (r,) = report["runs"]
    assert r["setup_failures"] == 0 and not r["failures"] and not r["errors"], r
    assert (r["database"], r["servers"], r["load_processes"]) == ("postgres", 2, 3)
    # Live matches and sockets are summed over both replicas' /metrics.
    assert r["live_matches"] == r["matches"] == r["connections"] == 5
    assert r["acked"] > 0 and r["server_cpu_ms_per_action"] > 0
    assert "postgres_admin" not in report["options"]  # a DSN may hold a password
    text = format_scale(report)
    print(text)
    assert "on postgres, 2 server process(es)" in text


async def test_the_scale_mode_can_open_each_socket_on_the_other_replica(postgres_admin: str):
    report = await run_scale(two_replicas(postgres_admin, 4, cross=True))
    (r,) = report["runs"]
    assert r["setup_failures"] == 0 and not r["failures"] and not r["errors"], r
    assert r["acked"] > 0 and r["connections"] == 4
    # Each match is created on one replica and played on the other; the creator lets its copy
    # go at the first move made elsewhere, so mostly only the replica that plays it holds it
    # (a match begun just now may not have moved yet; both held every match before).
    assert r["matches"] <= r["live_matches"] < 2 * r["matches"], r["live_matches"]
    assert "each socket on another replica than its player's REST calls" in format_scale(report)


def _row(matches: int, cpu_ms: float) -> dict:
    return {
        "variant": "v",
        "matches": matches,
        "server_cpu_ms_per_action": cpu_ms,
        "ack_p99_ms": 12.0,
        "gc_slow_pauses": 0,
        "gc_slow_pauses_cpu": 0,
        "kb_per_live_match": 35.0,
    }


def test_the_cpu_ratio_compares_the_largest_level_with_the_smallest_and_one_level_gives_none():
    opts = ScaleOptions(levels=[100, 10000], variants=[Variant("v")])
    two = scale_verdict([_row(100, 0.40), _row(10000, 0.48)], opts)["v"]
    assert two["levels"] == [100, 10000] and two["cpu_ratio"] == pytest.approx(1.2)
    assert two["cpu_ratio_met"] is False
    text = format_scale({"options": _options(opts), "table": [], "verdict": {"v": two}})
    assert "CPU 100 -> 10000: 1.20x (<= 1.15) MISSED" in text
    one = scale_verdict([_row(10000, 0.48)], opts)["v"]
    assert one["cpu_ratio"] is None and one["cpu_ratio_met"] is None  # not 1.00x "met"
    text = format_scale({"options": _options(opts), "table": [], "verdict": {"v": one}})
    assert "no ratio (one level: run --scale 100,10000 for it)" in text and "1.00x" not in text


async def test_the_scale_mode_runs_with_the_node_load():
    from server.bench.peer.node import DEFAULT_CACHE, NodeUnavailable, install

    try:
        install(DEFAULT_CACHE, timeout=120)
    except NodeUnavailable as e:
        pytest.skip(f"the Node load generator cannot be installed: {e}")
    opts = ScaleOptions(levels=[6], think=0.2, duration=1.0, warmup=0.5, load="node")
    report = await run_scale(opts)
    (r,) = report["runs"]
    assert (r["load"], r["load_processes"]) == ("node", 1)
    assert r["setup_failures"] == 0 and not r["errors"], r
    assert r["live_matches"] == r["matches"] == r["connections"] == 6
    # Its players' actions in the window, acknowledged, with their latencies.
    assert r["acked"] > 0 and 0 < r["ack_p50_ms"] <= r["ack_p99_ms"] <= r["ack_max_ms"]
    assert r["server_cpu_ms_per_action"] > 0 and r["reply_p99_ms"] is None  # no reply timing
    assert "load from node" in format_scale(report)
