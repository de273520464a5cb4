"""One writer per match, on a real SQLite store: an action raced at one version is applied
once, nothing is shown before it is committed, the ack goes out before any state, a write in
flight finishes on shutdown, and a refused, failed or repeated action changes nothing."""

from __future__ import annotations

import asyncio
import json

import pytest

from server.service import MatchService
from server.service.errors import BadRequest, IdReused, IllegalAction, NotYourTurn, StaleVersion, Unavailable
from server.storage import SqlStore
from server.storage.group_commit import GroupCommitStore
from server.transport.present import state_message

from .helpers import Recorder, SlowStore, human_match


async def test_an_action_raced_twice_at_one_version_is_applied_once(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    results = await asyncio.gather(
        service.act(live, seat, "a", version, {"kind": "pass"}),
        service.act(live, seat, "b", version, {"kind": "pass"}),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["StaleVersion", "tuple"]
    assert live.meta.version == version + 1
    await service.close()


async def test_nobody_sees_an_action_before_its_commit(engine):
    service = MatchService(SlowStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    acting = asyncio.create_task(service.act(live, seat, "a", version, {"kind": "pass"}))
    await asyncio.sleep(0.05)  # the action is applied in memory and its commit is under way
    seen = json.loads(state_message(await service.current_state(live, None)))
    assert seen["version"] == version + 1  # it waited for the commit
    assert seen["view"]["hand"]["history"][-1]["kind"] == "pass"
    await acting
    await service.close()


async def test_the_ack_goes_out_before_any_state(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    watcher = Recorder(None)
    await service.subscribe(live, watcher)
    order: list[str] = []
    watcher.deliver = lambda update: order.append("state")  # type: ignore[method-assign]
    await service.act(
        live, live.state.to_act, "a", live.meta.version, {"kind": "pass"}, lambda v: order.append("ack")
    )
    assert order == ["ack", "state"]
    await service.close()


async def test_a_write_in_flight_commits_even_when_its_caller_is_cancelled_at_shutdown(engine):
    service = MatchService(SlowStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    version = live.meta.version
    caller = asyncio.create_task(service.act(live, live.state.to_act, "x", version, {"kind": "pass"}))
    await asyncio.sleep(0.05)
    caller.cancel()  # a shielded caller (a REST handler, say) goes away, as on shutdown
    await service.close()
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["x"]
    with pytest.raises(Unavailable):
        await service.act(live, live.state.to_act, "y", version + 1, {"kind": "pass"})


async def test_a_write_whose_caller_went_away_still_tells_everyone_else(engine):
    service = MatchService(SlowStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    watcher = Recorder(None)
    await service.subscribe(live, watcher)
    seen = len(watcher.messages)
    version = live.meta.version
    caller = asyncio.create_task(service.act(live, live.state.to_act, "x", version, {"kind": "pass"}))
    await asyncio.sleep(0.05)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller  # the caller is gone at once; its write goes on
    assert live.meta.version == version and len(service.writer._writes) == 1
    await service.writer.drain()
    assert live.meta.version == version + 1 and len(watcher.messages) == seen + 1
    assert watcher.messages[-1]["version"] == version + 1
    await service.close()


async def test_a_write_without_a_shield_runs_in_its_callers_task_and_drain_waits_for_it(engine):
    # As a socket's handler acts: no task of the writer's own, and shutdown still waits for it.
    service = MatchService(SlowStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    watcher = Recorder(None)
    await service.subscribe(live, watcher)
    seen, version = len(watcher.messages), live.meta.version
    acting = asyncio.create_task(
        service.act(live, live.state.to_act, "x", version, {"kind": "pass"}, shield=False)
    )
    await asyncio.sleep(0.05)  # applied in memory, its commit under way
    assert not service.writer._writes and not acting.done()
    await asyncio.wait_for(asyncio.gather(service.writer.drain(), service.writer.drain()), 5)  # both end
    assert acting.done() and acting.result() == (version + 1, False)
    assert len(watcher.messages) == seen + 1 and watcher.messages[-1]["version"] == version + 1
    await service.close()


class SlowBatches(GroupCommitStore):
    """The group commit with batches that take a while (its writer is a task of its own)."""

    async def _commit_batch(self, changes):
        await asyncio.sleep(0.1)
        return await super()._commit_batch(changes)


@pytest.mark.parametrize("group_commit", [False, True], ids=["direct", "group-commit"])
async def test_a_write_without_a_shield_cancelled_leaves_the_match_as_the_store_has_it(engine, group_commit):
    # Cancelled in its commit (a handler cancelled past the shutdown timeout): the change lands or
    # not as the store decides (a group commit's batch goes on; a direct commit never started),
    # the match is rebuilt from the store, and the next action at the stored version goes through.
    store = SlowBatches(engine) if group_commit else SlowStore(engine)
    service = MatchService(store, bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    acting = asyncio.create_task(service.act(live, seat, "x", version, {"kind": "pass"}, shield=False))
    await asyncio.sleep(0.05)  # applied in memory, its commit under way
    assert not acting.done()
    acting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await acting
    await service.writer.drain()
    await asyncio.sleep(0.2)  # a batch in flight lands
    stored = await SqlStore(engine).load_meta(live.match_id)
    assert stored is not None and stored.version == (version + 1 if group_commit else version)
    async with live.lock:  # as the seats' next hellos do
        await service.writer.catch_up(live)
    assert live.meta.version == stored.version
    seat, version = live.state.to_act, stored.version
    kind = live.state.legal_actions(seat)[0].to_wire()
    assert await service.act(live, seat, "y", version, kind) == (version + 1, False)
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == (["x", "y"] if group_commit else ["y"])
    await service.close()


async def test_errors_change_nothing(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version

    def shown() -> dict:
        # Without the countdown to a claim, which moves with the (real) clock.
        message = json.loads(state_message(service.update(live, seat)))
        del message["view"]["claim_in_ms"]
        return message

    before = shown()
    for call, error in (
        (service.act(live, seat, "a", version, {"kind": "fly"}), BadRequest),
        (service.act(live, 1 - seat, "b", version, {"kind": "pass"}), NotYourTurn),
        (service.act(live, seat, "c", version, {"kind": "discard", "card": "7h"}), IllegalAction),
        (service.act(live, seat, "d", version + 5, {"kind": "pass"}), StaleVersion),
    ):
        with pytest.raises(error):
            await call
    assert shown() == before
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert actions == []
    await service.close()


async def test_a_failed_write_with_the_store_down_is_rebuilt_before_the_next_use(engine):
    class DownStore(SqlStore):
        down = False

        async def commit(self, change):
            if self.down:
                raise ConnectionError("database unreachable")
            return await super().commit(change)

        async def load_match(self, match_id):
            if self.down:
                raise ConnectionError("database unreachable")
            return await super().load_match(match_id)

    store = DownStore(engine)
    service = MatchService(store, bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    store.down = True
    with pytest.raises(ConnectionError):
        await service.act(live, seat, "lost", version, {"kind": "pass"})
    assert live.stale  # it applied the pass in memory and could not rebuild
    store.down = False
    seen = json.loads(state_message(await service.current_state(live, None)))
    assert seen["version"] == version and seen["view"]["hand"]["history"] == []
    await service.act(live, seat, "again", version, {"kind": "pass"})
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["again"]
    await service.close()


async def test_a_repeated_id_with_another_action_is_id_reused_and_changes_nothing(engine):
    service = MatchService(SqlStore(engine), bot_delay=0)
    live, *_ = await human_match(service)
    seat, version = live.state.to_act, live.meta.version
    first = await service.act(live, seat, "once", version, {"kind": "pass"})
    assert await service.act(live, seat, "once", version, {"kind": "pass"}) == (first[0], True)
    other = live.state.to_act
    second = await service.act(live, other, "two", live.meta.version, {"kind": "pass"})
    now = live.meta.version
    assert live.state.to_act == seat
    with pytest.raises(IdReused):  # the same id, another action (now legal): not its old ack
        await service.act(live, seat, "once", now, {"kind": "draw", "source": "stock"})
    assert live.meta.version == now
    # After a reload from the store (a restart) it is still remembered with its action.
    fresh = MatchService(SqlStore(engine), bot_delay=0)
    again = await fresh.cache.get(live.match_id)
    with pytest.raises(IdReused):
        await fresh.act(again, seat, "once", now, {"kind": "draw", "source": "stock"})
    assert await fresh.act(again, seat, "once", now, {"kind": "pass"}) == (first[0], True)
    assert await fresh.act(again, other, "two", now, {"kind": "pass"}) == (second[0], True)
    _, actions = await SqlStore(engine).load_match(live.match_id)
    assert [a.client_id for a in actions] == ["once", "two"]
    await service.close()
    await fresh.close()
