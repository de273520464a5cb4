"""``python -m server.bench limits`` times a REST limit hit with the ``limits`` library's
in-memory storage and with the server's, per number of keys held, side by side."""

from __future__ import annotations

import re

from server.bench import limits


def test_the_limits_benchmark_prints_both_storages_per_number_of_keys(capsys):
    assert limits.main(["--keys", "10,200", "--hits", "50", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^\| ([\d,]+) \| ([\d,.]+) us \| ([\d,.]+) us \| ([\d.]+)x \|$", out, re.M)
    assert [int(keys.replace(",", "")) for keys, *_ in rows] == [10, 200]
    for _, library, ours, ratio in rows:
        assert float(library.replace(",", "")) > 0 and float(ours.replace(",", "")) > 0 and float(ratio) > 0
