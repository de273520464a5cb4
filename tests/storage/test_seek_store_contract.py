"""The Store port's seek part (quick pairing), on every store (memory, SQL and group-commit on
SQLite, and on PostgreSQL when reachable): a placement claims the oldest open seek of its pool
by another player and creates the paired match, or stays open; one open seek per player; only
an open seek is removed; refreshing reports paired seeks; unrefreshed seeks expire; and many
placements at once never put one seek in two matches."""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from datetime import timedelta

from server.service.seek_ports import SeekRecord

from .records import make_match, make_player, now
from .test_store_contract import store  # noqa: F401  (the fixture, over every store)


def seek(player, pool: str = "house/none/0+0/casual", at=None) -> SeekRecord:
    at = at or now()
    return SeekRecord(
        "k_" + secrets.token_hex(8), player.player_id, player.name, pool, "house", None, False, at, at
    )


async def paired_match(store, player):  # noqa: F811
    """The match a placement would create: waiting, the seeker in seat 1, seat 0 for the store."""
    template = await make_match(store, player, opponent="human", status="waiting")
    await store.delete_waiting_match(template.match_id, template.version)
    template.match_id = "m_" + secrets.token_hex(8)
    template.seat_ids, template.seat_names = [None, player.player_id], [None, player.name]
    return template


async def test_a_seek_stays_open_until_a_compatible_one_claims_the_oldest(store):  # noqa: F811
    ada, bob, cy, di = [await make_player(store, n) for n in ("Ada", "Bob", "Cy", "Di")]
    t = now() - timedelta(seconds=5)
    a, b = seek(ada, at=t), seek(bob, at=t + timedelta(seconds=1))
    assert (await store.place_seek(a, await paired_match(store, ada), t)).partner is None
    assert (await store.place_seek(b, await paired_match(store, bob), t)).partner is not None  # Ada's
    assert await store.count_seeking(t) == 0
    other = seek(cy, pool="classic/none/0+0/casual")
    assert (await store.place_seek(other, await paired_match(store, cy), t)).partner is None
    match = await paired_match(store, di)
    placed = await store.place_seek(seek(di), match, t)
    assert placed.partner is None  # Cy's is in another pool
    assert await store.count_seeking(t) == 2


async def test_a_pairing_claims_a_live_seek_and_creates_the_match_with_both_seats(store):  # noqa: F811
    ada, bob, cy = [await make_player(store, n) for n in ("Ada", "Bob", "Cy")]
    t = now()
    alive_after = t - timedelta(seconds=30)
    dead, live = seek(ada, at=t - timedelta(seconds=60)), seek(bob, at=t - timedelta(seconds=1))
    await store.place_seek(dead, await paired_match(store, ada), t - timedelta(seconds=90))
    assert (await store.place_seek(live, await paired_match(store, bob), alive_after)).partner is None
    match = await paired_match(store, cy)
    placed = await store.place_seek(seek(cy), match, alive_after)
    assert placed.partner.seek_id == live.seek_id and placed.partner.match_id == match.match_id
    assert placed.partner.name == "Bob" and not placed.duplicate
    stored = await store.load_meta(match.match_id)
    assert stored.seat_ids == [bob.player_id, cy.player_id] and stored.seat_names == ["Bob", "Cy"]
    assert stored.status == "waiting"
    assert (await store.load_seek(live.seek_id)).match_id == match.match_id
    assert (await store.load_seek(dead.seek_id)).match_id is None
    assert not await store.remove_seek(live.seek_id)  # paired: not removed
    assert await store.remove_seek(dead.seek_id) and await store.load_seek(dead.seek_id) is None


async def test_one_open_seek_per_player_and_a_dead_seek_is_never_claimed(store):  # noqa: F811
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    t = now()
    await store.place_seek(
        seek(ada, at=t - timedelta(seconds=60)), await paired_match(store, ada), t - timedelta(seconds=90)
    )
    dup = await store.place_seek(seek(ada, pool="x"), await paired_match(store, ada), t)
    assert dup.duplicate and dup.partner is None
    # Ada's seek was last alive 60 s ago: with seeks alive for 30 s it is not claimed...
    assert (
        await store.place_seek(seek(bob), await paired_match(store, bob), t - timedelta(seconds=30))
    ).partner is None
    assert await store.count_seeking(t - timedelta(seconds=30)) == 1
    # ...and it expires; Bob's is refreshed first.
    assert await store.refresh_seeks([(await _open_of(store, bob)).seek_id], t) == []
    assert await store.expire_seeks(t - timedelta(seconds=30)) == 1
    assert await store.count_seeking(t - timedelta(days=1)) == 1


async def _open_of(store, player):  # noqa: F811
    for k in getattr(store, "_seeks", {}).values():
        if k.player_id == player.player_id:
            return k
    from sqlalchemy import select

    from server.storage.seeks_models import SEEKS

    async with store.engine.connect() as conn:
        seek_id = (
            await conn.execute(select(SEEKS.c.id).where(SEEKS.c.player_id == player.player_id))
        ).scalar_one()
    return await store.load_seek(seek_id)


async def test_refreshing_reports_the_paired_seeks_and_forgetting_deletes_them(store):  # noqa: F811
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    t = now()
    a = seek(ada, at=t)
    await store.place_seek(a, await paired_match(store, ada), t)
    later = t + timedelta(seconds=10)
    assert await store.refresh_seeks([a.seek_id, "k_missing"], later) == []
    assert (await store.load_seek(a.seek_id)).alive_at == later
    match = await paired_match(store, bob)
    await store.place_seek(seek(bob), match, t)
    [told] = await store.refresh_seeks([a.seek_id], later)
    assert told.seek_id == a.seek_id and told.match_id == match.match_id
    await store.forget_seeks([a.seek_id])
    assert await store.load_seek(a.seek_id) is None


async def test_many_placements_at_once_never_put_a_seek_in_two_matches(store):  # noqa: F811
    players = [await make_player(store, f"P{i}") for i in range(16)]
    t = now() - timedelta(seconds=1)
    seeks = [seek(p, at=t + timedelta(milliseconds=i)) for i, p in enumerate(players)]
    matches = [await paired_match(store, p) for p in players]
    placed = await asyncio.gather(*(store.place_seek(k, m, t) for k, m in zip(seeks, matches, strict=True)))
    claimed = [p.partner.seek_id for p in placed if p.partner is not None]
    assert len(claimed) == len(set(claimed))  # no seek claimed twice
    partnered = {k.seek_id for k, p in zip(seeks, placed, strict=True) if p.partner is not None}
    assert not partnered & set(claimed)  # a claimer was not itself claimed
    # Every seek is in exactly one match, or open; and at most one is left open.
    in_match = Counter(claimed) + Counter(partnered)
    assert set(in_match.values()) <= {1}
    assert len(seeks) - len(in_match) == await store.count_seeking(t) <= 1
