"""The Store port's rating and lobby part, on every store (memory, SQL and group-commit on
SQLite, and on PostgreSQL when reachable): a match counts once per player, a rating moves only
from the games count it was computed from, all of a match's updates land or none do, and the
leaderboard, history, open challenges and lobby counts are filtered, ordered and paged."""

from __future__ import annotations

from datetime import timedelta

from server.service.ports import Change
from server.service.rating_ports import RatingChange, RatingOutcome, RatingUpdate

from .records import make_match, make_player, next_version, now
from .test_store_contract import store  # noqa: F401  (the fixture, over every store)


def update(
    match_id: str, player_id: str, rating: float, games: int, at=None, deviation: float = 300.0
) -> RatingUpdate:
    return RatingUpdate(
        RatingChange(match_id, player_id, rating, deviation, 0.06, games, at or now()), games - 1
    )


async def test_a_match_counts_once_per_player_and_a_second_try_changes_nothing(store):  # noqa: F811
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    m = await make_match(store, ada, opponent="human", rated=True)
    first = [update(m.match_id, ada.player_id, 1662.3, 1), update(m.match_id, bob.player_id, 1337.7, 1)]
    assert await store.apply_ratings(m.match_id, first) is RatingOutcome.APPLIED
    again = [update(m.match_id, ada.player_id, 1800.0, 1), update(m.match_id, bob.player_id, 1200.0, 1)]
    assert await store.apply_ratings(m.match_id, again) is RatingOutcome.ALREADY
    assert (await store.rating(ada.player_id)).rating == 1662.3
    assert (await store.rating(bob.player_id)).games == 1
    history, total = await store.rating_history(ada.player_id, limit=10, offset=0)
    assert total == 1 and [h.rating for h in history] == [1662.3]


async def test_a_rating_that_moved_meanwhile_refuses_the_whole_match(store):  # noqa: F811
    ada, cy = await make_player(store, "Ada"), await make_player(store, "Cy")
    m1 = await make_match(store, ada, opponent="human", rated=True)
    m2 = await make_match(store, ada, opponent="human", rated=True)
    assert (
        await store.apply_ratings(m1.match_id, [update(m1.match_id, ada.player_id, 1600, 1)])
        is RatingOutcome.APPLIED
    )
    # Computed from Ada's rating before m1 (no games): refused, and Cy's part with it.
    stale = [update(m2.match_id, ada.player_id, 1700, 1), update(m2.match_id, cy.player_id, 1400, 1)]
    assert await store.apply_ratings(m2.match_id, stale) is RatingOutcome.MOVED
    assert await store.rating(cy.player_id) is None
    assert (await store.rating(ada.player_id)).rating == 1600
    assert await store.rating_history(cy.player_id, limit=10, offset=0) == ([], 0)
    fresh = [update(m2.match_id, ada.player_id, 1700, 2), update(m2.match_id, cy.player_id, 1400, 1)]
    assert await store.apply_ratings(m2.match_id, fresh) is RatingOutcome.APPLIED
    history, total = await store.rating_history(ada.player_id, limit=1, offset=0)
    assert total == 2 and history[0].match_id == m2.match_id  # newest first


async def test_a_first_rating_racing_another_first_rating_is_refused(store):  # noqa: F811
    ada = await make_player(store, "Ada")
    m1 = await make_match(store, ada, opponent="human", rated=True)
    m2 = await make_match(store, ada, opponent="human", rated=True)
    assert (
        await store.apply_ratings(m1.match_id, [update(m1.match_id, ada.player_id, 1600, 1)])
        is RatingOutcome.APPLIED
    )
    assert (
        await store.apply_ratings(m2.match_id, [update(m2.match_id, ada.player_id, 1700, 1)])
        is RatingOutcome.MOVED
    )
    assert (await store.rating(ada.player_id)).rating == 1600


async def test_the_leaderboard_keeps_established_players_best_first_and_pages(store):  # noqa: F811
    players = [await make_player(store, f"P{i}") for i in range(6)]
    for i, p in enumerate(players):
        for g in range(1, min(i, 4) + 1):  # player i has min(i, 4) rated matches, rating 1500 + 10 i
            m = await make_match(store, p, opponent="human", rated=True)
            deviation = 100.0 + 2 * i  # P5 the most uncertain
            assert await store.apply_ratings(
                m.match_id, [update(m.match_id, p.player_id, 1500 + 10 * i, g, deviation=deviation)]
            ) is (RatingOutcome.APPLIED)
    ranked, total = await store.leaderboard(min_games=2, max_deviation=108.0, limit=2, offset=0)
    assert total == 3  # P0 and P1: too few matches; P5: deviation 110
    assert [r.name for r in ranked] == ["P4", "P3"]
    ranked, _ = await store.leaderboard(min_games=2, max_deviation=108.0, limit=2, offset=2)
    assert [(r.name, r.rating.games) for r in ranked] == [("P2", 2)]
    ranked, total = await store.leaderboard(min_games=2, max_deviation=110.0, limit=1, offset=0)
    assert total == 4 and [r.name for r in ranked] == ["P5"]


async def test_finished_rated_matches_not_yet_counted_are_found(store):  # noqa: F811
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    rated = await make_match(store, ada, opponent="human", rated=True)
    casual = await make_match(store, ada, opponent="human")
    for m in (rated, casual):
        done = next_version(m, status="finished", winner=0, seat_ids=[ada.player_id, bob.player_id])
        assert await store.commit(Change(0, done))
    found = await store.unrated_matches(limit=10)
    assert [m.match_id for m in found] == [rated.match_id]
    assert found[0].rated and not found[0].public
    await store.apply_ratings(rated.match_id, [update(rated.match_id, ada.player_id, 1600, 1)])
    assert await store.unrated_matches(limit=10) == []


async def test_open_challenges_are_public_waiting_matches_newest_first(store):  # noqa: F811
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    old = await make_match(
        store, ada, opponent="human", status="waiting", public=True, created_at=now() - timedelta(minutes=1)
    )
    new = await make_match(store, bob, opponent="human", status="waiting", public=True, rated=True)
    await make_match(store, ada, opponent="human", status="waiting")  # private: an invite only
    found, total = await store.open_challenges(limit=10, offset=0)
    assert total == 2 and [m.match_id for m in found] == [new.match_id, old.match_id]
    assert found[0].seat_names[0] == "Bob" and found[0].rated
    page, _ = await store.open_challenges(limit=1, offset=1)
    assert [m.match_id for m in page] == [old.match_id]


async def test_lobby_counts_waiting_challenges_and_each_recent_player_once(store):  # noqa: F811
    ada, bob, cy = (
        await make_player(store, "Ada"),
        await make_player(store, "Bob"),
        await make_player(store, "Cy"),
    )
    await make_match(store, cy, opponent="human", status="waiting", public=True)
    await make_match(store, ada, opponent="human", status="active", seat_ids=[ada.player_id, None])
    both = await make_match(store, ada, opponent="human", status="waiting")
    assert await store.commit(
        Change(0, next_version(both, status="active", seat_ids=[ada.player_id, bob.player_id]))
    )
    await make_match(store, cy, status="active", updated_at=now() - timedelta(hours=1))  # long idle
    assert await store.lobby_counts(now() - timedelta(minutes=15)) == (1, 2)
