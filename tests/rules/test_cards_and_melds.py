"""RULES.md, "Cards" and "Melds and deadwood": one test per rule, hands written as card codes."""

import pytest

from server.rules import DECK, RULES, Card, InvalidCardError, Meld, MeldKind, best_arrangement, deadwood, deal
from server.rules.cards import to_mask
from server.rules.melds import discard_deadwoods, min_deadwood
from tests.wire_forms import wire

from .helpers import RANKS, both_pass_and_draw, cards

# --- Cards -----------------------------------------------------------------------------------


def test_one_deck_of_52_distinct_cards_no_jokers():
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    assert {c.code for c in DECK} == {r + s for r in RANKS for s in "cdhs"}


@pytest.mark.parametrize("code", [r + s for r in RANKS for s in "cdhs"])
def test_card_code_is_rank_char_then_suit_char(code):
    card = Card.parse(code)
    assert str(card) == code == card.code
    assert eval(repr(card)) == card  # the repr is pasteable code
    assert RANKS[card.rank - 1] == code[0] and "cdhs"[card.suit] == code[1]


@pytest.mark.parametrize(
    "code", ["10h", "1s", "as", "AS", "Ax", "Zc", "", "A", "Ahh", " Ah", None, 7, ["Ah"]]
)
def test_a_malformed_card_code_is_rejected(code):
    with pytest.raises(InvalidCardError):
        Card.parse(code)


def test_card_values_ace_1_pips_face_value_jack_queen_king_10():
    values = {c.code: c.value for c in DECK}
    assert [values[r + "h"] for r in RANKS] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert deadwood("Ac") == 1 and deadwood("Tc") == 10 and deadwood("Kd Qs Jh") == 30


# --- Melds -----------------------------------------------------------------------------------


def test_a_set_is_three_or_four_cards_of_one_rank():
    assert deadwood("7c 7d 7h") == 0
    assert deadwood("7c 7d 7h 7s") == 0
    assert deadwood("7c 7d") == 14
    assert best_arrangement("Kc Kd Kh Ks").melds == (Meld(MeldKind.SET, tuple(cards("Kc Kd Kh Ks"))),)


def test_a_run_is_three_or_more_consecutive_ranks_of_one_suit_any_length():
    assert deadwood("4h 5h 6h") == 0
    assert deadwood("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh") == 0  # eleven long
    assert deadwood("4h 5h") == 9
    assert deadwood("4h 5h 7h") == 16  # a gap breaks it
    assert deadwood("4h 5d 6h") == 15  # one suit only
    (run,) = best_arrangement("9s Ts Js Qs Ks").melds
    assert run.kind is MeldKind.RUN and str(run) == "9s Ts Js Qs Ks"


def test_aces_are_low_only_q_k_a_and_k_a_2_are_not_runs():
    assert deadwood("Ah 2h 3h") == 0
    assert deadwood("Qh Kh Ah") == 21
    assert deadwood("Kh Ah 2h") == 13
    assert deadwood("Jd Qd Kd Ad") == 1  # J-Q-K is a run; the ace does not wrap onto it
    with pytest.raises(ValueError):
        Meld.parse("Qh Kh Ah")


def test_a_card_belongs_to_at_most_one_meld():
    # 7h would complete both the set and the run; only one may have it.
    a = best_arrangement("7c 7d 7h 8h 9h")
    assert a.deadwood == 14
    assert sum(len(m.cards) for m in a.melds) == 3


def test_deadwood_is_the_least_over_every_arrangement_of_melds():
    # Greedy "longest meld first" takes 3h-7h and leaves 3c 3d 7c 7d (20); the sets 3c 3d 3h and
    # 7c 7d 7h with the run 4h 5h 6h leave nothing.
    assert deadwood("3h 4h 5h 6h 7h 3c 3d 7c 7d") == 0
    a = best_arrangement("3h 4h 5h 6h 7h 3c 3d 7c 7d")
    assert sorted(str(m) for m in a.melds) == ["3c 3d 3h", "4h 5h 6h", "7c 7d 7h"]
    assert a.unmatched == ()
    # And a case with deadwood left: 5h 6h 7h + 4c 4d 4h leaves 7c 7d (14); 4h-7h leaves 22;
    # 4h 5h 6h + 7c 7d 7h leaves 4c 4d (8).
    assert deadwood("4h 5h 6h 7h 4c 4d 7c 7d") == 8
    assert deadwood("") == 0 and deadwood([]) == 0


def test_deadwood_of_any_group_of_0_to_11_cards():
    assert deadwood("Kd") == 10
    assert deadwood("As 2s 3s 7h 7d 7c Kd Qc 5h 9s 9d") == 43


def test_best_arrangement_rejects_a_card_given_twice():
    with pytest.raises(ValueError):
        best_arrangement("7h 7h 7d")


def test_the_hand_shown_to_a_player_is_sorted_into_a_best_arrangement():
    h = both_pass_and_draw(deal_fixed())
    view = h.view(0)
    arr = view.arrangement
    assert arr is not None
    assert view.hand == arr.cards
    assert view.deadwood == deadwood(view.hand) == arr.deadwood
    n_melded = sum(len(m.cards) for m in arr.melds)
    assert list(view.hand[n_melded:]) == sorted(view.hand[n_melded:], key=lambda c: (c.rank, c.suit))
    assert wire(view)["melds"] == [[str(c) for c in m.cards] for m in arr.melds]


def test_the_deadwood_left_by_each_discard_is_the_least_deadwood_of_the_other_cards():
    hand = cards("4h 5h 6h 7h 4c 4d 7c 7d Ks 2s 3s")
    mask = to_mask(hand)
    by_discard = discard_deadwoods(mask)
    assert set(by_discard) == {c.index for c in hand}
    for c in hand:
        assert by_discard[c.index] == min_deadwood(mask & ~(1 << c.index)) == deadwood(set(hand) - {c})


def deal_fixed():
    return deal(RULES["house"], starter=0, seed=11)


def test_deal_is_a_pure_function_of_its_seed():
    a, b = deal_fixed(), deal_fixed()
    assert a.hand(0) == b.hand(0) and a.stock_order() == b.stock_order()
