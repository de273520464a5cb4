"""``python -m server.bench writes`` commits actions through the group-commit store on a SQLite
file, with the schema at head and before migration 0009, and at head with changes that do not
know the row they replace, and prints them side by side."""

from __future__ import annotations

import re

from server.bench import writes


def test_the_writes_benchmark_compares_every_case_per_batch_size(capsys):
    assert writes.main(["--matches", "12", "--changes", "60", "--batch", "1,6", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(
        r"^\| ([\w ,]+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d,]+) \|$", out, re.M
    )
    assert sorted((rev, int(batch)) for rev, batch, *_ in rows) == [
        ("head", 1),
        ("head", 6),
        ("head, read first", 1),
        ("head, read first", 6),
        ("sessions_only", 1),
        ("sessions_only", 6),
    ]
    for _, batch, cpu, wall, per_batch, kb in rows:
        assert float(cpu) > 0 and float(wall) > 0 and int(kb.replace(",", "")) > 0
        # The actions gathered together are committed together.
        assert float(per_batch) == float(batch)
