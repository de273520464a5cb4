"""Options of Hard's ``discard_style=1`` measured no better against the MARJJ-style player in
issue 17's fifth round and left off (``knock_sure``, ``style_feed``, ``close_weight``), pinned
on hands written card by card so that the measurements in docs/strength.md can be repeated."""

from __future__ import annotations

from server.bots.hard import HardBot
from server.bots.knowledge import Knowledge
from server.bots.marjj_plus import feed_chances, marjj_plus_values, strength_share
from server.rules import RULES, Discard, Knock
from server.rules.cards import Card

from . import scenarios


def test_knock_sure_knocks_when_few_sampled_hands_undercut_whatever_the_value() -> None:
    kd, nh = Card.parse("Kd").index, Card.parse("9h").index
    values = {("knock", kd): 1.0, ("discard", nh): 2.0}
    scored = {nh: 10.0, kd: 12.0}
    # By value (the default) playing on is worth more: it plays on.
    assert HardBot(0).pick(values, scored, {kd: 0.1}) == Discard(Card.parse("9h"))
    # At most 2 sampled hands in 10 undercut: it knocks; 3 in 10: the value decides again.
    assert HardBot(0, knock_sure=20).pick(values, scored, {kd: 0.1}) == Knock(Card.parse("Kd"))
    assert HardBot(0, knock_sure=20).pick(values, scored, {kd: 0.3}) == Discard(Card.parse("9h"))


def test_style_feed_adds_the_chance_the_opponent_melds_the_card_to_marjjs_score() -> None:
    # The opponent took 5c, 9h and Qd into sets: a chance is known for each candidate.
    view = scenarios.undercut_risk().view(1)
    plain = marjj_plus_values(HardBot(0, worlds=4), view)[1]
    fed = marjj_plus_values(HardBot(0, worlds=4, style_feed=10), view)[1]
    chances = {c: chance for c, _, chance in feed_chances(Knowledge.from_view(view), plain)}
    assert plain.keys() == fed.keys()
    for c in plain:
        assert abs(fed[c] - plain[c] - 10 * chances[c]) < 1e-9
    assert all(0.0 <= x <= 1.0 for x in chances.values()) and any(x > 0 for x in chances.values())


def test_close_weight_is_used_only_near_the_target_of_a_house_match() -> None:
    state = scenarios.late_knock()  # the bot is seat 1
    bot = HardBot(0, close_weight=25)
    state.scores = (0, 0)
    assert strength_share(bot, state.view(1)) == 0.5  # strength_weight
    state.scores = (75, 0)  # the opponent is 25 from the target
    assert strength_share(bot, state.view(1)) == 0.25
    state.scores = (0, 71)  # the bot is 29 from it
    assert strength_share(bot, state.view(1)) == 0.25
    assert strength_share(HardBot(0), state.view(1)) == 0.5  # off by default
    state.rules = RULES["classic"]
    assert strength_share(bot, state.view(1)) == 0.5
