"""``python -m server.bench moves`` plays matches through the service in child processes, this
checkout's code beside another checkout's, and prints them side by side."""

from __future__ import annotations

import re

from server.bench import moves
from server.bench.load.scale import Variant
from server.bench.load.servers import ROOT


def test_the_moves_benchmark_plays_the_same_games_for_every_code(capsys):
    argv = ["--matches", "3", "--moves", "12", "--rounds", "2", "--variant", f"same:root={ROOT}"]
    assert moves.main(argv) == 0
    out = capsys.readouterr().out
    rows = re.findall(
        r"^\| ([\w ]+) \| ([\d.]+) us \| ([\d.]+) us \| ([\d.]+)x \| ([\d.]+)x \(([\d.]+)-([\d.]+)\) "
        r"\| ([\d,]+) \| ([\d,]+) \| ([\d.]+) \| ([\d.]+) KB \|$",
        out,
        re.M,
    )
    assert [r[0] for r in rows] == ["this checkout", "same"]
    for _, cpu, best, _ratio, paired, low, high, per_s, played, messages, _kb in rows:
        assert float(best) <= float(cpu) and float(cpu) > 0 and int(per_s.replace(",", "")) > 0
        assert float(low) <= float(paired) <= float(high)
        assert int(played) == 3 * 12  # no match ends in 12 moves
        assert float(messages) == 2.0  # each move: both seats' state messages
    # The same seeded games, whichever code plays them: the same messages.
    assert rows[0][10] == rows[1][10]
    # The first code against itself, of the medians and round by round.
    assert rows[0][3:7] == ("1.000", "1.000", "1.000", "1.000")


def test_a_variant_that_cannot_run_says_why(tmp_path):
    broken = tmp_path / "server"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise ImportError('not a checkout')\n")
    try:
        moves.round_of(Variant("broken", {}, tmp_path), 2, 2, 1)
    except RuntimeError as e:
        assert "broken failed" in str(e) and "not a checkout" in str(e)
    else:
        raise AssertionError("a variant that cannot import its server ran")


def test_against_the_computer_a_move_is_a_human_action_with_the_replies_it_brings(capsys):
    argv = ["--matches", "3", "--moves", "10", "--rounds", "1", "--opponent", "normal"]
    assert moves.main(argv) == 0
    out = capsys.readouterr().out
    assert "against the computer (normal)" in out
    row = re.search(
        r"^\| this checkout \| ([\d.]+) us \|.*\| ([\d,]+) \| ([\d.]+) \| ([\d.]+) KB \|$", out, re.M
    )
    assert row is not None, out
    played, messages = int(row[2].replace(",", "")), float(row[3])
    # The person's seat alone is subscribed: its own move's message, then one per computer move
    # (at least one before its next turn), so more than one message per human action.
    assert 0 < played <= 3 * 10 and messages > 1.5, out


def test_instructions_are_read_from_callgrinds_totals_and_compared_per_move():
    header = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\nevents: Ir\n"
    assert moves.callgrind_total(header + "fl=x.c\nfn=main\n3 12\ntotals: 7145327961\n") == 7145327961
    assert moves.callgrind_total(header + "summary: 42\n") == 42
    try:
        moves.callgrind_total(header)
    except ValueError as e:
        assert "no totals line" in str(e)
    else:
        raise AssertionError("a file without totals gave a count")
    table = moves.format_instructions(
        {
            "this checkout": {"moves": 3000, "per_move": 775_600.0},
            "base": {"moves": 3000, "per_move": 830_800.0},
        },
        20,
        150,
        "human",
    )
    assert "| this checkout | 775,600 | 1.000x | 3,000 |" in table
    assert "| base | 830,800 | 1.071x | 3,000 |" in table
