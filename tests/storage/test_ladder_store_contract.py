"""The Store port's bot and ladder part, on every store (memory, SQL and group-commit on SQLite,
and on PostgreSQL when reachable): a bot is marked once, an entrant enrolls once, entries come
best first, pairs are filtered and newest first, and a finished pair lands with both entrants'
new ratings only from the games counts they were computed from, or not at all."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from server.service.ladder_ports import BotRecord, LadderEntry, LadderPair

from .records import make_player, now
from .test_store_contract import store  # noqa: F401  (the fixture, over every store)


def entry(player_id: str, rating: float = 1500.0, games: int = 0, reference: bool = False) -> LadderEntry:
    return LadderEntry(player_id, "", reference, rating, 350.0, 0.06, games, now(), now())


async def test_a_bot_is_marked_once_and_found_among_players(store):  # noqa: F811
    ada, bot = await make_player(store, "Ada"), await make_player(store, "Robo")
    assert await store.create_bot(BotRecord(bot.player_id, "ada@example", "a greedy bot", now()))
    assert not await store.create_bot(BotRecord(bot.player_id, "x", "again", now()))
    assert (await store.bot(bot.player_id)).description == "a greedy bot"
    assert await store.bot(ada.player_id) is None
    assert set(await store.bots([ada.player_id, bot.player_id])) == {bot.player_id}
    assert await store.bots([]) == {}


async def test_entrants_enroll_once_and_come_best_first_with_their_names(store):  # noqa: F811
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    assert await store.add_ladder_entry(entry(ada.player_id, 1400.0))
    assert await store.add_ladder_entry(entry(bob.player_id, 1600.0, reference=True))
    assert not await store.add_ladder_entry(entry(ada.player_id, 1900.0))
    entries = await store.ladder_entries()
    assert [(e.name, e.rating, e.reference) for e in entries] == [
        ("Bob", 1600.0, True),
        ("Ada", 1400.0, False),
    ]
    assert (await store.ladder_entry(ada.player_id)).name == "Ada"
    assert await store.ladder_entry("nobody") is None


async def test_a_finished_pair_lands_with_both_ratings_or_not_at_all(store):  # noqa: F811
    ada, bob, cy = [await make_player(store, n) for n in ("Ada", "Bob", "Cy")]
    for p in (ada, bob, cy):
        await store.add_ladder_entry(entry(p.player_id))
    t = now()
    first = LadderPair("lp1", ada.player_id, bob.player_id, "house", ("m1", "m2"), "playing", t)
    second = LadderPair(
        "lp2", cy.player_id, ada.player_id, "house", ("m3", "m4"), "playing", t + timedelta(seconds=1)
    )
    await store.create_ladder_pair(first)
    await store.create_ladder_pair(second)
    assert [p.pair_id for p in await store.ladder_pairs(player_id=ada.player_id, status=None, limit=10)] == [
        "lp2",
        "lp1",
    ]
    assert [p.pair_id for p in await store.ladder_pairs(player_id=bob.player_id, status=None, limit=10)] == [
        "lp1"
    ]
    done = dataclasses.replace(first, status="finished", finished_at=t, wins=2, points=80, score=1.0)
    # Computed from a rating Bob does not have (one game counted): refused, Ada's part with it.
    stale = [entry(ada.player_id, 1600.0, games=1), entry(bob.player_id, 1400.0, games=2)]
    assert not await store.finish_ladder_pair(done, stale)
    assert (await store.ladder_entry(ada.player_id)).games == 0
    assert (await store.ladder_pairs(player_id=None, status="playing", limit=10))[-1].pair_id == "lp1"
    fresh = [entry(ada.player_id, 1600.0, games=1), entry(bob.player_id, 1400.0, games=1)]
    assert await store.finish_ladder_pair(done, fresh)
    assert not await store.finish_ladder_pair(done, [entry(ada.player_id, 1700.0, games=2)])  # once only
    assert (await store.ladder_entry(ada.player_id)).rating == 1600.0
    [stored] = await store.ladder_pairs(player_id=bob.player_id, status="finished", limit=10)
    assert (stored.status, stored.match_ids, stored.wins, stored.points, stored.score) == (
        "finished",
        ("m1", "m2"),
        2,
        80,
        1.0,
    )
    assert [p.pair_id for p in await store.ladder_pairs(player_id=None, status="playing", limit=10)] == [
        "lp2"
    ]
