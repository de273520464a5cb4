"""A hand's history is encoded once for all the ``state`` messages of one moment of a match (each
seat's and a watcher's), and every message is still byte for byte what its own view encodes to:
across moments, hands and matches built in turn, with events marked as timed out, and for a
moment whose messages are built after another match's. The views of one moment also share their
players and discard pile, made once; a change of either shows in the next."""

from __future__ import annotations

import random

import msgspec

from server.rules import new_match
from server.service.ports import SeatUpdate
from server.transport import present
from server.wire import messages as w

from .test_wire import _meta

_plain = msgspec.json.Encoder()


def _alone(update: SeatUpdate) -> bytes:
    """The message as its own view encodes it, sharing nothing."""
    return _plain.encode(w.State(update.meta.version, present.view(update)))


def _moments(seed: int, most: int = 10_000):
    """Each moment of a seeded match between two people, until it is over (or ``most``)."""
    state = new_match("house", f"shared-{seed}", 0, deal="legacy")
    rng = random.Random(seed)
    while state.outcome is None and most > 0:
        yield state
        most -= 1
        seat = state.to_act
        state.apply(rng.choice(state.view(seat).hand.legal_actions), seat)
    yield state


def test_every_views_history_of_one_moment_is_one_tuple_and_an_event_makes_a_new_one():
    state = new_match("house", "shared-tuple", 0, deal="legacy")
    before = state.view(0).hand.history
    assert before is state.view(1).hand.history is state.view(None).hand.history
    seat = state.to_act
    state.apply(state.view(seat).hand.legal_actions[0], seat)
    after = state.view(0).hand.history
    assert after is not before and after[: len(before)] == before and len(after) == len(before) + 1


def test_each_message_is_what_its_own_view_encodes_to_while_the_history_is_encoded_once():
    games = [_moments(seed, 150) for seed in range(3)]  # past each first hand
    encodings = 0
    moments = 0
    hands = set()
    while games:
        for game in list(games):  # the matches' moments interleaved, as a server's fan-outs are
            state = next(game, None)
            if state is None:
                games.remove(game)
                continue
            moments += 1
            hands.add((id(game), state.hand_number))
            meta = _meta(state, "active" if state.outcome is None else "finished", "human")
            before = present._SHARED.encoded
            for seat in (0, 1, None):
                update = SeatUpdate(meta, state.view(seat), (True, True))
                assert present.state_message(update) == _alone(update)
            encodings += present._SHARED.encoded is not before
    # One encoding per moment whose history is new (an empty history may be shared with the
    # last match's new hand): never one per message.
    assert moments > 200 and len(hands) > 3 and moments * 0.9 < encodings <= moments


def test_a_history_with_timed_out_events_is_encoded_with_its_own_view():
    moments = _moments(7)
    for _ in range(6):
        state = next(moments)
    meta = _meta(state, "active", "human")
    for seat in (0, 1, None):
        update = SeatUpdate(meta, state.view(seat), (True, True))
        update.timed_out = frozenset({1})
        message = msgspec.json.decode(present.state_message(update))
        assert present.state_message(update) == _alone(update)
        marked = [e.get("timed_out", False) for e in message["view"]["hand"]["history"]]
        assert marked[1] is True and marked.count(True) == 1


def test_a_matchs_next_history_is_its_last_one_and_one_event_more_encoded_from_the_kept_text():
    rebuilt = present._SHARED.rebuilt
    games = {f"m_{seed}": _moments(100 + seed, 120) for seed in range(3)}
    moments = resyncs = 0
    while games:
        last = None
        for match_id, game in list(games.items()):  # interleaved: each match keeps its own text
            state = next(game, None)
            if state is None:
                del games[match_id]
                continue
            moments += 1
            meta = _meta(state, "active" if state.outcome is None else "finished", "human")
            meta.match_id = match_id
            for seat in (0, 1, None):
                update = SeatUpdate(meta, state.view(seat), (True, True))
                assert present.state_message(update) == _alone(update)
            last = last or (meta, state)
        if last is not None and len(games) > 1:  # the first match's moment again, after the others'
            meta, state = last
            update = SeatUpdate(meta, state.view(0), (True, True))
            assert present.state_message(update) == _alone(update)
            resyncs += 1
    # Encoded whole only when a match's history starts again (a new hand: at most one event).
    assert moments > 300 and resyncs > 100 and present._SHARED.rebuilt == rebuilt


def test_the_views_of_one_moment_share_their_players_and_discard_pile_and_a_change_shows():
    state = next(_moments(5))
    meta = _meta(state, "active", "human")
    views = [present.view(SeatUpdate(meta, state.view(seat), (True, False))) for seat in (0, 1, None)]
    assert views[0].players is views[1].players is views[2].players
    assert views[0].hand.discard_pile is views[1].hand.discard_pile is views[2].hand.discard_pile
    assert views[0].hand.discard_pile == [c.code for c in state.view(None).hand.discard_pile]

    def shown(connected=(True, False), bots=(False, False), names=("Ada", "Bob")):
        again = _meta(state, "active", "human")
        again.seat_names = list(names)
        update = SeatUpdate(again, state.view(0), connected)
        update.bots = bots
        return [(p.name, p.connected, p.bot) for p in present.view(update).players]

    assert shown() == [("Ada", True, False), ("Bob", False, False)]
    assert shown(connected=(True, True)) == [("Ada", True, False), ("Bob", True, False)]
    assert shown(bots=(False, True)) == [("Ada", True, False), ("Bob", False, True)]
    assert shown(names=("Ada", "Cy")) == [("Ada", True, False), ("Cy", False, False)]
