"""The Store port's contract: every implementation (in memory, SQL on SQLite, the group-commit
store, and both SQL stores on PostgreSQL when it is reachable) passes the same cases: identities
by token hash, one writer per match by compare-and-set, an action number written once, lists
filtered, ordered and paged, statistics and finished hands. (A seat's client ids are the
service's to keep unique, from every id of the match: tests/service/test_processes.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from server.service.ports import Change, FinishedHand
from server.storage import MemoryStore, SqlStore
from server.storage.group_commit import GroupCommitStore

from .databases import database
from .records import make_match, make_player, next_version, now, pass_action

IMPLEMENTATIONS = [
    "memory",
    "sql-sqlite",
    "group-sqlite",
    pytest.param("sql-postgres", marks=pytest.mark.postgres),
    pytest.param("group-postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=IMPLEMENTATIONS)
async def store(request, tmp_path) -> AsyncIterator:
    if request.param == "memory":
        yield MemoryStore()
        return
    kind, db = request.param.split("-")
    async with database(db, tmp_path) as engine:
        if kind == "sql":
            yield SqlStore(engine)
        else:
            group = GroupCommitStore(engine)
            try:
                yield group
            finally:
                await group.close()


async def test_a_player_is_found_by_its_token_hash_and_nothing_else(store):
    ada = await make_player(store)
    found = await store.player_by_token_hash(ada.token_hash)
    assert found == ada
    assert found.created_at.tzinfo is not None
    assert await store.player_by_token_hash("0" * 64) is None
    assert await store.player_by_token_hash(ada.player_id) is None


async def test_a_new_match_loads_as_it_was_written_with_no_actions(store):
    ada = await make_player(store)
    meta = await make_match(store, ada)
    assert await store.load_meta(meta.match_id) == meta
    assert await store.load_match(meta.match_id) == (meta, [])
    assert await store.finished_hands(meta.match_id) == []


async def test_a_match_loads_with_its_actions_in_order(store):
    ada = await make_player(store)
    meta = await make_match(store, ada)
    for seq in range(1, 4):
        new = next_version(meta)
        assert await store.commit(Change(meta.version, new, pass_action(seq, new.version, f"c{seq}")))
        meta = new
    loaded_meta, actions = await store.load_match(meta.match_id)
    assert loaded_meta.version == 3 and loaded_meta.seat_names == ["Ada", None]
    assert [(a.seq, a.client_id, a.version) for a in actions] == [(1, "c1", 1), (2, "c2", 2), (3, "c3", 3)]
    assert actions[0].action == {"kind": "pass"} and actions[0].seat == 0
    assert await store.load_match("m_missing") is None
    assert await store.load_meta("m_missing") is None


async def test_match_versions_reads_many_matches_at_once_and_skips_missing_ones(store):
    ada = await make_player(store)
    metas = [await make_match(store, ada) for _ in range(5)]
    moved = next_version(metas[2])
    assert await store.commit(Change(metas[2].version, moved, pass_action(1, moved.version, "c1")))
    ids = [m.match_id for m in metas] + ["m_missing"]
    assert await store.match_versions(ids) == {m.match_id: (1 if i == 2 else 0) for i, m in enumerate(metas)}
    assert await store.match_versions([]) == {}


async def test_a_write_at_a_stale_version_changes_nothing(store):
    ada = await make_player(store)
    meta = await make_match(store, ada)
    new = next_version(meta, scores=[10, 0])
    assert await store.commit(Change(meta.version, new, pass_action(1, 1)))
    stale = next_version(meta, scores=[99, 99])  # written against version 0 again
    assert not await store.commit(Change(meta.version, stale, pass_action(2, 1)))
    loaded, actions = await store.load_match(meta.match_id)
    assert loaded.version == 1 and loaded.scores == [10, 0] and len(actions) == 1


async def test_a_write_to_a_match_that_does_not_exist_lands_nowhere(store):
    ada = await make_player(store)
    meta = await make_match(store, ada)
    ghost = next_version(meta, match_id="m_ghost")
    assert not await store.commit(Change(0, ghost, pass_action(1, 1)))
    assert await store.load_match("m_ghost") is None


async def test_two_writers_at_the_same_version_never_both_land(store):
    ada = await make_player(store)
    meta = await make_match(store, ada)
    attempts = [
        store.commit(Change(meta.version, next_version(meta, scores=[i, 0]), pass_action(1, 1, f"w{i}")))
        for i in range(4)
    ]
    results = await asyncio.gather(*attempts)
    assert sorted(results) == [False, False, False, True]
    loaded, actions = await store.load_match(meta.match_id)
    assert loaded.version == 1 and len(actions) == 1
    assert loaded.scores == [results.index(True), 0]


async def test_an_action_number_is_written_once_even_if_the_version_check_passes(store):
    ada = await make_player(store)
    meta = await make_match(store, ada)
    first = next_version(meta)
    assert await store.commit(Change(meta.version, first, pass_action(1, 1)))
    # A confused writer with the right version but an action number already taken.
    assert not await store.commit(Change(first.version, next_version(first), pass_action(1, 2)))
    loaded, actions = await store.load_match(meta.match_id)
    assert loaded.version == 1 and len(actions) == 1


async def test_a_change_writes_every_column_it_may_change(store):
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    meta = await make_match(store, ada, opponent="human", difficulty=None, status="waiting", invite_hash="h")
    joined = next_version(
        meta, seat_ids=[ada.player_id, bob.player_id], seat_names=["Ada", "Bob"], invite_hash=None
    )
    assert await store.commit(Change(0, joined))
    done = next_version(
        joined,
        status="finished",
        winner=1,
        resigned=0,
        scores=[3, 4],
        hands_won=[1, 2],
        hand_number=3,
        outcome={"winner": 1, "reason": "resign", "totals": []},
        updated_at=now() + timedelta(minutes=5),
    )
    assert await store.commit(Change(1, done))
    assert await store.load_meta(meta.match_id) == done


async def test_the_match_list_filters_orders_and_pages(store):
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    t0 = now()
    m1 = await make_match(store, ada, created_at=t0)
    m2 = await make_match(store, ada, rules="classic", created_at=t0 + timedelta(seconds=1))
    m3 = await make_match(
        store, ada, opponent="human", difficulty=None, status="waiting", created_at=t0 + timedelta(seconds=2)
    )
    m4 = await make_match(store, bob, created_at=t0 + timedelta(seconds=3))
    joined = next_version(m4, seat_ids=[bob.player_id, ada.player_id], seat_names=["Bob", "Ada"])
    assert await store.commit(Change(0, joined))
    await make_match(store, bob, created_at=t0 + timedelta(seconds=4))  # not Ada's

    async def ids(**kw):
        kw = {"status": None, "rules": None, "opponent": None, "limit": 20, "offset": 0, **kw}
        metas, total = await store.list_matches(ada.player_id, **kw)
        return [m.match_id for m in metas], total

    assert await ids() == ([m4.match_id, m3.match_id, m2.match_id, m1.match_id], 4)
    assert await ids(status="waiting") == ([m3.match_id], 1)
    assert await ids(rules="classic") == ([m2.match_id], 1)
    assert await ids(opponent="human") == ([m3.match_id], 1)
    assert await ids(limit=2, offset=1) == ([m3.match_id, m2.match_id], 4)
    assert await ids(offset=10) == ([], 4)
    metas, _ = await store.list_matches(
        ada.player_id, status=None, rules=None, opponent=None, limit=1, offset=0
    )
    assert metas[0].seat_names == ["Bob", "Ada"]
    assert (await ids(status="finished")) == ([], 0)


async def test_the_match_list_filters_by_the_players_result_and_the_creation_time(store):
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    t0 = now()
    lost = await make_match(store, ada, created_at=t0)  # against the computer: seat 1's id is NULL
    assert await store.commit(Change(0, next_version(lost, status="finished", winner=1)))
    won = await make_match(store, bob, created_at=t0 + timedelta(hours=1))
    won_row = next_version(
        won, seat_ids=[bob.player_id, ada.player_id], seat_names=["Bob", "Ada"], status="finished", winner=1
    )
    assert await store.commit(Change(0, won_row))
    playing = await make_match(store, ada, created_at=t0 + timedelta(hours=2))

    async def ids(**kw):
        kw = {"status": None, "rules": None, "opponent": None, "limit": 20, "offset": 0, **kw}
        metas, _total = await store.list_matches(ada.player_id, **kw)
        return [m.match_id for m in metas]

    assert await ids(result="won") == [won.match_id]
    assert await ids(result="lost") == [lost.match_id]
    assert await ids(since=t0 + timedelta(minutes=30)) == [playing.match_id, won.match_id]
    assert await ids(until=t0 + timedelta(hours=1)) == [lost.match_id]
    assert await ids(since=t0, until=t0 + timedelta(hours=2), result="won") == [won.match_id]


async def test_stats_count_finished_matches_and_the_players_share_of_hands(store):
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")

    def hand(number, kind, winner, points):
        return FinishedHand(number, 0, kind, winner, 0, points, {"kind": kind}, now())

    # Ada is seat 1 here and wins: a gin and an undercut for her, a knock for Bob, a dead hand.
    m = await make_match(store, bob, opponent="human", difficulty=None)
    m = next_version(m, seat_ids=[bob.player_id, ada.player_id], seat_names=["Bob", "Ada"])
    assert await store.commit(Change(0, m))
    hands = (
        hand(1, "gin", 1, 31),
        hand(2, "knock", 0, 7),
        hand(3, "dead", None, 0),
        hand(4, "undercut", 1, 70),
    )
    done = next_version(m, status="finished", winner=1, scores=[7, 101])
    assert await store.commit(Change(m.version, done, hands=hands))
    # An active match against the computer with one hand Ada won.
    other = await make_match(store, ada)
    assert await store.commit(Change(0, next_version(other), hands=(hand(1, "knock", 0, 12),)))

    stats = await store.stats(ada.player_id)
    assert stats == {
        "matches": 1,
        "wins": 1,
        "losses": 0,
        "hands": 5,
        "hands_won": 3,
        "gins": 1,
        "undercuts": 1,
        "points": 31 + 70 + 12,
    }
    assert (await store.stats(bob.player_id))["losses"] == 1
    assert (await store.stats("p_nobody")) == dict.fromkeys(stats, 0)


async def test_finished_hands_come_back_in_order_with_their_results(store):
    ada = await make_player(store)
    meta = await make_match(store, ada)
    results = tuple(
        FinishedHand(n, n % 2, "knock", 0, 0, n, {"kind": "knock", "points": n}, now()) for n in (2, 1)
    )
    assert await store.commit(Change(0, next_version(meta), hands=results))
    hands = await store.finished_hands(meta.match_id)
    assert [(h.number, h.starter, h.result["points"]) for h in hands] == [(1, 1, 1), (2, 0, 2)]
    assert await store.finished_hands("m_missing") == []


async def test_what_a_store_hands_out_shares_nothing_with_what_it_keeps(store):
    ada = await make_player(store)
    meta = await make_match(store, ada)
    loaded = await store.load_meta(meta.match_id)
    loaded.scores[0] = 99
    loaded.seat_ids[1] = "p_someone"
    assert await store.load_meta(meta.match_id) == meta


async def test_matches_are_counted_by_player_and_status(store):
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    await make_match(store, ada)
    await make_match(store, ada)
    await make_match(store, ada, opponent="human", difficulty=None, status="waiting")
    m = await make_match(store, bob, opponent="human", difficulty=None, status="waiting")
    assert await store.count_matches(ada.player_id, "active") == 2
    assert await store.count_matches(ada.player_id, "waiting") == 1
    assert await store.count_matches(ada.player_id, "finished") == 0
    assert await store.count_matches(bob.player_id, "active") == 0
    # Ada joins Bob's match: it is in play for both of them now, in either seat.
    joined = next_version(
        m, seat_ids=[bob.player_id, ada.player_id], seat_names=["Bob", "Ada"], status="active"
    )
    assert await store.commit(Change(0, joined))
    assert await store.count_matches(ada.player_id, "active") == 3
    assert await store.count_matches(bob.player_id, "active") == 1
    assert await store.count_matches(bob.player_id, "waiting") == 0


async def test_a_waiting_match_is_deleted_only_while_waiting_at_its_version(store):
    ada, bob = await make_player(store, "Ada"), await make_player(store, "Bob")
    m = await make_match(store, ada, opponent="human", difficulty=None, status="waiting")
    assert not await store.delete_waiting_match(m.match_id, m.version + 1)  # not at that version
    assert not await store.delete_waiting_match("m_nothing", 0)
    assert await store.delete_waiting_match(m.match_id, m.version)
    assert await store.load_meta(m.match_id) is None
    assert await store.count_matches(ada.player_id, "waiting") == 0
    assert not await store.delete_waiting_match(m.match_id, m.version)  # gone already
    # Joined (active) or against the computer: never deleted.
    j = await make_match(store, ada, opponent="human", difficulty=None, status="waiting")
    joined = next_version(
        j, seat_ids=[ada.player_id, bob.player_id], seat_names=["Ada", "Bob"], status="active"
    )
    assert await store.commit(Change(0, joined))
    assert not await store.delete_waiting_match(j.match_id, joined.version)
    c = await make_match(store, ada)
    assert not await store.delete_waiting_match(c.match_id, c.version)
    assert await store.count_matches(ada.player_id, "active") == 2


async def test_the_clock_columns_round_trip_and_due_matches_are_found_by_deadline(store):
    ada = await make_player(store)
    tc = {"kind": "realtime", "move_seconds": 20, "bank_seconds": 120}
    t0 = now()
    due = await make_match(store, ada, time_control=tc)
    later = await make_match(store, ada, time_control=tc)
    untimed = await make_match(store, ada)
    clock = {
        "banks_ms": [120000, 90000],
        "seat": 0,
        "started": t0.isoformat(),
        "timeouts": [0, 1],
        "last_timeout": 1,
    }
    for meta, deadline in ((due, t0), (later, t0 + timedelta(seconds=60))):
        new = next_version(meta, clock=clock, deadline_at=deadline, rematch=None)
        assert await store.commit(Change(meta.version, new))
    loaded = await store.load_meta(due.match_id)
    assert loaded.time_control == tc and loaded.clock == clock and loaded.deadline_at == t0
    assert await store.due_matches(t0, 10) == [due.match_id]
    assert await store.due_matches(t0 + timedelta(seconds=60), 10) == [due.match_id, later.match_id]
    assert await store.due_matches(t0 + timedelta(seconds=60), 1) == [due.match_id]
    # A finished match is never due, whatever its row says.
    done = next_version(
        loaded, status="finished", rematch={"offered_by": 0, "declined_by": None, "match_id": None}
    )
    assert await store.commit(Change(loaded.version, done))
    assert await store.due_matches(t0 + timedelta(seconds=60), 10) == [later.match_id]
    assert (await store.load_meta(due.match_id)).rematch == {
        "offered_by": 0,
        "declined_by": None,
        "match_id": None,
    }
    assert (await store.load_meta(untimed.match_id)).time_control is None


async def test_stale_waiting_matches_are_listed_oldest_first(store):
    ada = await make_player(store)
    t0 = now()
    old = await make_match(store, ada, status="waiting", created_at=t0 - timedelta(hours=2))
    older = await make_match(store, ada, status="waiting", created_at=t0 - timedelta(hours=3))
    await make_match(store, ada, status="waiting", created_at=t0)
    await make_match(store, ada, status="active", created_at=t0 - timedelta(hours=5))
    found = await store.stale_waiting(t0 - timedelta(hours=1), 10)
    assert found == [(older.match_id, 0), (old.match_id, 0)]
    assert await store.stale_waiting(t0 - timedelta(hours=1), 1) == [(older.match_id, 0)]


@pytest.mark.parametrize("deal", ["sha256", "legacy"])
async def test_a_match_keeps_the_deal_scheme_it_was_created_with(store, deal):
    ada = await make_player(store)
    meta = await make_match(store, ada, deal=deal)
    assert (await store.load_meta(meta.match_id)).deal == deal
    # Written once, at creation: a later write cannot change how the match was dealt.
    moved = next_version(meta, deal="sha256" if deal == "legacy" else "legacy")
    assert await store.commit(Change(0, moved, pass_action(1, moved.version, "c1")))
    loaded = await store.load_match(meta.match_id)
    assert loaded is not None and loaded[0].deal == deal
