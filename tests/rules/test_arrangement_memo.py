"""Each hand remembers its seats' best arrangements (``HandState.arrangement``), so building a
view costs the same however many hands are live: no global cache that many live hands evict."""

from __future__ import annotations

import dataclasses

import pytest

from server.rules import RULES, Draw, Source, deal
from server.rules import hand as hand_module
from server.rules.melds import best_arrangement_mask


@pytest.fixture
def arranging(monkeypatch):
    calls: list[int] = []

    def counted(mask: int):
        calls.append(mask)
        return best_arrangement_mask(mask)

    monkeypatch.setattr(hand_module, "best_arrangement_mask", counted)
    return calls


def test_a_view_of_cards_that_did_not_change_is_not_arranged_again_however_many_hands_are_live(arranging):
    first = deal(RULES["house"], starter=0, seed=1)
    first.view(0)
    first.view(1)
    assert len(arranging) == 2
    # Ten thousand other live hands, each viewed by both seats: more than any global cache held.
    others = [deal(RULES["house"], starter=0, seed=s) for s in range(2, 10_002)]
    for h in others:
        h.view(0)
        h.view(1)
    arranging.clear()
    first.view(0)
    first.view(1)
    assert arranging == []


def test_the_arrangement_follows_the_cards_when_they_change(arranging):
    h = deal(RULES["house"], starter=0, seed=3)
    h.apply(h.legal_actions()[-1])  # pass
    h.apply(h.legal_actions()[-1])  # the dealer passes too
    before = h.view(0).arrangement
    h.apply(Draw(Source.STOCK), 0)
    after = h.view(0)
    assert after.arrangement is not before
    assert after.arrangement == best_arrangement_mask(h.hands[0])
    assert len(after.hand) == 11
    h.view(1)  # the other seat's cards did not change: remembered
    assert arranging.count(h.hands[1]) == 1


def test_a_view_without_its_arrangement_arranges_nothing_and_differs_in_nothing_else(arranging):
    h = deal(RULES["house"], starter=0, seed=5)
    h.apply(h.legal_actions()[0])  # the starter takes the upcard: it must discard now
    plain = h.view(0, arranged=False)
    assert arranging == []
    assert plain.arrangement is None
    assert list(plain.hand) == sorted(plain.hand, key=lambda c: c.index)  # in card order
    full = h.view(0)
    assert sorted(full.hand, key=lambda c: c.index) == list(plain.hand)
    assert plain.discard_deadwood == full.discard_deadwood and plain.legal_actions == full.legal_actions
    assert dataclasses.replace(plain, hand=full.hand, arrangement=full.arrangement) == full
