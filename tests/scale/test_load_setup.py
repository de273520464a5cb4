"""The load generator's setup: each player plays (reads its socket, so answers the server's
pings) from the moment its own setup is done, not once every player's is."""

from __future__ import annotations

import asyncio

from server.bench.load.runner import set_up_and_play


class FakePlayer:
    """Records when it was set up and began playing; ``wait_for``: a player whose play must have
    begun before this one's setup can end (the early player of a long setup)."""

    def __init__(self, log: list[str], name: str, wait_for: asyncio.Event | None = None, fail: bool = False):
        self.log, self.name, self.wait_for, self.fail = log, name, wait_for, fail
        self.playing = asyncio.Event()

    async def setup(self) -> None:
        if self.wait_for is not None:
            await self.wait_for.wait()
        if self.fail:
            raise ConnectionError("refused")
        self.log.append(f"{self.name} set up")

    async def play(self) -> None:
        self.log.append(f"{self.name} plays")
        self.playing.set()


async def test_a_player_plays_while_the_others_are_still_being_set_up():
    log: list[str] = []
    first = FakePlayer(log, "first")
    last = FakePlayer(log, "last", wait_for=first.playing)
    results, tasks = await asyncio.wait_for(set_up_and_play([first, last], at_once=2), 5)  # type: ignore[list-item]
    await asyncio.gather(*tasks)
    assert results == [None, None]
    assert log == ["first set up", "first plays", "last set up", "last plays"]


async def test_a_failed_setup_is_returned_and_that_player_never_plays():
    log: list[str] = []
    players = [FakePlayer(log, "a"), FakePlayer(log, "b", fail=True), FakePlayer(log, "c")]
    results, tasks = await set_up_and_play(players, at_once=1)  # type: ignore[arg-type]
    await asyncio.gather(*tasks)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], ConnectionError)
    assert len(tasks) == 2 and "b plays" not in log
