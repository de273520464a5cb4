"""``python -m server.bench loads`` loads matches from a SQLite file as the store reads them and
through the engine, and prints both per number of actions."""

from __future__ import annotations

import re

from server.bench import loads


def test_the_loads_benchmark_prints_both_readers_per_match_length(capsys):
    assert loads.main(["--matches", "6", "--actions", "5,30", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^\| (\d+) \| ([\d,]+) us \| ([\d,]+) us \| ([\d.]+)x \|$", out, re.M)
    assert [int(actions) for actions, *_ in rows] == [5, 30]
    for _, ours, engine, ratio in rows:
        assert int(ours.replace(",", "")) > 0 and int(engine.replace(",", "")) > 0 and float(ratio) > 0
