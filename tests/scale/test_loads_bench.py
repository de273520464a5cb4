"""``python -m server.bench loads`` reads what a hello reads (the match, the player and the seats'
bot accounts) from a SQLite file as the store reads them and through the engine, and prints both
per number of actions."""

from __future__ import annotations

import re

from server.bench import loads


def test_the_loads_benchmark_prints_both_readers_per_match_length(capsys):
    assert loads.main(["--matches", "6", "--actions", "5,30", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    pair = r" ([\d,]+) us \| ([\d,]+) us \| ([\d.]+)x \|"
    rows = re.findall(r"^\| (\d+) \|" + pair + pair + "$", out, re.M)
    assert [int(row[0]) for row in rows] == [5, 30]
    for row in rows:
        for ours, engine, ratio in (row[1:4], row[4:7]):
            assert int(ours.replace(",", "")) > 0 and int(engine.replace(",", "")) > 0 and float(ratio) > 0
