"""Rated matches through the service, on the in-memory store and on SQLite (and PostgreSQL when
reachable): a finished rated match updates both ratings with the hand-checked Glicko-2 figures,
exactly once, across replays, restarts and two processes; casual matches and matches against
the computer change nothing; the leaderboard keeps players with enough games, paged."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from server.service import FakeClock, MatchService, SequentialIds
from server.service.errors import BadRequest, NotFound
from server.service.rating_ports import RatingOutcome
from server.storage import MemoryStore, SqlStore

from ..storage.databases import database

STORES = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


async def _store(kind: str, tmp_path) -> AsyncIterator:
    if kind == "memory":
        yield MemoryStore()
        return
    async with database(kind, tmp_path) as engine:
        yield SqlStore(engine)


@pytest.fixture(params=STORES)
async def store(request, tmp_path) -> AsyncIterator:
    """Every store, Postgres too: for what races or restarts."""
    async for s in _store(request.param, tmp_path):
        yield s


@pytest.fixture(params=STORES[:2])
async def quick_store(request, tmp_path) -> AsyncIterator:
    """Memory and SQLite: for what no race can change."""
    async for s in _store(request.param, tmp_path):
        yield s


def service_on(store, prefix: str = "") -> MatchService:
    return MatchService(store, bot_delay=0, clock=FakeClock(), ids=SequentialIds(prefix))


async def rated_match(service: MatchService, ada, bob, *, rated: bool = True):
    created = await service.create_match(ada, opponent="human", rated=rated)
    await service.join(bob, created.meta.match_id, created.invite)
    return created.meta.match_id


async def test_a_rated_match_updates_both_ratings_with_glicko2(store):
    service = service_on(store)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    match_id = await rated_match(service, ada, bob)
    await service.resign(bob, match_id)  # Ada wins
    await service.ratings.drain()
    won = (await service.ratings.rating(ada.player_id)).rating
    lost = (await service.ratings.rating(bob.player_id)).rating
    # Two new players (1500, RD 350, volatility 0.06), one match: see tests/service/test_glicko.py.
    assert won.rating == pytest.approx(1662.31, abs=0.01) and won.games == 1
    assert lost.rating == pytest.approx(1337.69, abs=0.01)
    assert won.deviation == lost.deviation == pytest.approx(290.32, abs=0.01)
    history, total = await service.ratings.history(ada.player_id, limit=10, offset=0)
    assert total == 1 and history[0].match_id == match_id
    details, _ = await service.details(ada, match_id)
    assert details.rated and not details.public


async def test_a_casual_match_changes_no_rating(quick_store):
    store = quick_store
    service = service_on(store)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    await service.resign(bob, await rated_match(service, ada, bob, rated=False))
    await service.ratings.drain()
    assert (await service.ratings.rating(ada.player_id)).rating is None
    assert await service.ratings.sweep() == 0


async def test_a_match_against_the_computer_is_never_rated(quick_store):
    store = quick_store
    service = service_on(store)
    ada, _ = await service.create_player("Ada")
    with pytest.raises(BadRequest, match="never rated"):
        await service.create_match(ada, opponent="computer", rated=True)
    with pytest.raises(BadRequest):
        await service.create_match(ada, opponent="computer", public=True)
    assert await service.list_matches(ada) == ([], 0)


async def test_settling_again_or_after_a_restart_counts_the_match_once(store):
    service = service_on(store)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    match_id = await rated_match(service, ada, bob)
    await service.resign(bob, match_id)
    await service.ratings.drain()
    before = (await service.ratings.rating(ada.player_id)).rating
    meta = await store.load_meta(match_id)
    # A replay of the same end (a retried task, a second notice) and a restarted process.
    assert await service.ratings.settle(meta) is RatingOutcome.ALREADY
    restarted = service_on(store, "r")
    assert await restarted.ratings.sweep() == 0
    assert await restarted.ratings.settle(meta) is RatingOutcome.ALREADY
    assert (await restarted.ratings.rating(ada.player_id)).rating == before
    assert (await service.ratings.history(bob.player_id, limit=10, offset=0))[1] == 1


async def test_a_match_whose_process_died_before_rating_it_is_rated_at_the_next_start(store):
    service = service_on(store)
    service.ratings.after_write = lambda meta: None  # the process dies right after the commit
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    match_id = await rated_match(service, ada, bob)
    await service.resign(ada, match_id)  # Bob wins
    assert (await service.ratings.rating(bob.player_id)).rating is None
    # Two processes start at once and both sweep: the match counts once.
    one, two = service_on(store, "a"), service_on(store, "b")
    done = await asyncio.gather(one.ratings.sweep(), two.ratings.sweep())
    assert sorted(done) == [0, 1]
    rating = (await one.ratings.rating(bob.player_id)).rating
    assert rating.rating == pytest.approx(1662.31, abs=0.01) and rating.games == 1


async def test_two_matches_of_one_player_finishing_at_once_both_count(store):
    service = service_on(store)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    cy, _ = await service.create_player("Cy")
    first, second = await rated_match(service, ada, bob), await rated_match(service, ada, cy)
    await asyncio.gather(service.resign(bob, first), service.resign(cy, second))
    await service.ratings.drain()
    ada_rating = (await service.ratings.rating(ada.player_id)).rating
    assert ada_rating.games == 2
    # The second was rated from Ada's rating after the first (the compare-and-set on games).
    assert ada_rating.rating > 1662.31


async def test_the_leaderboard_keeps_players_with_enough_games_and_pages(quick_store):
    store = quick_store
    service = service_on(store)
    service.ratings.min_games, service.ratings.max_deviation = 2, 350.0
    players = [(await service.create_player(n))[0] for n in ("Ada", "Bob", "Cy")]
    ada, bob, cy = players
    for loser in (bob, bob, cy):  # Ada 3 wins, Bob 2 losses, Cy 1 loss
        await service.resign(loser, await rated_match(service, ada, loser))
    await service.ratings.drain()
    ranked, total = await service.ratings.leaderboard(limit=1, offset=0)
    assert total == 2 and [r.name for r in ranked] == ["Ada"]
    ranked, _ = await service.ratings.leaderboard(limit=1, offset=1)
    assert [(r.name, r.rating.games) for r in ranked] == [("Bob", 2)]  # Cy has 1: not listed
    with pytest.raises(BadRequest):
        await service.ratings.leaderboard(limit=0, offset=0)
    with pytest.raises(NotFound):
        await service.ratings.rating("p_nobody")


async def test_beating_throwaway_players_never_reaches_the_leaderboard(quick_store):
    """Farming: Ada wins 8 rated matches, each against a new player who resigns. Her rating
    climbs past 1950, but new opponents say little about her: her deviation stays high, she
    stays provisional and off the leaderboard. With the line at 350 she is listed (alone: the
    others have one match each)."""
    service = service_on(quick_store)
    ada, _ = await service.create_player("Ada")
    for i in range(8):
        throwaway, _ = await service.create_player(f"T{i}")
        await service.resign(throwaway, await rated_match(service, ada, throwaway))
    await service.ratings.drain()
    mine = (await service.ratings.rating(ada.player_id)).rating
    assert mine is not None and mine.games == 8 and mine.rating > 1950
    assert mine.deviation > service.ratings.max_deviation == 110.0
    assert service.ratings.provisional(mine)
    assert await service.ratings.leaderboard(limit=10, offset=0) == ([], 0)
    service.ratings.max_deviation = 350.0
    ranked, total = await service.ratings.leaderboard(limit=10, offset=0)
    assert total == 1 and [r.name for r in ranked] == ["Ada"]
    assert not service.ratings.provisional(mine)
