"""What a process keeps in memory: idle matches leave it and come back from the store, the
gauges count what it holds, players are remembered by token (unknown tokens are not), and a
match row's copy shares nothing with the original."""

from __future__ import annotations

import dataclasses

import pytest

from server.service import MatchService
from server.service.errors import Unauthorized
from server.storage import SqlStore


async def test_idle_matches_leave_memory_and_come_back_from_the_store(engine):
    service = MatchService(SqlStore(engine), bot_delay=0, max_live=2)
    ada, _ = await service.create_player("Ada")
    made = [await service.create_match(ada, opponent="human") for _ in range(4)]
    assert len(service.cache) <= 2
    first = made[0].meta.match_id
    assert first not in service.cache
    live = await service.cache.get(first)  # rebuilt by replay
    assert live.meta.version == made[0].meta.version and live.state.hand_number == 1
    await service.close()


async def test_the_live_matches_gauge_counts_matches_in_play_only(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    ada, _ = await service.create_player("Ada")
    for _ in range(3):
        await service.create_match(ada, opponent="human")
    done = await service.create_match(ada)
    await service.resign(ada, done.meta.match_id)
    registry = service.metrics.registry
    assert registry.get_sample_value("ginrummy_live_matches") == 3
    assert registry.get_sample_value("ginrummy_cached_matches") == 4
    await service.close()


async def test_players_are_remembered_by_token_but_unknown_tokens_are_not(engine):
    class CountingStore(SqlStore):
        player_reads = 0

        async def player_by_token_hash(self, token_hash):
            self.player_reads += 1
            return await super().player_by_token_hash(token_hash)

    one = MatchService(SqlStore(engine), bot_delay=0)
    store = CountingStore(engine)
    two = MatchService(store, bot_delay=0)
    two.players.known = 2
    ada, ada_token = await one.create_player("Ada")  # made by another process
    assert (await two.authenticate(ada_token)) == ada and store.player_reads == 1
    created = await two.create_match(ada)
    _, seat = await two.open(created.meta.match_id, ada_token)
    assert seat == 0 and (await two.authenticate(ada_token)) == ada
    assert store.player_reads == 1  # remembered
    for _ in range(2):
        with pytest.raises(Unauthorized):
            await two.authenticate("no-such-token")
    assert store.player_reads == 3  # an unknown token is asked every time
    _, bob_token = await two.create_player("Bob")  # known from the start
    await two.authenticate(bob_token)
    assert store.player_reads == 3
    _, cy_token = await two.create_player("Cy")  # a third: the least recent (Ada) is forgotten
    await two.authenticate(cy_token)
    await two.authenticate(bob_token)
    assert store.player_reads == 3
    assert (await two.authenticate(ada_token)) == ada and store.player_reads == 4
    await one.close()
    await two.close()


def test_a_match_row_copy_has_every_field_and_shares_no_list():
    from datetime import UTC, datetime

    from server.service.ports import MatchMeta

    values = {}
    for i, f in enumerate(dataclasses.fields(MatchMeta)):
        if f.name.endswith("_at"):
            values[f.name] = datetime(2026, 1, 1 + i, tzinfo=UTC)
        elif f.name in ("seat_ids", "seat_names", "scores", "hands_won"):
            values[f.name] = [f"{f.name}0", f"{f.name}1"]
        else:
            values[f.name] = f"{f.name}-{i}"
    meta = MatchMeta(**values)
    copy = meta.copy()
    assert copy == meta
    for name in ("seat_ids", "seat_names", "scores", "hands_won"):
        assert getattr(copy, name) is not getattr(meta, name)
