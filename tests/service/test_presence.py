"""Presence across processes: a seat connected to another process shows as connected until it
leaves, and the report of a process that died expires (on the injected clock)."""

from __future__ import annotations

from server.service import Broadcaster, FakeClock, MatchService
from server.storage import MemoryStore, SqlStore

from .helpers import Recorder, human_match


class PresenceLink(Broadcaster):
    """Two processes' broadcasters, joined: each one's presence reports reach the other's
    listeners, as the Postgres one does (changes are left to the other tests)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.peer: PresenceLink | None = None
        self.listeners: list = []
        self.sent: list[tuple[str, tuple[bool, bool]]] = []

    async def publish(self, match_id, version):
        pass

    def listen(self, listener):
        pass

    async def publish_presence(self, match_id, seats):
        self.sent.append((match_id, seats))
        for listener in self.peer.listeners:
            await listener(match_id, self.name, seats)

    def listen_presence(self, listener):
        self.listeners.append(listener)

    async def close(self):
        pass


def linked() -> tuple[PresenceLink, PresenceLink]:
    a, b = PresenceLink("a"), PresenceLink("b")
    a.peer, b.peer = b, a
    return a, b


def connected_flags(message: dict) -> list[bool]:
    return [p["connected"] for p in message["view"]["players"]]


async def test_a_seat_connected_to_another_process_shows_as_connected_until_it_leaves(engine):
    link_a, link_b = linked()
    here = MatchService(SqlStore(engine), bot_delay=0, broadcaster=link_a)
    there = MatchService(SqlStore(engine), bot_delay=0, broadcaster=link_b)
    live, *_ = await human_match(here)
    ada = Recorder(0)
    await here.subscribe(live, ada)
    assert connected_flags(ada.messages[-1]) == [True, False]

    bob = Recorder(1)
    live_there = await there.cache.get(live.match_id)
    await there.subscribe(live_there, bob)
    assert connected_flags(ada.messages[-1]) == [True, True]  # told at once, same version
    assert ada.messages[-1]["version"] == live.meta.version
    assert connected_flags(bob.messages[-1]) == [True, True]  # Ada's report came first

    await there.unsubscribe(live_there, bob)
    assert connected_flags(ada.messages[-1]) == [True, False]
    await here.close()
    await there.close()


async def test_a_report_from_a_process_that_died_expires_and_the_clients_are_told():
    clock = FakeClock()
    link_a, _ = linked()
    here = MatchService(MemoryStore(), bot_delay=0, broadcaster=link_a, presence_ttl=30, clock=clock)
    live, *_ = await human_match(here)
    ada = Recorder(0)
    await here.subscribe(live, ada)
    # Another process says Bob has a socket there, then dies: it never reports again.
    for listener in link_a.listeners:
        await listener(live.match_id, "dead-peer", (False, True))
    assert connected_flags(ada.messages[-1]) == [True, True]
    await clock.settle()
    assert clock.sleepers == 1  # the presence loop, every third of the 30 s
    await clock.advance(29.9)
    assert connected_flags(ada.messages[-1]) == [True, True]  # not expired yet
    # Meanwhile this process kept reporting its own socket (at 10 s and 20 s).
    assert link_a.sent.count((live.match_id, (True, False))) == 3  # (and once on subscribing)
    await clock.advance(0.1)  # 30 s: the report is forgotten at the loop's next round
    assert connected_flags(ada.messages[-1]) == [True, False]
    await here.close()
