"""The laws of the rules engine, checked on many generated hands (Hypothesis) and seeded self-play:
arrangements are exact, cards are conserved, hidden cards stay hidden.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rules import (
    DECK,
    RULES,
    Card,
    Draw,
    HandState,
    Knock,
    Pass,
    Phase,
    Source,
    best_arrangement,
    deadwood,
    deal,
    new_hand,
)
from server.rules.cards import to_mask
from server.rules.melds import discard_deadwoods, min_deadwood, unmeldable_value
from tests.wire_forms import wire as wire_form

from .helpers import all_melds, brute_min_deadwood, greedy_action, is_valid_meld

ALL = (1 << 52) - 1


@st.composite
def meld_rich_hands(draw, max_size=11):
    """Cards from a narrow window of ranks and suits, so hands are full of overlapping melds."""
    lo = draw(st.integers(1, 9))
    width = draw(st.integers(4, 6))
    suits = draw(st.sets(st.integers(0, 3), min_size=2, max_size=4))
    pool = [c for c in DECK if lo <= c.rank < lo + width and c.suit in suits]
    return draw(st.lists(st.sampled_from(pool), unique=True, max_size=min(max_size, len(pool))))


any_hands = st.lists(st.sampled_from(DECK), unique=True, max_size=11)
hands_0_to_11 = st.one_of(any_hands, meld_rich_hands())


# --- Melds ------------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(hands_0_to_11)
def test_best_arrangement_is_disjoint_valid_melds_covering_the_hand_with_minimal_deadwood(hand):
    a = best_arrangement(hand)
    melded = [c for m in a.melds for c in m.cards]
    assert all(is_valid_meld(m.cards) for m in a.melds)
    assert len(melded) == len(set(melded)), "melds share a card"
    assert sorted(melded + list(a.unmatched)) == sorted(hand)
    assert a.deadwood == sum(c.value for c in a.unmatched)
    assert a.deadwood == brute_min_deadwood(hand)
    assert deadwood(hand) == min_deadwood(to_mask(hand)) == a.deadwood


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.lists(st.sampled_from(DECK), unique=True, min_size=1, max_size=11), meld_rich_hands()))
def test_the_deadwood_left_by_each_discard_matches_a_brute_force(hand):
    by_discard = discard_deadwoods(to_mask(hand))
    assert {DECK[i] for i in by_discard} == set(hand)
    for c in hand:
        assert by_discard[c.index] == brute_min_deadwood(set(hand) - {c})


@settings(max_examples=300, deadline=None)
@given(hands_0_to_11)
def test_cards_in_no_meld_bound_the_deadwood_from_below(hand):
    in_some_meld = {c for m in all_melds(hand) for c in m}
    loose = sum(c.value for c in hand if c not in in_some_meld)
    assert unmeldable_value(to_mask(hand)) == loose <= deadwood(hand)


@settings(max_examples=60, deadline=None)
@given(meld_rich_hands(max_size=11).filter(lambda h: len(h) == 11), st.integers(0, 1))
def test_knocks_offered_are_exactly_the_discards_leaving_deadwood_10_or_less(hand, starter):
    # Deal the first ten cards to the starter and put the eleventh on top of the stock.
    codes = [c.code for c in hand]
    rest = [c.code for c in DECK if c not in hand]
    h = new_hand(
        RULES["house"],
        starter,
        (codes[:10], rest[:10]) if starter == 0 else (rest[:10], codes[:10]),
        rest[10],
        [codes[10], *rest[11:]],
    )
    h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK))
    knocks = {a.card for a in h.legal_actions() if isinstance(a, Knock)}
    assert knocks == {c for c in hand if brute_min_deadwood(set(hand) - {c}) <= 10}
    assert all(h.is_legal(Knock(c)) == (c in knocks) for c in hand)


# --- Self-play --------------------------------------------------------------------------------


def test_52_cards_are_conserved_through_thousands_of_seeded_random_hands():
    rng = random.Random(52)
    kinds = set()
    for n in range(2000):
        h = deal(RULES["house" if n % 2 else "classic"], n % 2, f"conserve:{n}")
        full = n < 200  # the first hands check every card after every action, the rest count
        while True:
            h0, h1 = h.hands
            assert h0 & h1 == 0
            assert h0.bit_count() + h1.bit_count() + len(h.stock) + len(h.discard_pile) == 52
            assert sorted((h0.bit_count(), h1.bit_count())) == (
                [10, 11] if h.phase is Phase.DISCARD else [10, 10]
            )
            if full or h.is_over:
                stock = sum(1 << i for i in h.stock)
                pile = sum(1 << i for i in h.discard_pile)
                assert h0 | h1 | stock | pile == ALL
            if h.is_over:
                break
            h.apply(rng.choice(h.legal_actions()))
        r = h.result
        kinds.add(r.kind.value)
        assert sorted([*r.hands[0], *r.hands[1]]) == sorted([*h.hand(0), *h.hand(1)])
    assert kinds >= {"dead", "knock", "gin"}  # random defenders almost never undercut


# --- Hidden information -----------------------------------------------------------------------


def strings(obj, top=None):
    """Every string in a JSON value (keys too), with the top-level key it sits under."""
    if isinstance(obj, str):
        yield top, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            key = top if top is not None else k
            yield key, str(k)
            yield from strings(v, key)
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from strings(v, top)


def assert_view_hides(h: HandState, seat: int | None, known: list[set[Card]]) -> None:
    """``known[s]``: cards seat ``s`` holds that everyone saw it take from the discard pile."""
    wire = json.loads(json.dumps(wire_form(h.view(seat))))  # the view as sent
    stock = {c.code for c in h.stock_order()}
    others = [s for s in (0, 1) if s != seat]
    held = {c.code for s in others for c in h.hand(s)}
    public = {c.code for s in others for c in known[s]}
    for key, text in strings(wire):
        assert text not in stock, f"stock card {text} shown in {key!r}"
        if h.is_over:
            continue
        assert not (text in held and text not in public), f"hidden card {text} shown in {key!r}"
        if text in held:
            assert key == "history", f"{text} shown outside the public history, in {key!r}"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), starter=st.integers(0, 1), greedy=st.booleans())
def test_no_view_ever_shows_a_hidden_card(seed, starter, greedy):
    # Hidden: the stock (always) and, until the result, every card of the other hand (for a
    # watcher, of both hands) except those everyone saw it take from the discard pile; those may
    # appear only in the public history.
    rng = random.Random(seed)
    h = deal(RULES["house"], starter, seed)
    known: list[set[Card]] = [set(), set()]
    while True:
        for seat in (0, 1, None):
            assert_view_hides(h, seat, known)
        if h.is_over:
            break
        seat = h.to_act
        action = greedy_action(h, rng) if greedy else rng.choice(h.legal_actions())
        if action.kind in ("take_upcard", "draw") and (
            action.kind == "take_upcard" or action.source == "discard"
        ):
            known[seat].add(h.upcard)
        h.apply(action)
        if action.kind in ("discard", "knock"):
            known[seat].discard(action.card)
    # Once over, both hands are revealed in the result, but the stock never is.
    for seat in (0, 1, None):
        wire = wire_form(h.view(seat))
        assert sorted(wire["result"]["hands"][0]) == sorted(c.code for c in h.hand(0))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_a_match_view_hides_the_current_hand_like_a_hand_view(seed):
    from server.rules import new_match

    m = new_match("classic", seed)
    rng = random.Random(seed)
    for _ in range(100):
        if m.is_over:
            break
        for seat in (0, 1, None):
            wire = wire_form(m.view(seat))
            assert m.view(seat).hand == m.hand.view(seat)
            # The same, but for the deal's commitment, which the match (holding the seed) adds.
            assert wire["hand"] == {
                **wire_form(m.hand.view(seat)),
                "deal_commitment": m.view(seat).deal_commitment,
            }
            # The rest of the match view holds no card (last_result is an earlier, finished hand).
            rest = {k: v for k, v in wire.items() if k not in ("hand", "last_result")}
            cards = {c.code for c in DECK}
            assert not any(text in cards for _, text in strings(rest))
        m.apply(greedy_action(m.hand, rng))
