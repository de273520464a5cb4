"""The live-match cache keeps at most ``max_live`` matches, dropping idle ones; when busy matches
alone exceed the bound it looks again only after a pause, so a new match does not walk every
live one (10,000 at scale)."""

from __future__ import annotations

from datetime import UTC, datetime

from server.rules import new_match
from server.service.clock import FakeClock
from server.service.live import EVICT_PAUSE, EVICT_ROOM, LiveMatch, MatchCache
from server.service.ports import MatchMeta


def _live(n: int) -> LiveMatch:
    now = datetime.now(UTC)
    state = new_match("house", f"s{n}", 0)
    meta = MatchMeta(
        f"m_{n}", "house", "human", None, state.seed, 0, "active", 0,
        ["p_1", "p_2"], ["Ada", "Bo"], "", None, 1, [0, 0], [0, 0], None, None, None, now, now,
    )  # fmt: skip
    return LiveMatch(meta, state, 0)


class _Socket:
    seat = 0

    def deliver(self, update: object) -> None:
        pass


def bare_cache(clock: FakeClock, max_live: int) -> MatchCache:
    """A cache with no store, bots or callbacks: only its eviction is under test."""
    return MatchCache(
        None,  # type: ignore[arg-type]
        clock,
        max_live=max_live,
        make_bot=lambda m: None,
        on_loaded=lambda lv: None,
        on_moved=lambda lv: None,
    )


async def test_idle_matches_go_and_busy_ones_past_the_bound_pause_the_search():
    clock = FakeClock()
    cache = bare_cache(clock, 2)
    busy = []
    for i in range(3):
        lv = cache.remember(_live(i))
        lv.subscribers.add(_Socket())  # a socket on it: in use
        busy.append(lv)
        await clock.advance(0.001)
    assert len(cache) == 3  # over the bound, all busy
    # Busy ones exceed the bound: the search found nothing to drop and pauses; within the
    # pause nothing is searched or dropped, even once there is an idle one.
    busy[0].subscribers.clear()
    cache.remember(_live(3))
    await clock.advance(EVICT_PAUSE / 2)
    cache.remember(_live(4))
    assert len(cache) == 5
    await clock.advance(EVICT_PAUSE)
    newest = cache.remember(_live(5))
    # The idle ones went, oldest first, but never the one just remembered; the busy ones stay.
    assert sorted(lv.match_id for lv in cache) == ["m_1", "m_2", "m_5"]
    assert newest.match_id in cache


async def test_under_the_bound_every_new_match_evicts_at_once():
    clock = FakeClock()
    cache = bare_cache(clock, 2)
    for i in range(5):
        cache.remember(_live(i))
        await clock.advance(0.001)
    assert sorted(lv.match_id for lv in cache) == ["m_3", "m_4"]  # the newest, kept


async def test_an_eviction_makes_room_so_the_next_loads_search_nothing():
    clock = FakeClock()
    cache = bare_cache(clock, 20)
    room = int(20 * EVICT_ROOM)
    searches = 0
    search = cache.evict

    def counted(keep: LiveMatch | None = None) -> None:
        nonlocal searches
        if len(cache) > cache.max_live:  # past the bound: this call walks every live match
            searches += 1
        search(keep)

    cache.evict = counted  # type: ignore[method-assign]
    for i in range(21):
        cache.remember(_live(i))
        await clock.advance(0.001)
    # One past the bound: the oldest idle ones went, down to a tenth of the bound below it.
    assert len(cache) == 20 - room and searches == 1
    assert {lv.match_id for lv in cache} == {f"m_{i}" for i in range(21 - (20 - room), 21)}  # the newest
    for i in range(21, 21 + room):
        cache.remember(_live(i))
    assert len(cache) == 20 and searches == 1  # the room filled without a search
    cache.remember(_live(99))
    assert len(cache) == 20 - room and searches == 2
