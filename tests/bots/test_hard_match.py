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


def test_best_draws_deadwood_counts_only_the_draws_that_help_most() -> None:
    from server.bots.knowledge import FULL
    from server.bots.sim import Memo, best_draws_deadwood
    from server.rules.cards import to_mask

    # Ac 2c 3c | 6d 7d 8d | Jh Jc Js, and Kd: four draws make gin (4c, 5d, 9d, Jd, throwing Kd);
    # the next best are the three aces left (throwing Kd leaves the ace: 1).
    gin_close = to_mask(["Ac", "2c", "3c", "6d", "7d", "8d", "Jh", "Jc", "Js", "Kd"])
    unseen = FULL & ~gin_close
    memo = Memo()
    assert best_draws_deadwood(gin_close, unseen, memo, 4) == 0
    assert best_draws_deadwood(gin_close, unseen, memo, 5) == 1 / 5
    assert best_draws_deadwood(gin_close, unseen, memo, 7) == 3 / 7
    # Nothing unseen: the hand's own deadwood.
    assert best_draws_deadwood(gin_close, 0, memo, 6) == 10
    # A hand of ten loose cards stays far from gin even after its best draws.
    junk = to_mask(["Ac", "3d", "5h", "7s", "9c", "Jd", "Kh", "2s", "4c", "6d"])
    assert best_draws_deadwood(junk, FULL & ~junk, memo, 6) > 30


def test_early_knock_knocks_within_its_first_turns_whatever_the_risk() -> None:
    # The bot (seat 1) may knock with 10 on its fourth draw, but the opponent's pickups made three
    # sets: Hard waits; told to knock within its first four turns, it knocks (the least deadwood,
    # throwing the higher of Kd and Ts... the ten cards kept leave 10 either way).
    risky = scenarios.undercut_risk()
    view = risky.view(1)
    from server.bots.sim import own_turns

    assert own_turns(view) == 4
    for s in range(3):
        assert isinstance(make_bot("hard", s, early_knock=4).choose(view), Knock)
        assert isinstance(make_bot("hard", s, early_knock=3).choose(view), Discard)


def test_gin_weight_adds_the_deadwood_after_the_best_draws_to_the_quick_score() -> None:
    # The bot (seat 1) holds Ac 2c 3c 6d 7d Jh Jc 5c 9h Qd and drew Ts. Throwing Ts keeps Qd (a
    # loose ten either way), but the gin term is the mean of the best six draws after each.
    from server.bots.knowledge import Knowledge
    from server.bots.sim import Memo, best_draws_deadwood
    from server.rules.cards import Card

    view = scenarios.undercut_risk().view(1)
    k = Knowledge.from_view(view)
    probs = k.opp_probabilities()
    hand = k.own
    plain = HardBot(0, gin_weight=0)._quick_scores(view, hand, k, probs, Memo())
    weighted = HardBot(0, gin_weight=15, gin_draws=4)._quick_scores(view, hand, k, probs, Memo())
    assert plain.keys() == weighted.keys()
    for c in plain:
        gin = best_draws_deadwood(hand & ~(1 << c), k.unseen, Memo(), 4)
        assert abs(weighted[c] - plain[c] - 1.5 * gin) < 1e-9
    # Keeping the two-way 6d 7d and the Jh Jc pair is closer to gin than breaking them.
    ts, jc = Card.parse("Ts").index, Card.parse("Jc").index
    assert weighted[ts] - plain[ts] < weighted[jc] - plain[jc]


def test_knock_risk_knocks_only_when_few_sampled_hands_undercut() -> None:
    # Against the dealt junk, no sampled hand undercuts: it knocks. Against three sets shown by
    # the opponent's pickups, most would: it plays on for gin.
    late = scenarios.late_knock()
    risky = scenarios.undercut_risk()
    for s in range(3):
        assert isinstance(make_bot("hard", s, knock_risk=10).choose(late.view(1)), Knock)
        assert isinstance(make_bot("hard", s, knock_risk=10).choose(risky.view(1)), Discard)


