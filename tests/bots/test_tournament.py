"""The tournament script's pieces: the OpenSpiel adapter stays in lockstep with our engine, and
the interval it prints is the Wilson score interval."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from server.bench.tournament import FROM_OS, OS_INDEX, OpenSpielSimple, play_match, wilson  # noqa: E402
from server.bots import make_bot  # noqa: E402
from server.rules import RULES, Draw, Source, deal  # noqa: E402
from server.rules.cards import DECK  # noqa: E402


def test_card_indices_translate_both_ways() -> None:
    assert sorted(OS_INDEX) == list(range(52))
    assert all(FROM_OS[OS_INDEX[i]] == i for i in range(52))
    # OpenSpiel orders suits s c d h: its card 0 is the ace of spades
    assert DECK[FROM_OS[0]].code == "As"


def test_the_openspiel_state_mirrors_every_hand_card_for_card() -> None:
    for seed in range(15):
        hand = deal(RULES["house"], starter=seed % 2, seed=f"lockstep:{seed}")
        simple = OpenSpielSimple()
        simple_seat = seed % 3 % 2
        simple.new_hand(hand, simple_seat)
        normal = make_bot("normal", seed)
        while not hand.is_over:
            seat = hand.to_act
            action = simple.choose(hand) if seat == simple_seat else normal.choose(hand.view(seat))
            before = hand.hands[seat]
            hand.apply(action, seat)
            drawn = None
            if isinstance(action, Draw) and action.source is Source.STOCK:
                drawn = (hand.hands[seat] & ~before).bit_length() - 1
            simple.mirror(action, drawn)
            if simple.state is None or hand.is_over:
                break
            os_hands = simple.state.hands()
            for player, our_seat in ((0, hand.starter), (1, hand.dealer)):
                assert sorted(FROM_OS[c] for c in os_hands[player]) == sorted(
                    c.index for c in hand.hand(our_seat)
                )
        assert hand.is_over


def test_a_match_against_the_openspiel_bot_finishes_and_reports() -> None:
    result = play_match(("normal", "simple", "house", "smoke", 0, 1, {}))
    assert result.hands >= 1
    assert len(result.a_times) == len(result.a_cpu) > 0
    assert sum(result.kinds.values()) == result.hands


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert round(lo, 4) == 0.4038 and round(hi, 4) == 0.5962
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775


def test_a_match_against_the_marjj_style_player_finishes_and_reports() -> None:
    result = play_match(("normal", "marjj", "house", "smoke", 0, 0, {}))
    assert result.hands >= 1 and result.b_times
    assert sum(result.kinds.values()) == result.hands
