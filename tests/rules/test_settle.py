"""RULES.md, "Settling a knock" and "Scoring a hand": melds laid down, layoffs, gin, undercut.

``knock(knocker, defender)`` deals seat 0 the knocker's ten cards and seat 1 the defender's, lets
both pass the upcard, and has seat 0 draw a spare card from the stock and knock by discarding it,
so the knocker's final ten cards are exactly those written.
"""

import random

import pytest

from server.rules import (
    DECK,
    RULES,
    Card,
    Draw,
    HandResult,
    Knock,
    Pass,
    ResultKind,
    Source,
    deadwood,
    deal,
    new_hand,
)
from tests.wire_forms import wire

from .helpers import brute_knock_score, cards, greedy_action, is_valid_meld


def knock(knocker: str, defender: str, rules=RULES["house"]) -> HandResult:
    used = {*knocker.split(), *defender.split()}
    free = [c.code for c in DECK if c.code not in used]
    # Spare cards that cannot matter: the knocker throws the one it draws.
    upcard, spare, rest = free[0], free[1], free[2:]
    h = new_hand(rules, starter=0, hands=(knocker, defender), upcard=upcard, stock=[spare, *rest])
    h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK)).apply(Knock(spare))
    assert h.result is not None
    assert_result_is_consistent(h.result)
    return h.result


def assert_result_is_consistent(r: HandResult) -> None:
    """Every meld valid, each seat's melds + unmatched (+ the defender's layoffs) are its hand,
    the layoffs play in the listed order, and the deadwood is the value of the unmatched cards."""
    laid = [lo.card for lo in r.layoffs]
    for seat in (0, 1):
        arr = r.arrangements[seat]
        assert all(is_valid_meld(m.cards) for m in arr.melds)
        held = [c for m in arr.melds for c in m.cards] + list(arr.unmatched)
        if seat != r.knocker:
            held += laid
        assert sorted(held) == sorted(r.hands[seat])
        assert arr.deadwood == sum(c.value for c in arr.unmatched)
    if r.knocker is not None:
        melds = [list(m.cards) for m in r.arrangements[r.knocker].melds]
        for lo in r.layoffs:
            melds[lo.meld].append(lo.card)
            assert is_valid_meld(melds[lo.meld]), f"{lo.card} cannot go on {melds[lo.meld]}"


def codes(cs):
    return [c.code for c in cs]


# --- Scoring ----------------------------------------------------------------------------------


def test_guides_worked_example_knocker_8_defender_5_after_layoffs_scores_28():
    # Knocker: 2c 3c 4c / 5h 5d 5s / 7c 8c 9c + 8h (8). Defender: Qs Qd Qc / Jh Th 9h, and lays off
    # 5c (on 2c-4c) and Tc (on 7c-9c), keeping 4s As (5).
    r = knock("2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 4s As 5c Tc")
    assert r.kind is ResultKind.UNDERCUT
    assert (r.winner, r.points) == (1, 28)
    assert r.deadwood == (8, 5)
    assert sorted(codes(lo.card for lo in r.layoffs)) == ["5c", "Tc"]
    assert r.breakdown == "25 + 8 - 5 = 28"


def test_knock_scores_the_difference_when_the_defender_has_more_deadwood():
    r = knock("2c 3c 4c 5h 5d 5s 7c 8c 9c Ah", "Qs Qd Kc Jh Th 8h 4s 6d 2s Ts")
    assert r.kind is ResultKind.KNOCK and r.winner == 0 and r.knocker == 0
    assert r.deadwood == (1, 80)
    assert r.points == 79 and r.breakdown == "80 - 1 = 79"


def test_undercut_when_the_defender_has_less_deadwood_scores_25_plus_the_difference():
    r = knock("2c 3c 4c 5h 5d 5s 7c 8c 9c Kh", "Qs Qd Qc Jh Th 9h 6s 7s 8s 3d")
    assert r.kind is ResultKind.UNDERCUT and r.winner == 1 and r.knocker == 0
    assert r.deadwood == (10, 3)
    assert r.points == 25 + 10 - 3


