"""The Python client's programs against the real server, started as a separate process: the
terminal client, its command line, the example bot and the arena, through the public protocol
only."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys

import pytest
from ginrummy_client.arena import load_strategy, run_arena
from ginrummy_client.strategies import quick
from ginrummy_client.terminal import TerminalUI

from tests.live_server import live_server

from .live import check_final, example_bot, finish_hand, player

# A server that stops answering must fail a test, not hang the suite.
pytestmark = pytest.mark.timeout(120)


async def test_the_terminal_client_plays_a_hand_driven_through_its_input(base_url):
    client = await player(base_url, "Ada")
    ticket = await client.create_match(difficulty="easy", rules="house")
    out: list[str] = []
    script = iter(["h", "x 1z", "d"])  # help, a malformed card, a command missing its pile

    async with client.connect(ticket) as conn:

        async def read(prompt: str) -> str:
            typed = next(script, None)
            if typed is None:
                view = conn.view
                # One whole hand, then leave the match to wait.
                typed = "q" if view.hand_number >= 2 or view.is_over else str(quick(view))
            out.append(prompt + typed)
            return typed

        ui = TerminalUI(conn, read, out.append, resign=lambda: client.resign(ticket.match_id))
        result = await asyncio.wait_for(ui.run(), 60)
    text = "\n".join(out)
    assert result is None  # left with q, the match goes on
    assert "Commands:" in text and "not a card" in text and "Draw from where?" in text
    assert "=== Hand 1 · house rules · first to 100 · " in text
    assert "Your hand: [" in text or "Your hand: " in text
    assert "Stock: " in text and "Discard pile: " in text
    assert "--- Hand 1: " in text
    assert any(word in text for word in ("Gin: 25 + ", "Knock: ", "Undercut: 25 + ", "Dead hand"))
    summary = await client.get_match(ticket.match_id)
    assert summary.status == "active" and summary.hand_number >= 2


async def test_resigning_from_the_terminal_ends_the_match_for_the_other_seat(base_url):
    client = await player(base_url, "Ada")
    ticket = await client.create_match(difficulty="normal")
    out: list[str] = []

    async def read(prompt: str) -> str:
        return "resign"

    async with client.connect(ticket) as conn:
        ui = TerminalUI(conn, read, out.append, resign=lambda: client.resign(ticket.match_id))
        final = await asyncio.wait_for(ui.run(), 30)
    assert final is not None and final.outcome.reason == "resign"
    assert final.outcome.winner == 1 - ticket.seat
    assert "Computer (Normal) wins the match. (You resigned) ===" in "\n".join(out)


@pytest.fixture(scope="module")
def paced_url(tmp_path_factory):
    """A server whose computer pauses 0.2 s before each of its moves."""
    with live_server(tmp_path_factory.mktemp("paced"), extra_env={"GINRUMMY_BOT_DELAY": "0.2"}) as url:
        yield url


async def test_the_terminal_client_shows_a_watcher_every_move(paced_url):
    # A watcher draws the newest state it has (when several wait, only the last): with no pause
    # before the computer's replies, a busy machine delivered Ada's moves together with them and
    # the watcher drew none of Ada's. Here the computer pauses, as it does for people.
    client = await player(paced_url, "Ada")

    async def nothing(prompt: str) -> None:
        raise AssertionError("a watcher is never asked for input")

    for _ in range(5):
        ticket = await client.create_match(difficulty="easy")
        out: list[str] = []
        async with client.connect(ticket, token=ticket.watch_token) as watch, client.connect(ticket) as conn:
            ui = asyncio.create_task(TerminalUI(watch, nothing, out.append).run())
            played = await finish_hand(conn, 1)
            # The watcher's socket hears the hand's end after the player's: wait for it (a loaded
            # machine was once more than 0.2 s behind), not for a fixed time.
            for _ in range(400):
                if any("--- Hand 1: " in line for line in out):
                    break
                await asyncio.sleep(0.025)
            ui.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ui
        if played:
            break  # (now and then the computer, first to act, knocks before Ada's first move)
    else:
        pytest.fail("five deals in a row ended before Ada's first move")
    text = "\n".join(out)
    assert "=== Hand 1 · house rules" in text and "Ada: " in text and "Computer (Easy): " in text
    assert re.search(r"\bAda (passed the upcard|took|drew|discarded|knocked)", text), text
    assert "Your hand" not in text  # a watcher has no hand
    assert "--- Hand 1: " in text


def test_the_terminal_client_runs_from_the_command_line(base_url):
    import subprocess

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ginrummy_client",
            "play",
            "--server",
            base_url,
            "--difficulty",
            "easy",
            "--name",
            "Cli",
        ],
        input="h\nq\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Commands:" in proc.stdout and "To come back:" in proc.stdout


async def test_the_example_bot_finishes_a_match_joined_through_an_invite(base_url):
    ada = await player(base_url, "Ada")
    ticket = await ada.create_match(opponent="human")
    invite = ticket.invite.url or f"{ticket.match_id}:{ticket.invite.code}"
    async with example_bot("--server", base_url, "--invite", invite) as bot:
        async with ada.connect(ticket) as conn:
            final = await asyncio.wait_for(conn.play(quick), 120)
        stdout, stderr = await asyncio.wait_for(bot.communicate(), 30)
    assert bot.returncode == 0, stderr.decode()
    check_final(final)
    lines = stdout.decode().splitlines()
    assert lines[0].startswith(f"Example bot joined match {ticket.match_id} in seat {1 - ticket.seat}")
    bot_score, my_score = final.scores[1 - ticket.seat], final.scores[ticket.seat]
    verdict = "lost" if final.outcome.winner == ticket.seat else "won"
    assert lines[-1] == f"{verdict} {bot_score} to {my_score} after {final.hand_number} hands"


async def test_the_arena_runs_a_strategy_file_against_the_computer(base_url, tmp_path):
    strategy_file = tmp_path / "mybot.py"
    strategy_file.write_text(
        "from ginrummy_client.strategies import quick\n\ndef choose(view):\n    return quick(view)\n"
    )
    lines: list[str] = []
    report = await run_arena(
        base_url,
        load_strategy(f"{strategy_file}:choose"),
        difficulty="easy",
        matches=1,
        strategy_name="mybot",
        write=lines.append,
    )
    assert len(report.matches) == 1
    line = report.matches[0]
    assert line.hands >= 1 and line.won == (line.scores[0] >= 100)
    assert line.points_for == line.scores[0] and line.points_against == line.scores[1]
    text = "\n".join(lines)
    assert "match   1:" in text and "points per hand" in text and "mybot vs the computer (easy)" in text


async def test_the_example_bot_seeks_and_plays_a_rated_match_paired_with_the_library(base_url):
    from ginrummy_client import TimeControl

    cy = await player(base_url, "Cy")
    async with cy.seek(rules="classic") as withdrawn:  # seeking, then cancelled: nothing left
        assert withdrawn.seek_id and (await cy.lobby()).seeking >= 1
        assert await withdrawn.cancel() is None
    ada = await player(base_url, "Ada")
    async with example_bot("--server", base_url, "--seek", "--rated", "--clock", "20+120") as bot:
        assert (await asyncio.wait_for(bot.stdout.readline(), 30)).decode().startswith("Example bot seeks")
        for _ in range(200):  # the bot's seek is open once the lobby counts it
            if (await ada.lobby()).seeking:
                break
            await asyncio.sleep(0.05)
        async with ada.seek(time_control=TimeControl("realtime", 20, 120), rated=True) as seek:
            pairing = await seek.paired(timeout=30)
        assert pairing.opponent == "human" and pairing.seat == 1  # the bot sought first
        async with ada.connect(pairing.match_id) as conn:
            final = await asyncio.wait_for(conn.play(quick), 120)
        stdout, stderr = await asyncio.wait_for(bot.communicate(), 30)
    assert bot.returncode == 0, stderr.decode()
    check_final(final)
    lines = stdout.decode().splitlines()
    assert lines[0] == f"Example bot was paired into match {pairing.match_id} in seat 0"
    for _ in range(100):  # the ratings follow the last action a moment later
        rating = await ada.rating()
        if rating.rating is not None:
            break
        await asyncio.sleep(0.05)
    assert rating.rating is not None and rating.rating.games == 1
