"""The parts of a seat's view the rules make once and share: the discard pile's cards (one tuple
for every view until the pile changes) and the seat to act's discards with their deadwood (made
without the dict :meth:`HandState.knock_options` returns). Each is what it stands for after
every kind of action, in seeded random hands of both variants."""

from __future__ import annotations

import random

from server.rules import DECK, RULES, Phase, deal


def _hands(count: int):
    rng = random.Random(11)
    for n in range(count):
        yield deal(RULES["house" if n % 2 else "oklahoma"], n % 2, f"sharing:{n}"), rng


def test_every_view_shows_the_pile_and_the_discards_as_they_are_after_each_action():
    kinds = set()
    for h, rng in _hands(300):
        while True:
            pile = tuple(DECK[i] for i in h.discard_pile)
            views = [h.view(0), h.view(1), h.view(None)]
            for v in views:
                assert v.discard_pile == pile
            # One tuple for every view of the moment (the transport converts it once).
            assert views[0].discard_pile is views[1].discard_pile is views[2].discard_pile
            to_act = h.to_act
            for seat, v in enumerate(views[:2]):
                expected = tuple(h.knock_options().items()) if seat == to_act else ()
                assert v.discard_deadwood == expected
            if h.phase is Phase.DISCARD and h.taken >= 0:
                assert DECK[h.taken] not in dict(views[to_act].discard_deadwood)
            if h.is_over:
                break
            action = rng.choice(h.legal_actions())
            kinds.add(action.kind if action.kind != "draw" else f"draw {action.source.value}")
            h.apply(action)
    assert kinds >= {"take_upcard", "pass", "draw stock", "draw discard", "discard", "knock"}


def test_the_pile_is_made_again_only_when_it_changes():
    h, _ = next(_hands(1))
    h.apply(h.legal_actions()[1]).apply(h.legal_actions()[1])  # both pass: the pile is unchanged
    before = h.view(0).discard_pile
    h.apply(h.legal_actions()[0])  # draw from the stock: still unchanged
    assert h.view(1).discard_pile is before
    h.apply(h.legal_actions()[0])  # a discard: a new pile
    after = h.view(0).discard_pile
    assert after is not before and after[:-1] == before and len(after) == len(before) + 1
