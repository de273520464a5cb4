"""Each hand remembers its seats' best arrangements (``HandState.arrangement``), so building a
view costs the same however many hands are live: no global cache of hands that many live hands
evict. What is shared between hands is the search behind an arrangement, kept per core (the cards
that lie in some meld), which hands have in common whatever their other cards."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.compiled import compiled
from server.rules import DECK, RULES, Draw, Source, deal, melds
from server.rules import hand as hand_module
from server.rules.cards import from_mask, parse_cards, to_mask
from server.rules.melds import (
    Arrangement,
    Meld,
    best_arrangement_mask,
    by_rank,
    discard_deadwoods,
    mask_value,
    min_deadwood,
    packings,
)


@pytest.fixture
def arranging(monkeypatch):
    if "server.rules.hand" in compiled():
        pytest.skip("compiled, hand.py calls the meld search directly: a monkeypatch cannot count it")
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


# --- the best packing of a hand's core, remembered across hands ------------------------------


def _reference(mask: int) -> Arrangement:
    """The best arrangement by its definition: every packing of the whole hand searched, the
    least deadwood first, then the fewest melds, the first found among equals."""
    best, best_key = None, None
    for chosen, unmatched in packings(mask):
        key = (mask_value(unmatched), len(chosen))
        if best_key is None or key < best_key:
            best, best_key = (chosen, unmatched), key
    assert best is not None
    chosen, unmatched = best
    melds = sorted(
        (Meld.from_mask(m) for m in chosen), key=lambda m: (m.cards[0].rank, m.kind != "set", m.cards[0].suit)
    )
    rest = tuple(sorted(from_mask(unmatched), key=lambda c: (c.rank, c.suit)))
    return Arrangement(tuple(melds), rest, mask_value(unmatched))


# Hands rich in melds: a few ranks and a few runs' worth of cards, so cores repeat and overlap.
_meldy = st.lists(st.sampled_from([c.index for c in DECK if c.rank <= 6 or c.suit == 0]), max_size=14)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_meldy, st.lists(st.integers(0, 51), max_size=14)))
def test_the_arrangement_is_the_best_packing_of_the_whole_hand(indices):
    mask = sum(1 << i for i in set(indices))
    assert best_arrangement_mask(mask) == _reference(mask)
    assert best_arrangement_mask(mask) == _reference(mask)  # the second time from the kept core


def test_a_core_is_searched_once_and_the_kept_cores_are_bounded(monkeypatch):
    monkeypatch.setattr(melds, "_CORES", {})
    monkeypatch.setattr(melds, "CORES_KEPT", 3)
    searched: list[int] = []
    real = melds._best_packing

    def counted(core: int):
        searched.append(core)
        return real(core)

    monkeypatch.setattr(melds, "_best_packing", counted)
    run = to_mask(parse_cards("3h 4h 5h"))
    a = best_arrangement_mask(run | to_mask(parse_cards("Kc 9d")))
    b = best_arrangement_mask(run | to_mask(parse_cards("Qs 2c 8d")))  # another hand, the same core
    assert searched == [run]
    assert [str(m) for m in a.melds] == [str(m) for m in b.melds] == ["3h 4h 5h"]
    assert (a.deadwood, b.deadwood) == (19, 20)
    for n, codes in enumerate(["7c 7d 7s", "9s Ts Js", "As 2s 3s", "Jc Jd Jh"]):
        best_arrangement_mask(to_mask(parse_cards(codes)) | 1 << (51 - n))
    assert len(melds._CORES) == 3  # the oldest ones forgotten
    assert run not in melds._CORES


def test_cards_by_rank_need_no_sort():
    for seed in range(200):
        mask = random.Random(seed).getrandbits(52)
        assert list(by_rank(mask)) == sorted(from_mask(mask), key=lambda c: (c.rank, c.suit))


@settings(max_examples=300, deadline=None)
@given(st.one_of(_meldy, st.lists(st.integers(0, 51), max_size=12)))
def test_each_discards_deadwood_is_the_least_deadwood_of_the_other_cards(indices):
    mask = sum(1 << i for i in set(indices))
    expected = {i: min_deadwood(mask & ~(1 << i)) for i in sorted(set(indices))}
    for _ in range(2):  # the second time from the kept core
        got = discard_deadwoods(mask)
        assert got == expected and list(got) == list(expected)  # in index order
