"""Hard's ``match_equity``: a hand's points valued as the change of the chance to win the match
(:mod:`server.bots.equity`), on scores and hands written out."""

from __future__ import annotations

from server.bots import make_bot
from server.bots.equity import equity_worth, knock_value, win_chance
from server.bots.hard import HardBot
from server.rules import RULES, Knock

from . import scenarios


def test_the_win_chance_is_even_at_an_even_score_and_grows_with_the_lead() -> None:
    assert abs(win_chance(100, 100) - 0.5) < 1e-9
    assert abs(win_chance(37, 37) - 0.5) < 1e-9
    assert abs(win_chance(40, 90) + win_chance(90, 40) - 1) < 1e-9  # one seat wins or the other
    assert win_chance(0, 5) == 1.0 and win_chance(5, 0) == 0.0  # the match is over
    chances = [win_chance(need, 100) for need in (100, 80, 60, 40, 20, 1)]
    assert chances == sorted(chances) and chances[0] < chances[-1] < 1


def test_equity_worth_is_about_points_at_the_start_and_nothing_past_the_target() -> None:
    start = equity_worth(100, 100, 100)
    assert start(0) == 0
    assert abs(start(20) - 20) < 1e-9 and abs(start(-20) + 20) < 1e-9  # the scale
    assert 8 < start(10) < 12 and 25 < start(30) < 35
    # The bot needs 10, the opponent 30: 10 points win the match, and more add nothing; the
    # opponent's 30 end it too, and a point it needs weighs far more than at the start.
    late = equity_worth(10, 30, 100)
    assert late(10) == late(50) > late(9) > 0
    assert late(-30) == late(-60) < late(-29) < 0
    assert late(-20) < start(-20)


def test_hard_values_points_by_equity_only_with_the_option_and_no_box_bonus() -> None:
    state = scenarios.late_knock()
    state.scores = (70, 90)  # the bot is seat 1: 10 from the target; the opponent 30
    view = state.view(1)
    worth = HardBot(0, match_equity=1).worth(view)
    assert worth(25) == equity_worth(10, 30, 100)(25)
    assert HardBot(0).worth(view)(25) == 25
    classic = scenarios.late_knock()
    classic.rules = RULES["classic"]
    classic.scores = (70, 90)
    assert HardBot(0, match_equity=1).worth(classic.view(1))(25) == 25


def test_a_knock_that_wins_the_match_in_every_sample_is_not_held_back_by_the_knock_bias() -> None:
    # With 3 cards left the bot (seat 1, 5 from the target) may knock with 10 against the
    # opponent's dealt junk: every sample wins the match, and so do the playouts of playing on.
    # The knock bias must not tip that tie to playing on.
    state = scenarios.late_knock()
    state.scores = (0, 95)
    view = state.view(1)
    bot = HardBot(0, match_equity=1)
    assert knock_value(bot, [30, 41], 0, bot.worth(view)) == bot.worth(view)(5)
    # Points are points without the option: the mean less 3.
    assert knock_value(HardBot(0), [30, 41], 0, float) == 35.5 - 3
    for s in range(3):
        assert isinstance(make_bot("hard", s, match_equity=1).choose(view), Knock)