def test_a_tie_is_an_undercut_worth_25():
    r = knock("2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 6s 7s 8s 8d")
    assert r.deadwood == (8, 8)
    assert r.kind is ResultKind.UNDERCUT and r.winner == 1
    assert r.points == 25


def test_gin_scores_25_plus_the_defenders_deadwood_with_the_defenders_melds_counted():
    r = knock("2c 3c 4c 5h 5d 5s 7c 8c 9c Tc", "Qs Qd Qc Jh Th 9h 4s As 6d Jc")
    assert r.kind is ResultKind.GIN and r.winner == 0
    # Qs Qd Qc and Jh Th 9h stay melded; 4s As 6d Jc count.
    assert r.deadwood == (0, 4 + 1 + 6 + 10)
    assert r.points == 25 + 21


def test_no_layoffs_against_gin():
    # Against a knock the defender would lay off 5c (on 2c-4c) and Jc (on 7c-Tc).
    r = knock("2c 3c 4c 5h 5d 5s 7c 8c 9c Tc", "Qs Qd Qc Jh Th 9h 4s As 5c Jc")
    assert r.kind is ResultKind.GIN
    assert r.layoffs == ()
    assert r.deadwood == (0, 4 + 1 + 5 + 10)
    assert r.points == 45


# --- Layoffs ----------------------------------------------------------------------------------


def test_the_defender_lays_off_a_fourth_card_on_a_set():
    r = knock("5h 5d 5s Jd Qd Kd 9d 9h 9s Ah", "5c 9c 2s 3h Ts 6h 7c Kc Qs 4d")
    assert r.kind is ResultKind.KNOCK
    knocker_melds = r.arrangements[0].melds
    on = {lo.card.code: str(knocker_melds[lo.meld]) for lo in r.layoffs}
    assert on == {"5c": "5d 5h 5s", "9c": "9d 9h 9s"}
    assert r.deadwood == (1, 66 - 5 - 9)


def test_the_defender_lays_off_on_runs_at_either_end_repeatedly_onto_cards_laid_off_just_before():
    # Knocker's run 5h 6h 7h; the defender holds 3h 4h below it and 8h 9h above it: 4h then 3h,
    # 8h then 9h, each going onto the card laid off just before.
    r = knock("5h 6h 7h Kc Kd Ks 2c 2d 2s As", "3h 4h 8h 9h Qc Qd 6c 7d 8s Jc")
    assert r.kind is ResultKind.KNOCK
    run = r.arrangements[0].melds
    laid = {lo.card.code: str(run[lo.meld]) for lo in r.layoffs}
    assert laid == dict.fromkeys(["3h", "4h", "8h", "9h"], "5h 6h 7h")
    assert r.deadwood == (1, 10 + 10 + 6 + 7 + 8 + 10)


def test_an_ace_is_laid_off_below_a_two_but_never_above_a_king():
    below = knock("2h 3h 4h Kc Kd Ks 2c 2d 2s 3c", "Ah 9c 9d 7s Qc Qd 6c 7d 8s Jc")
    assert [lo.card.code for lo in below.layoffs] == ["Ah"]
    above = knock("Jh Qh Kh Kc Kd Ks 2c 2d 2s 3c", "Ah 9c 9d 7s Qc Qd 6c 7d 8s Jc")
    assert above.layoffs == ()


def test_the_knocker_never_lays_off():
    # The knocker's loose 9c would complete the defender's nines; it stays deadwood.
    r = knock("2c 3c 4c 5h 5d 5s Jc Qc Kc 9c", "9d 9h 9s Qd Qs Kd 3s 4d 7h Ah")
    assert r.kind is ResultKind.KNOCK
    assert codes(r.arrangements[0].unmatched) == ["9c"]
    assert r.deadwood == (9, 45) and r.points == 36
    assert [str(m) for m in r.arrangements[1].melds] == ["9d 9h 9s"]


