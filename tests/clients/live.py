"""Helpers of the live client tests: a new player's client, a finished match's checks, playing
a connection on to a point of the hand, and the example bot in a process of its own."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from ginrummy_client import GinRummyClient, MatchView, StaleVersion
from ginrummy_client.strategies import quick

CLIENT_ROOT = Path(__file__).resolve().parents[2] / "clients" / "python"


async def player(base_url: str, name: str) -> GinRummyClient:
    client = GinRummyClient(base_url)
    await client.create_player(name)
    return client


def check_final(final: MatchView, target: int = 100) -> None:
    assert final.is_over and final.status == "finished"
    assert final.outcome is not None and final.outcome.reason == "target"
    assert final.scores[final.outcome.winner] >= target > final.scores[1 - final.outcome.winner]


async def to_discard_phase(conn) -> MatchView:
    """Play on until this seat must discard (it has drawn or taken a card)."""
    while True:
        view = await conn.turn()
        assert view is not None
        if view.hand.phase == "discard":
            return view
        with contextlib.suppress(StaleVersion):  # the match moved on meanwhile: look again
            await conn.act(quick(view), version=view.version)


async def finish_hand(conn, number: int) -> int:
    """Play on until hand ``number`` has a result (the match may end with it); how many actions
    this seat played."""
    played = 0
    while True:
        view = await conn.turn()
        if view is None or view.hand_number > number:
            done = conn.view
            assert done.hand_number > number or done.is_over
            return played
        with contextlib.suppress(StaleVersion):
            await conn.act(quick(view), version=view.version)
            played += 1


@contextlib.asynccontextmanager
async def example_bot(*args: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``examples/example_bot.py ARGS`` running, its output piped; killed if still running."""
    bot = await asyncio.create_subprocess_exec(
        sys.executable,
        str(CLIENT_ROOT / "examples" / "example_bot.py"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        yield bot
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
