"""The MARJJ-style benchmark player (server/bench/marjj.py) on hands written card by card: it
sees only its view, and must play as its description says."""

from __future__ import annotations

from server.bench.marjj import FUTURE_CARDS, MarjjStyle, danger
from server.bots.sim import Memo, best_draws_deadwood, own_turns
from server.rules import Discard, Draw, Knock, Pass, Source, TakeUpcard
from server.rules.cards import Card, to_mask

from . import scenarios
from .scenarios import DRAW_STOCK, PASS, discard, scripted

SEEDS = range(4)


def choices(state) -> list:
    view = state.view(state.to_act)
    return [MarjjStyle(seed).choose(view) for seed in SEEDS]


def i(code: str) -> int:
    return Card.parse(code).index


def m(codes: str) -> int:
    return to_mask(codes.split())


def test_it_takes_an_upcard_or_discard_that_completes_a_meld() -> None:
    assert choices(scenarios.upcard_completes_a_meld()) == [TakeUpcard()] * 4
    assert choices(scenarios.discard_completes_a_meld()) == [Draw(Source.DISCARD)] * 4


def test_it_passes_an_upcard_that_melds_with_nothing() -> None:
    # 5c touches nothing of the starter's (no 5, no 3c 4c 6c 7c).
    state = scripted(("7h 8h Qs Jd 2c Ks Kc 4d 9s Tc", "Ac 3c 6d Ad 2s 3s Kd Qc 6h Jh"), "5c", [], [])
    assert choices(state) == [Pass()] * 4


def test_it_declines_a_card_that_only_pairs() -> None:
    # 9c makes a pair with 9s, no meld: a stock draw instead.
    state = scripted(
        ("Ac 3c 6d Ad 2s 3s Kd Qc 6h 9c", "7h 8h Qs Jd 2c 5s Kc 4d 9s Tc"),
        "8d",
        ["Td"],
        [PASS, PASS, DRAW_STOCK, discard("9c")],
    )
    assert choices(state) == [Draw(Source.STOCK)] * 4


def test_it_knocks_in_its_first_turns() -> None:
    # The starter passes, the dealer passes, the starter draws Kd: melds Ac2c3c 6d7d8d JhJcJs,
    # Kd and Ts over: a knock with 10 on its first turn.
    state = scripted(
        ("Ac 2c 3c 6d 7d 8d Jh Jc Js Ts", "5c 9h Qd 5d 5h 9s 9d Qs Qc 2s"),
        "3h",
        ["Kd"],
        [PASS, PASS, DRAW_STOCK],
    )
    assert own_turns(state.view(0)) == 1
    acts = choices(state)
    assert all(isinstance(a, Knock) for a in acts)
    assert {a.card.code for a in acts} <= {"Kd", "Ts"}


def test_after_its_first_turns_it_holds_out_for_gin() -> None:
    # Fourteen turns in, a knock with 10 is there (Normal takes it); MARJJ-style plays on,
    # throwing a loose ten-pointer and keeping its melds.
    for state in (scenarios.late_knock(), scenarios.undercut_risk()):
        assert own_turns(state.view(state.to_act)) > 3
        acts = choices(state)
        assert all(isinstance(a, Discard) for a in acts)
        assert {a.card.code for a in acts} <= {"Kd", "Ts"}


def test_it_always_goes_gin() -> None:
    # Late in the hand (its fifth turn), it draws 9d for gin: Ac2c3c 6d7d8d9d JhJcJs, Kd thrown.
    opp = "Kc Qh 9c 6c 2h 4s 8s Th 5h Ks"
    bot = "Ac 2c 3c 6d 7d 8d Jh Jc Js Kd"
    draws = ["2d", "3d", "4d", "5s", "6s", "7s", "8c", "Ad", "7c"]
    script: list[dict] = [PASS, PASS]
    for card in draws:
        script += [DRAW_STOCK, discard(card)]
    script.append(DRAW_STOCK)
    state = scripted((opp, bot), "3h", [*draws, "9d"], script)
    assert own_turns(state.view(1)) == 5
    assert choices(state) == [Knock(Card.parse("Kd"))] * 4


def test_it_keeps_a_pair_over_a_lone_card_of_the_same_value() -> None:
    # The dealer (seat 1) holds Ac2c3c 4d5d6d, 7s 8s and the pair Kh Ks, and draws Qd: of the
    # three ten-pointers the lone queen goes (the pair can still become a set; the future term
    # sees it).
    state = scripted(
        ("2h 9c Th 5s 6h Jc 4s 3d 8c 9h", "Ac 2c 3c 4d 5d 6d 7s 8s Kh Ks"),
        "3h",
        ["2d", "Qd"],
        [PASS, PASS, DRAW_STOCK, discard("2h"), DRAW_STOCK],
    )
    assert choices(state) == [Discard(Card.parse("Qd"))] * 4


def test_danger_counts_what_the_opponent_holds_and_cannot_get() -> None:
    none = 0
    # 7h with the opponent holding 8h and 9h: it would extend a run.
    assert danger(i("7h"), none, m("8h 9h")) >= 20
    # 7h with the opponent holding two other sevens: it would complete a set.
    assert danger(i("7h"), none, m("7c 7s")) >= 20
    # 7h with every card that could meld with it gone (6h, 8h and two other sevens seen).
    assert danger(i("7h"), m("6h 8h 7c 7d"), none) <= -20
    # A king whose only run neighbour (Qh) is gone is safer than a free one.
    assert danger(i("Kh"), m("Qh"), none) < danger(i("Kh"), none, none)


def test_future_deadwood_is_lower_for_a_hand_close_to_melds() -> None:
    memo = Memo()
    close = m("Ac 2c 3c 4d 5d 6d 7s 8s Kh Ks")  # 7s 8s and Kh Ks wait for many cards
    far = m("Ac 2c 3c 4d 5d 6d 7s 9c Kh Qs")
    unseen = ((1 << 52) - 1) & ~(close | far)
    assert best_draws_deadwood(close, unseen, memo, FUTURE_CARDS) < best_draws_deadwood(
        far, unseen, memo, FUTURE_CARDS
    )


def test_a_decision_is_a_function_of_seed_and_view() -> None:
    state = scenarios.undercut_risk()
    view = state.view(state.to_act)
    assert MarjjStyle("x").choose(view) == MarjjStyle("x").choose(view)