def test_layoffs_are_automatic_the_defender_melds_and_lays_off_to_leave_the_least_deadwood():
    # The defender's four sevens could stay a set of four (leaving 8h: 8); the server instead keeps
    # 7c 7d 7s and lays off 7h then 8h on the knocker's 4h-6h run, leaving no loose seven or eight.
    r = knock("4h 5h 6h Kc Kd Ks 2c 2d 2s As", "7h 7c 7d 7s 8h Qc Qd Jc 3s 6s")
    assert codes(lo.card for lo in r.layoffs) == ["7h", "8h"]
    assert [str(m) for m in r.arrangements[1].melds] == ["7c 7d 7s"]
    assert r.deadwood == (1, 10 + 10 + 10 + 3 + 6)
    assert r.points == 38


# --- The knocker's arrangement ----------------------------------------------------------------


def test_the_knockers_arrangement_is_the_best_for_the_knockers_score_not_the_least_deadwood():
    # Least deadwood (6): 4c 4d 4h + four kings, Ac 2h 3h loose; but then the defender lays off 4s.
    # Run 2h 3h 4h + four kings leaves 4c 4d Ac (9) and nothing can be laid off: 55 - 9 = 46
    # beats 51 - 6 = 45.
    knocker = "2h 3h 4h 4c 4d Ks Kd Kc Kh Ac"
    defender = "4s 9c 9d 9s 7c 8d Tc Jd Qh 6s"
    assert deadwood(knocker) == 6
    r = knock(knocker, defender)
    assert r.kind is ResultKind.KNOCK
    assert r.deadwood == (9, 55) and r.points == 46
    assert "2h 3h 4h" in [str(m) for m in r.arrangements[0].melds]
    assert r.layoffs == ()
    assert brute_knock_score(cards(knocker), cards(defender)) == 46


def test_between_arrangements_scoring_the_same_the_knocker_keeps_the_lowest_deadwood():
    # Run Ah 2h 3h leaves 3c 3d Ac (7) and blocks the layoff of 3s: 54 - 7 = 47. Set 3c 3d 3h
    # leaves Ah 2h Ac (4) and takes 3s: 51 - 4 = 47. Same score: the lower deadwood wins.
    r = knock("Ah 2h 3h 3c 3d Ks Kd Kc Kh Ac", "3s 9c 9d 9s 7c 8d Tc Jd Qh 6s")
    assert r.points == 47
    assert r.deadwood == (4, 51)
    assert codes(lo.card for lo in r.layoffs) == ["3s"]


def test_knocks_settle_with_the_knockers_best_score_against_a_brute_force():
    # Seeded play by a greedy knocker; every knock and gin is checked against an independent
    # search over all the knocker's arrangements and all the defender's layoff subsets.
    rng = random.Random(2024)
    checked = 0
    for n in range(400):
        h = deal(RULES["house"], n % 2, f"settle:{n}")
        while not h.is_over:
            h.apply(greedy_action(h, rng))
        r = h.result
        if r.kind is ResultKind.DEAD:
            continue
        assert_result_is_consistent(r)
        k = r.knocker
        signed = -r.points if r.kind is ResultKind.UNDERCUT else r.points
        assert signed == brute_knock_score(r.hands[k], r.hands[1 - k]), r
        checked += 1
    assert checked > 200


@pytest.mark.parametrize("name", ["house", "classic"])
def test_both_presets_use_the_same_hand_scoring(name):
    r = knock("2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 4s As 5c Tc", RULES[name])
    assert (r.kind, r.points) == (ResultKind.UNDERCUT, 28)


def test_a_result_wire_form_names_kind_winner_points_deadwood_melds_and_layoffs():
    r = knock("2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 4s As 5c Tc")
    w = wire(r)
    assert w["kind"] == "undercut" and w["winner"] == 1 and w["points"] == 28 and w["knocker"] == 0
    assert w["deadwood"] == [8, 5]
    assert sorted(w["melds"][0]) == [["2c", "3c", "4c"], ["5d", "5h", "5s"], ["7c", "8c", "9c"]]
    assert sorted(lo["card"] for lo in w["layoffs"]) == ["5c", "Tc"]
    for lo in w["layoffs"]:
        meld = w["melds"][0][lo["meld"]]
        assert is_valid_meld([Card.parse(c) for c in [*meld, lo["card"]]])
