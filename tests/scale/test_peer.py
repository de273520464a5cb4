"""The peer benchmark run tiny: our server and boardgame.io, each on a fresh process, driven by
the one Node load generator; the figures are printed and moves were made on every target.
Skipped, saying why, when Node, npm or the npm registry (for the first install into the cache)
is not there."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from server.bench import peer
from server.bench.peer.node import DEFAULT_CACHE, SOURCE, NodeUnavailable, install
from server.bench.peer.run import DEFAULT_TARGETS, TARGETS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def node_dir() -> Path:
    try:
        return install(DEFAULT_CACHE, timeout=120)
    except NodeUnavailable as e:
        pytest.skip(f"the peer benchmark's Node side cannot be installed: {e}")


def _row(out: str, first: str) -> str:
    """The printed table's line whose first cell is ``first``."""
    return next(line for line in out.splitlines() if line.startswith(f"| {first} |"))


def test_the_benchmark_prints_figures_and_plays_moves_on_both_servers(
    node_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--matches", "3", "--rounds", "1", "--paced", "1.5", "--saturate", "1.5", "--think", "0.05"]
    assert peer.main(argv) == 0
    out = capsys.readouterr().out
    for name in DEFAULT_TARGETS:
        m = re.search(rf"^round 1 {name}: (\d+) paced and (\d+) saturated moves", out, re.M)
        assert m, out
        # FlatFile rewrites its file at every move: on a loaded machine its 1.5 s of saturation
        # may end before its first move lands. Every other target must move in both phases.
        if name == "bgio-flatfile":  # may land nothing in one 1.5 s phase, never in both
            assert int(m[1]) + int(m[2]) > 0, out
        else:
            assert int(m[1]) > 0 and int(m[2]) > 0, out
    for title in (TARGETS[name].title for name in DEFAULT_TARGETS):
        row = _row(out, title)
        assert "| 0 |" in row, row  # no errors on any target
    assert re.search(r"ours-hvh vs bgio-memory, CPU per move, paced: \d+\.\d\dx", out), out
    header = _row(out, "Target").split("|")
    bgio = _row(out, TARGETS["bgio-memory"].title)
    at = [c.strip() for c in header].index("new matches saturated")
    assert bgio.split("|")[at].strip() == "0", bgio  # its game never ends: it starts no match
    assert re.search(
        r"ours-hvc vs bgio-memory, CPU per human action / per move, saturated: \d+\.\d\dx", out
    ), out


def test_every_flatfile_match_is_set_up_when_many_set_up_at_once(
    node_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # boardgame.io's connection handler rewrites a match's metadata from a copy read before the
    # second seat's join lands; under FlatFile that join's credentials were lost and the seat's
    # sync went unanswered (a third of 300 matches; the run hung before the generator's
    # deadline). Both seats join before either connects: every match is set up, none errs.
    argv = ["--targets", "bgio-flatfile", "--matches", "100", "--rounds", "1", "--paced", "0.5"]
    argv += ["--saturate", "0.5", "--think", "0.05"]
    assert peer.main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"^round 1 bgio-flatfile: \d+ paced .* 0 setup errors", out, re.M), out
    row = _row(out, TARGETS["bgio-flatfile"].title)
    assert row.split("|")[-2].strip() == "0", row


def test_two_replicas_on_postgres_play_every_match_across_both(
    node_dir: Path, postgres_admin: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each match's seats on different replicas: every move reaches the other seat through
    # Postgres's notices; Postgres's own CPU is printed beside ours.
    argv = ["--targets", "ours-pg1,ours-pg2", "--matches", "3", "--rounds", "1", "--paced", "1.5"]
    argv += ["--saturate", "1.5", "--think", "0.05", "--postgres-admin", postgres_admin]
    assert peer.main(argv) == 0
    out = capsys.readouterr().out
    for name in ("ours-pg1", "ours-pg2"):
        m = re.search(rf"^round 1 {name}: (\d+) paced and (\d+) saturated moves", out, re.M)
        # A match whose moves did not cross (notices lost) stops after one move or two.
        assert m and int(m[1]) > 0 and int(m[2]) > 30, out
        row = _row(out, TARGETS[name].title)
        cells = [c.strip() for c in row.split("|")]
        assert cells[-2] == "0", row  # no errors
        assert re.fullmatch(r"\d+\.\d{3}", cells[8]), row  # Postgres CPU per move, saturated


def test_boardgame_io_shows_a_seat_only_its_own_hand(node_dir: Path) -> None:
    # Two seats on boardgame.io's local master (the server's filtering of playerView), a move
    # made: each view holds its own ten or eleven cards, none of the other's, and the stock's size.
    script = """
    const { GinLite } = require('./game');
    const { Client } = require('boardgame.io/client');
    const { Local } = require('boardgame.io/multiplayer');
    const multiplayer = Local();
    const seats = ['0', '1'].map((playerID) => Client({ game: GinLite, numPlayers: 2, multiplayer, playerID }));
    seats.forEach((c) => c.start());
    seats[0].moves.draw('stock');
    console.log(JSON.stringify(seats.map((c) => c.getState().G)));
    """
    done = subprocess.run(["node", "-e", script], cwd=node_dir, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    views = json.loads(done.stdout.strip().splitlines()[-1])
    assert [len(v["hand"]) for v in views] == [11, 10]
    assert [v["stock"] for v in views] == [30, 30]
    for mine, other in ((views[0], views[1]), (views[1], views[0])):
        shown = json.dumps(mine)
        assert not any(f'"{card}"' in shown for card in other["hand"]), (mine, other)


def test_the_node_side_is_pinned() -> None:
    lock = (SOURCE / "package-lock.json").read_text()
    assert '"node_modules/boardgame.io": {\n      "version": "0.50.' in lock
    assert '"node_modules/koa-compose": {\n      "version": "4.1.0"' in lock
    assert not (SOURCE / "node_modules").exists()
