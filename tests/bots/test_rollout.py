"""Playouts against a MARJJ-like opponent (server/bots/rollout.py) and Hard's ``playout_model``
option that uses them, on hands written card by card."""

from __future__ import annotations

import random

from server.bots.hard import HardBot
from server.bots.marjj_plus import marjj_plus_values
from server.bots.rollout import DRAW, PlayoutSettings, marjj_take, play_hand
from server.bots.sim import Memo, greedy_take, settle_points
from server.rules import RULES, SeatView
from server.rules.cards import Card

from . import scenarios


def mask(cards: str) -> int:
    out = 0
    for code in cards.split():
        out |= 1 << Card.parse(code).index
    return out


def idx(code: str) -> int:
    return Card.parse(code).index


# Nine cards in melds and a lone Kd: deadwood 10.
NINE_AND_KD = mask("3c 4c 5c 7h 7d 7s 9s Ts Js Kd")
OTHER = mask("Ad 2d 5h 6d 8c 9h Jd Qc Qh Kh")


def test_marjj_take_takes_only_a_card_that_melds_never_one_that_only_lets_it_knock() -> None:
    memo = Memo()
    # Ac lowers the deadwood to 1 (Kd out) but melds with nothing: the greedy draw takes it to
    # knock at once, MARJJ's rule does not.
    assert greedy_take(NINE_AND_KD, idx("Ac"), 10, memo)
    assert not marjj_take(NINE_AND_KD, idx("Ac"), memo)
    # 2c extends 3c4c5c: both take it.
    assert marjj_take(NINE_AND_KD, idx("2c"), memo)
    assert greedy_take(NINE_AND_KD, idx("2c"), 10, memo)
    # Qd melds with nothing and lowers nothing: neither takes it.
    assert not marjj_take(NINE_AND_KD, idx("Qd"), memo)


def test_a_marjj_seat_in_a_playout_plays_the_marjj_draw_rule() -> None:
    rules = RULES["house"]

    def play(marjj: int) -> int:
        # Seat 0 to draw, Ac on the pile, three cards in the stock (Qh on top): after one discard
        # from the stock the hand is dead.
        stock = [idx("2h"), idx("3h"), idx("Qh")]
        settings = PlayoutSettings(rules, 10, 1, gin_seats=marjj, marjj=marjj)
        knocker, points = play_hand(
            [NINE_AND_KD, OTHER], stock, [idx("Ac")], 0, DRAW, -1, (5, 0), settings, Memo()
        )
        return points if knocker == 0 else -points

    # Greedy: it takes Ac, throws Kd and knocks with 1.
    knocked = NINE_AND_KD | 1 << idx("Ac")
    knocked &= ~(1 << idx("Kd"))
    assert play(0) == settle_points(knocked, OTHER, rules, 10, 1) > 0
    # MARJJ-like: it draws Qh instead, cannot knock within 5, throws and the hand dies.
    assert play(1) == 0
    # Seat 1's bit changes nothing here (seat 0 plays greedily).
    assert play(2) == play(0)


def values(view: SeatView, **options: int):  # type: ignore[no-untyped-def]
    bot = HardBot(0, worlds=8, tie_band=100, candidates=3, **options)
    bot._rng = random.Random(5)  # as choose() seeds it, the same worlds for every option
    return marjj_plus_values(bot, view)


def test_playout_model_changes_the_simulated_values_and_only_when_set() -> None:
    view = scenarios.undercut_risk().view(1)
    plain = values(view, playout_model=0)
    again = values(view, playout_model=0)
    model = values(view, playout_model=1)
    both = values(view, playout_model=2)
    assert plain == again
    assert plain[0].keys() == model[0].keys() == both[0].keys()
    assert plain[1] == model[1]  # MARJJ's scores are untouched; only the playouts differ
    discards = [key for key in plain[0] if key[0] == "discard"]
    assert any(plain[0][key] != model[0][key] for key in discards)
    assert any(model[0][key] != both[0][key] for key in discards)
    assert model == values(view, playout_model=1)


def test_knock_turns_end_a_seats_knocking_short_of_gin_and_late_at_takes_over() -> None:
    from server.bots.rollout import DISCARD

    rules = RULES["house"]
    # Seat 0 holds 11 cards and throws Ks to keep 2 of deadwood (2s); the stock has two cards
    # left, so a plain discard ends the hand dead.
    low = mask("Ac 2c 3c 4d 5d 6d 7h 8h 9h Ks 2s")

    def knocker(knock_turns: tuple[int, int], late_at: tuple[int, int] = (0, 0)) -> int:
        stock = [idx("Tc"), idx("Td")]
        hands = [low, OTHER]
        settings = PlayoutSettings(rules, 10, 1, knock_turns=knock_turns, late_at=late_at)
        who, _ = play_hand(hands, stock, [], 0, DISCARD, -1, (10, 10), settings, Memo())
        return who

    assert knocker((1, 0)) == 0  # within its turns: it knocks at 10
    assert knocker((0, 5)) == -1  # its turns are over: gin only, so it plays on (a dead hand)
    assert knocker((0, 5), (2, 0)) == 0  # after them it knocks at 2 or less
    assert knocker((0, 5), (1, 0)) == -1


def test_knock_windows_follow_the_early_turns_of_each_seat() -> None:
    from server.bots.marjj_plus import knock_windows
    from server.bots.rollout import ALWAYS
    from server.bots.sim import own_turns

    view = scenarios.undercut_risk().view(1)
    turns = own_turns(view)
    assert knock_windows(HardBot(0, playout_knock=0), view, 1) == (ALWAYS[0], 0, ALWAYS[0], 0)
    # Bit 1: the opponent's knocking at the limit lasts what is left of its first 3 turns.
    assert knock_windows(HardBot(0, playout_knock=1), view, 1) == (ALWAYS[0], 0, 2, 0)
    assert knock_windows(HardBot(0, playout_knock=1), view, 3) == (ALWAYS[0], 0, ALWAYS[0], 0)
    # Bit 2: Hard's own seat, for what is left of its early_knock turns, then at late_knock.
    bot = HardBot(0, playout_knock=2, early_knock=turns + 2, late_knock=4)
    assert knock_windows(bot, view, 1) == (2, 4, ALWAYS[0], 0)


def test_draw_search_keeps_a_card_that_completes_a_meld_and_is_deterministic() -> None:
    from server.bots import make_bot
    from server.rules import Draw, Source

    view = scenarios.discard_completes_a_meld().view(1)  # 4c makes the set 4s 4d 4c
    for s in range(3):
        bot = make_bot("hard", s, worlds=16, draw_search=1, playout_model=2)
        assert bot.choose(view) == Draw(Source.DISCARD)
    picks = [make_bot("hard", 7, worlds=16, draw_search=1, draw_margin=m).choose(view) for m in (1, 1)]
    assert picks[0] == picks[1]


def test_a_late_knock_above_the_hands_limit_knocks_only_within_it() -> None:
    # Seat 0 holds deadwood 10 (Kd) with a limit of 5 and a late knock of 10 (playout_knock's
    # bit 2 under a low upcard): past its knock window it must not knock over the limit (the
    # settlement refuses such a knock); it plays on, and the hand dies in the stock.
    rules = RULES["house"]
    settings = PlayoutSettings(rules, 5, 1, knock_turns=(0, 0), late_at=(10, 10))
    stock = [idx("2h"), idx("3h"), idx("Qh")]
    knocker, points = play_hand(
        [NINE_AND_KD, OTHER], stock, [idx("Qd")], 0, DRAW, -1, (5, 5), settings, Memo()
    )
    assert (knocker, points) == (-1, 0)
