"""Open challenges through the service: a public match is listed while it waits, anyone may
accept it, and when two accept at once (two processes on one database: SQLite, and PostgreSQL
when reachable) exactly one gets the seat and the other ``challenge_taken``; the lobby counts."""

from __future__ import annotations

import asyncio

import pytest

from server.service.errors import AlreadyJoined, ChallengeTaken, Forbidden

from .test_ratings import quick_store, service_on, store  # noqa: F401  (the fixtures)


async def test_two_processes_accepting_one_challenge_at_once_seat_exactly_one(store):  # noqa: F811
    refused = []
    commit = store.commit

    async def watched(change):
        ok = await commit(change)
        if not ok:
            refused.append(change.meta.seat_ids[1])
        return ok

    store.commit = watched
    one, two = service_on(store, "a"), service_on(store, "b")
    ada, _ = await one.create_player("Ada")
    bob, _ = await one.create_player("Bob")
    cy, _ = await two.create_player("Cy")
    created = await one.create_match(ada, opponent="human", public=True, rated=True)
    match_id = created.meta.match_id
    # Both processes hold the waiting match in memory, as after a look at the challenge list.
    await one.cache.get(match_id), await two.cache.get(match_id)
    results = await asyncio.gather(
        one.accept(bob, match_id), two.accept(cy, match_id), return_exceptions=True
    )
    taken = [r for r in results if isinstance(r, ChallengeTaken)]
    seated = [r for r in results if not isinstance(r, BaseException)]
    assert len(taken) == 1 and len(seated) == 1, results
    assert len(refused) == 1  # the store's compare-and-set decided, not a lock in one process
    stored = await store.load_meta(match_id)
    assert stored.status == "active" and stored.seat_ids[1] in (bob.player_id, cy.player_id)
    assert seated[0][0].seat_ids[1] == stored.seat_ids[1]
    assert await one.lobby.challenges(limit=10, offset=0) == ([], 0)


async def test_many_accepting_in_one_process_seat_exactly_one(store):  # noqa: F811
    service = service_on(store)
    ada, _ = await service.create_player("Ada")
    takers = [(await service.create_player(f"P{i}"))[0] for i in range(5)]
    created = await service.create_match(ada, opponent="human", public=True)
    results = await asyncio.gather(
        *(service.accept(p, created.meta.match_id) for p in takers), return_exceptions=True
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, ChallengeTaken) for r in results if isinstance(r, BaseException))


async def test_a_private_match_cannot_be_accepted_and_the_creator_cannot_accept_their_own(quick_store):  # noqa: F811
    store = quick_store  # noqa: F811
    service = service_on(store)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    private = await service.create_match(ada, opponent="human")
    with pytest.raises(Forbidden, match="invite"):
        await service.accept(bob, private.meta.match_id)
    public = await service.create_match(ada, opponent="human", public=True)
    with pytest.raises(AlreadyJoined):
        await service.accept(ada, public.meta.match_id)
    assert (await store.load_meta(private.meta.match_id)).status == "waiting"
    # The invite still works for a public match too.
    meta, seat = await service.join(bob, public.meta.match_id, public.invite)
    assert seat == 1 and meta.status == "active"


async def test_the_list_shows_the_creators_rating_and_the_lobby_counts(quick_store):  # noqa: F811
    store = quick_store  # noqa: F811
    service = service_on(store)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    first = await service.create_match(ada, opponent="human", public=True, rated=True)
    await service.accept(bob, first.meta.match_id)
    await service.resign(bob, first.meta.match_id)
    await service.ratings.drain()
    await service.create_match(ada, opponent="human", public=True, rated=True)
    await service.create_match(bob, opponent="computer")
    found, total = await service.lobby.challenges(limit=10, offset=0)
    assert total == 1 and found[0].meta.seat_names[0] == "Ada" and found[0].meta.rated
    assert found[0].rating is not None and found[0].rating.rating == pytest.approx(1662.31, abs=0.01)
    counts = await service.lobby.counts()
    assert (counts.waiting, counts.playing) == (1, 1)  # Bob against the computer
