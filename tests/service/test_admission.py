"""Admission: past its ceiling the process refuses new players (a new match, a seek) while
those already seated play on, their matches held in memory or not; the signal is how long
commits take, on the service's clock."""

from __future__ import annotations

import pytest

from server.service import MatchService
from server.service.admission import RETRY_IN, WEIGHT, Admission, Busy
from server.service.clock import FakeClock
from server.service.errors import Unavailable
from server.service.metrics import Metrics
from server.storage import SqlStore

from .helpers import Recorder


def _admission(max_wait: float = 0.25, hold: float = 2.0) -> tuple[Admission, FakeClock, Metrics]:
    clock = FakeClock()
    metrics = Metrics(clock)
    return Admission(clock, metrics, max_wait=max_wait, hold=hold), clock, metrics


def _refused(metrics: Metrics, what: str) -> float:
    return metrics.registry.get_sample_value("ginrummy_refused_total", {"what": what}) or 0.0


def test_one_slow_commit_turns_nobody_away_and_a_sustained_queue_does():
    admission, _, metrics = _admission()
    for _ in range(50):
        admission.observe(0.005)
    admission.observe(2.0)  # a checkpoint, say: one commit of two seconds
    assert not admission.busy
    admission.check("match")  # let in
    for _ in range(40):  # every commit waits a second: a queue
        admission.observe(1.0)
    assert admission.busy
    with pytest.raises(Busy) as refused:
        admission.check("match")
    assert isinstance(refused.value, Unavailable) and refused.value.code == "unavailable"
    assert refused.value.retry_in == RETRY_IN
    assert "busy" in refused.value.message
    assert _refused(metrics, "match") == 1


def test_busy_lasts_until_commits_are_well_under_the_bound():
    admission, _, _ = _admission(max_wait=0.2)
    while not admission.busy:
        admission.observe(0.5)
    # Just under the bound is not enough (no flapping at the edge): under half of it is.
    for _ in range(200):
        admission.observe(0.15)
    assert admission.busy
    observed = 0
    while admission.busy:
        admission.observe(0.01)
        observed += 1
    assert admission.estimate < 0.1
    # The estimate forgets at WEIGHT a commit: from 0.15 to under 0.1 takes some tens of commits.
    assert observed > 0.2 / WEIGHT


async def test_with_no_commit_for_the_hold_nothing_is_waiting():
    admission, clock, _ = _admission(hold=2.0)
    for _ in range(100):
        admission.observe(3.0)
    assert admission.busy
    await clock.advance(1.9)
    assert admission.busy
    await clock.advance(0.2)
    assert not admission.busy
    admission.check("hello")
    admission.observe(0.01)  # one quick commit after the quiet: still let in
    assert not admission.busy


def test_a_wait_of_zero_never_refuses():
    admission, _, _ = _admission(max_wait=0)
    for _ in range(100):
        admission.observe(30.0)
    assert not admission.busy
    admission.check("seek")
    with pytest.raises(ValueError):
        _admission(max_wait=-1)


class _SlowCommits(SqlStore):
    """Each commit takes ``took`` seconds of the fake clock (the database's time, or the loop's
    backlog: the service cannot tell them apart, and needs not)."""

    took = 0.0

    def __init__(self, engine, clock: FakeClock) -> None:
        super().__init__(engine)
        self.clock = clock

    async def commit(self, change):
        self.clock.elapsed += self.took
        return await super().commit(change)


async def test_an_overloaded_service_refuses_new_players_and_serves_the_seated_ones(engine):
    clock = FakeClock()
    store = _SlowCommits(engine, clock)
    service = MatchService(store, bot_delay=0, clock=clock, admit_wait=0.25)
    ada, ada_token = await service.create_player("Ada")
    bob, bob_token = await service.create_player("Bob")
    seated = await service.create_match(ada, opponent="human")
    await service.join(bob, seated.meta.match_id, seated.invite)
    elsewhere = await service.create_match(bob)  # against the computer: not held once forgotten
    live = await service.cache.get(seated.meta.match_id)
    service.cache.forget(await service.cache.get(elsewhere.meta.match_id))

    store.took = 1.0  # from now on every commit waits a second
    seat = live.meta.seat_ids.index(ada.player_id)
    other = 1 - seat
    while not service.admission.busy:
        who = seat if live.state.legal_actions(seat) else other
        action = live.state.legal_actions(who)[0]
        await service.act(live, who, None, live.meta.version, action.to_wire())

    version = live.meta.version
    with pytest.raises(Busy):
        await service.create_match(ada)
    with pytest.raises(Busy):
        await service.seeks.seek(ada)
    assert (await service.list_matches(ada))[1] == 1  # nothing made
    # The seated players go on: their socket back to their match, held or not, and their actions.
    loaded, _ = await service.open(elsewhere.meta.match_id, bob_token)
    assert loaded.match_id == elsewhere.meta.match_id
    back, back_seat = await service.open(seated.meta.match_id, ada_token)
    assert back is live and back_seat == seat
    recorder = Recorder(seat)
    await service.subscribe(live, recorder)
    who = seat if live.state.legal_actions(seat) else other
    await service.act(live, who, None, live.meta.version, live.state.legal_actions(who)[0].to_wire())
    assert live.meta.version == version + 1
    assert service.metrics.registry.get_sample_value("ginrummy_busy") == 1.0
    assert _refused(service.metrics, "match") == 1
    assert _refused(service.metrics, "seek") == 1

    # Quick commits again: new players are let in.
    store.took = 0.0
    while service.admission.busy:
        who = seat if live.state.legal_actions(seat) else other
        await service.act(live, who, None, live.meta.version, live.state.legal_actions(who)[0].to_wire())
    assert service.metrics.registry.get_sample_value("ginrummy_busy") == 0.0
    await service.create_match(ada)
    await service.close()
