"""Hard's reading of the match score (``match_bonus``) and of an opponent who holds out for gin
(``opp_gin_after``, ``opp_mix``), on hands written card by card."""

from __future__ import annotations

from server.bots import make_bot
from server.bots.hard import HardBot
from server.rules import RULES, Discard, Knock

from . import scenarios


def test_points_past_the_target_are_worth_nothing_and_reaching_it_earns_the_bonus() -> None:
    state = scenarios.late_knock()
    state.scores = (90, 70)  # the bot is seat 1: 30 from the target; the opponent 10
    view = state.view(1)
    worth = HardBot(0, match_bonus=40).worth(view)
    assert worth(12) == 12  # short of the target: points are points
    assert worth(30) == 30 + 40 and worth(55) == 30 + 40  # reaching it: the bonus, no more
    assert worth(-9) == -9
    assert worth(-10) == -(10 + 40) and worth(-35) == -(10 + 40)  # the opponent wins the match
    assert worth(0) == 0


def test_without_the_option_or_with_a_box_bonus_points_are_points() -> None:
    state = scenarios.late_knock()
    state.scores = (90, 70)
    assert HardBot(0).worth(state.view(1))(55) == 55
    classic = scenarios.late_knock()
    classic.rules = RULES["classic"]
    classic.scores = (90, 70)
    assert HardBot(0, match_bonus=40).worth(classic.view(1))(55) == 55


def test_the_score_enters_the_decision_seed_only_once_it_is_not_nil() -> None:
    from server.bots.base import view_key

    state = scenarios.late_knock()
    fresh = view_key(state.view(1))
    state.scores = (0, 0)
    assert view_key(state.view(1)) == fresh
    state.scores = (12, 40)
    assert view_key(state.view(1)) == f"{fresh}|12-40"


def test_hard_with_the_gin_holder_model_still_makes_the_basic_knock_decisions() -> None:
    # With three cards left a knock with 10 against junk still wins; and a knock into an
    # undercut still waits, whatever the model of the opponent's knocking.
    for options in ({"opp_gin_after": 3}, {"opp_gin_after": 3, "opp_mix": 1}, {"clue_turns": 3}):
        late = scenarios.late_knock()
        assert all(isinstance(make_bot("hard", s, **options).choose(late.view(1)), Knock) for s in range(3))
        risky = scenarios.undercut_risk()
        acts = [make_bot("hard", s, **options).choose(risky.view(1)) for s in range(3)]
        assert all(isinstance(a, Discard) for a in acts)