def test_by_default_the_knock_is_weighed_by_its_value_not_by_an_undercut_threshold() -> None:
    # Two cards of the bot's hand: knocking with Kd is worth 5 points on average over the
    # samples though 3 samples in 10 undercut it; throwing 9h and playing on is worth 2. By
    # default the higher value wins (the knock); with a 10% threshold it plays on.
    from server.rules.cards import Card

    kd, nh = Card.parse("Kd").index, Card.parse("9h").index
    values = {("knock", kd): 5.0, ("discard", nh): 2.0, ("discard", kd): 1.0}
    scored = {nh: 10.0, kd: 12.0}
    assert HardBot(0).pick(values, scored, {kd: 0.3}) == Knock(Card.parse("Kd"))
    assert HardBot(0, knock_risk=10).pick(values, scored, {kd: 0.3}) == Discard(Card.parse("9h"))
    # Worth less than playing on, it is not made even with no risk at all.
    values[("knock", kd)] = 1.5
    assert HardBot(0).pick(values, scored, {kd: 0.0}) == Discard(Card.parse("9h"))


def test_gin_decay_lowers_the_gin_weight_with_every_turn_as_marjj_does() -> None:
    # The bot (seat 1) is on its fourth draw: the weight is 2.0 x 0.9^3 of the best-draws term.
    from server.bots.knowledge import Knowledge
    from server.bots.sim import Memo, best_draws_deadwood, own_turns

    view = scenarios.undercut_risk().view(1)
    assert own_turns(view) == 4
    k = Knowledge.from_view(view)
    probs = k.opp_probabilities()
    hand = k.own
    plain = HardBot(0, gin_weight=0)._quick_scores(view, hand, k, probs, Memo())
    decayed = HardBot(0, gin_weight=20, gin_decay=90, gin_draws=4)._quick_scores(view, hand, k, probs, Memo())
    for c in plain:
        gin = best_draws_deadwood(hand & ~(1 << c), k.unseen, Memo(), 4)
        assert abs(decayed[c] - plain[c] - 2.0 * 0.9**3 * gin) < 1e-9


def test_opp_mix_2_plays_a_gin_holder_only_in_the_worlds_where_the_opponent_could_have_knocked() -> None:
    from server.bots.sim import Memo
    from server.rules.cards import to_mask

    # deadwood 5 (Ac 2c 3c, 6d 7d 8d, Jh Jc Js and 5s): it could have knocked and did not
    close = to_mask(["Ac", "2c", "3c", "6d", "7d", "8d", "Jh", "Jc", "Js", "5s"])
    # ten loose cards: it cannot knock yet
    junk = to_mask(["Ac", "3d", "5h", "7s", "9c", "Jd", "Kh", "2s", "4c", "6d"])
    worlds = [(close, []), (junk, []), (close, [])]
    bot = HardBot(0, opp_mix=2)  # opp_gin_after=3 (the default)
    assert bot.opp_knock_at(3, worlds, 10, Memo()) == [0, 10, 0]
    # in its first turns it knocks at its first chance in every world
    assert bot.opp_knock_at(2, worlds, 10, Memo()) == [10, 10, 10]
    # the other models: every world a gin-holder, or every other one
    assert HardBot(0, opp_gin_after=3, opp_mix=0).opp_knock_at(3, worlds, 10, Memo()) == [0, 0, 0]
    assert HardBot(0, opp_gin_after=3, opp_mix=1).opp_knock_at(3, worlds, 10, Memo()) == [0, 10, 0]
    assert HardBot(0, opp_gin_after=99).opp_knock_at(50, worlds, 10, Memo()) == [10, 10, 10]


def test_knock_cap_weighs_the_knock_by_value_only_while_few_sampled_hands_undercut() -> None:
    from server.rules.cards import Card

    kd, nh = Card.parse("Kd").index, Card.parse("9h").index
    values = {("knock", kd): 5.0, ("discard", nh): 2.0}
    scored = {nh: 10.0, kd: 12.0}
    capped = HardBot(0, knock_cap=20)
    # 3 sampled hands in 10 undercut: over the cap, it plays on whatever the value
    assert capped.pick(values, scored, {kd: 0.3}) == Discard(Card.parse("9h"))
    # 1 in 10: the value decides, the knock
    assert capped.pick(values, scored, {kd: 0.1}) == Knock(Card.parse("Kd"))
    # and under the cap a knock worth less than playing on is not made
    assert capped.pick({**values, ("knock", kd): 1.0}, scored, {kd: 0.1}) == Discard(Card.parse("9h"))
