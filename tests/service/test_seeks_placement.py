"""A seek whose socket goes while the store is still placing it: the placement is held open here
(a store that waits on an event), the socket closes meanwhile, and the seek must be gone as soon
as the placement returns, on the injected clock that never moves, not 30 s later at its expiry;
nobody may be paired with the player who left."""

from __future__ import annotations

import asyncio

import pytest

from server.service import FakeClock
from server.service.errors import Unavailable

from .test_ratings import quick_store  # noqa: F401  (the fixture)
from .test_seeks import service


class HeldPlacement:
    """``store`` whose next ``place_seek`` waits until ``release()``: ``before`` the store
    commits, or ``after`` (committed, the answer not yet back). Every other call passes."""

    def __init__(self, store) -> None:
        self._store = store
        self.when: str | None = None

    def __getattr__(self, name):
        return getattr(self._store, name)

    def hold(self, when: str) -> None:
        self.when, self.started, self.finished, self._go = when, *(asyncio.Event() for _ in range(3))

    def release(self) -> None:
        self._go.set()

    async def place_seek(self, seek, match, alive_after):
        when, self.when = self.when, None
        if when is None:
            return await self._store.place_seek(seek, match, alive_after)
        try:
            if when == "before":
                self.started.set()
                await self._go.wait()
            placed = await self._store.place_seek(seek, match, alive_after)
            if when == "after":
                self.started.set()
                await self._go.wait()
            return placed
        finally:
            self.finished.set()


async def settle(condition, tries: int = 400) -> None:
    """Until ``condition()`` holds (the store's I/O is real on SQLite); the clock stays put."""
    for _ in range(tries):
        if await condition():
            return
        await asyncio.sleep(0.005)


@pytest.fixture
def held(quick_store):  # noqa: F811
    return HeldPlacement(quick_store)


WHEN = pytest.mark.parametrize("when", ["before", "after"])


async def gone_once_placed(s, held, seek_id: str) -> None:
    """The placement has returned, and the seek is nowhere (store or process)."""
    await asyncio.wait_for(held.finished.wait(), 5)

    async def gone() -> bool:
        return await held.load_seek(seek_id) is None and not s.seeks.local

    await settle(gone)
    assert await gone()


@WHEN
async def test_a_seek_whose_socket_closed_during_its_placement_is_gone_once_placed(held, when):
    clock = FakeClock()
    s = service(held, clock=clock)
    ada, _ = await s.create_player("Ada")
    bob, _ = await s.create_player("Bob")
    held.hold(when)
    placing = asyncio.ensure_future(s.seeks.seek(ada))
    await held.started.wait()
    (seek_id,) = s.seeks.local  # what the process knows of it by now
    await s.seeks.drop(seek_id)  # its socket closed
    held.release()
    await gone_once_placed(s, held, seek_id)
    with pytest.raises(Unavailable, match="withdrawn"):  # the lobby has nobody to tell
        await placing
    assert (await s.lobby.counts()).seeking == 0
    b = await s.seeks.seek(bob)  # a stranger finds nobody: Ada is gone
    assert not b.paired.done() and (await s.lobby.counts()).seeking == 1
    assert clock.now() == FakeClock().now()  # no time passed: not left to the 30 s expiry
    await s.close()


@WHEN
async def test_a_seek_whose_caller_was_cancelled_during_its_placement_is_gone_once_placed(held, when):
    """The lobby's handler cancelled as its socket goes: it never learnt the seek's id."""
    clock = FakeClock()
    s = service(held, clock=clock)
    ada, _ = await s.create_player("Ada")
    bob, _ = await s.create_player("Bob")
    held.hold(when)
    placing = asyncio.ensure_future(s.seeks.seek(ada))
    await held.started.wait()
    (seek_id,) = s.seeks.local
    placing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await placing
    held.release()
    await gone_once_placed(s, held, seek_id)
    b = await s.seeks.seek(bob)
    assert not b.paired.done() and (await s.lobby.counts()).seeking == 1
    assert clock.now() == FakeClock().now()
    await s.close()


async def test_a_seek_paired_at_once_while_its_caller_went_still_tells_its_partner_at_once(held):
    clock = FakeClock()
    s = service(held, clock=clock)
    ada, _ = await s.create_player("Ada")
    bob, _ = await s.create_player("Bob")
    b = await s.seeks.seek(bob)
    held.hold("after")
    placing = asyncio.ensure_future(s.seeks.seek(ada))
    await held.started.wait()
    placing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await placing
    held.release()
    # The match exists (made in the placement's commit): Bob is told now, not at a heartbeat
    # (the clock never moves); Ada may come back to it as to any match of hers.
    paired = await asyncio.wait_for(asyncio.shield(b.paired), 5)
    meta = await held.load_meta(paired.match_id)
    assert meta.seat_ids == [bob.player_id, ada.player_id] and paired.seat == 0
    assert s.seeks.local == {}
    await s.close()
