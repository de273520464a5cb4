"""Making and unmaking matches: the caps on a player's waiting and active matches, and
cancelling a waiting match (gone from the store and the cache; refused once it was joined)."""

from __future__ import annotations

import pytest

from server.service import MatchService
from server.storage import SqlStore


async def test_the_service_caps_a_players_waiting_and_active_matches(engine):
    from server.service import MatchCaps
    from server.service.errors import TooManyMatches

    service = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    caps = MatchCaps(waiting=1, active=1)
    await service.create_match(ada, opponent="human", caps=caps)
    with pytest.raises(TooManyMatches):
        await service.create_match(ada, opponent="human", caps=caps)
    await service.create_match(ada, caps=caps)
    with pytest.raises(TooManyMatches):
        await service.create_match(ada, caps=caps)
    theirs = await service.create_match(bob, opponent="human", caps=caps)
    with pytest.raises(TooManyMatches):
        await service.join(ada, theirs.meta.match_id, theirs.invite, caps)
    assert (await service.store.load_meta(theirs.meta.match_id)).status == "waiting"  # nothing changed
    await service.close()


async def test_a_cancelled_match_is_gone_from_the_store_and_the_cache(engine):
    from server.service.errors import Conflict, Forbidden, NotFound

    service = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    created = await service.create_match(ada, opponent="human")
    match_id = created.meta.match_id
    with pytest.raises(Forbidden):
        await service.cancel(bob, match_id)
    await service.cancel(ada, match_id)
    assert service.cache.find(match_id) is None
    assert await service.store.load_meta(match_id) is None
    with pytest.raises(NotFound):
        await service.join(bob, match_id, created.invite)
    assert (await service.stats(ada))["matches"] == 0
    # Joined through another process: this one's copy is behind, and still refuses.
    other = await service.create_match(ada, opponent="human")
    two = MatchService(SqlStore(engine), bot_delay=0)
    await service.cache.get(other.meta.match_id)
    await two.join(bob, other.meta.match_id, other.invite)
    with pytest.raises(Conflict):
        await service.cancel(ada, other.meta.match_id)
    assert (await service.store.load_meta(other.meta.match_id)).status == "active"
    await service.close()
    await two.close()
