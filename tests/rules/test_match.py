"""RULES.md, "The match" and the variants: hands to 100, starters, bonuses, record and replay.

Matches are dealt from seeds, so they are driven by simple seeded players (see ``policy``) and the
tests check the rules against what happened hand by hand.
"""

import copy
import json
import random
from dataclasses import fields
from pathlib import Path

import pytest

from server.rules import (
    RULES,
    VARIANTS,
    Discard,
    IllegalActionError,
    Knock,
    MatchState,
    NotYourTurnError,
    Pass,
    ResultKind,
    StarterRule,
    new_match,
)
from server.rules.match import HandLog
from tests.wire_forms import wire

from .helpers import greedy_action

ROOT = Path(__file__).resolve().parents[2]


def policy(knocks: str = "always"):
    """A seeded player: greedy discards; ``knocks`` says when it knocks: "always", "gin" (only
    seat 0, only gin; seat 1 never knocks), or "every other hand" (nobody knocks in odd hands,
    so those hands end dead)."""

    def act(m: MatchState, rng: random.Random):
        a = greedy_action(m.hand, rng)
        if not isinstance(a, Knock):
            return a
        seat = m.hand.to_act
        allowed = (
            knocks == "always"
            or (knocks == "gin" and seat == 0 and m.hand.knock_options()[a.card] == 0)
            or (knocks == "every other hand" and m.hand_number % 2 == 0)
        )
        if allowed:
            return a
        options = m.hand.knock_options()
        return Discard(min(options, key=lambda c: (options[c], c)))

    return act


def play(m: MatchState, act, seed=0, until=None) -> MatchState:
    rng = random.Random(seed)
    steps = 0
    while not m.is_over and (until is None or steps < until):
        m.apply(act(m, rng), m.to_act)
        steps += 1
    return m


def winners(m: MatchState) -> list[int | None]:
    return [r.winner for r in m.results]


# --- Presets ----------------------------------------------------------------------------------


def test_the_three_presets_are_loaded_from_the_seed_data_files():
    assert set(RULES) == {"house", "classic", "oklahoma"}
    for name, rules in RULES.items():
        data = json.loads((ROOT / "seeds" / "rules" / f"{name}.json").read_text())
        assert {f.name: getattr(rules, f.name) for f in fields(rules)} == {
            k: v for k, v in data.items() if k != "variant"
        }
        # On the wire (GET /api/rules adds the guide): every number and name of the file.
        assert wire(rules) == {k: v for k, v in data.items() if k not in ("guide", "variant")}
        assert type(rules) is VARIANTS[data["variant"]]
        assert (rules.target, rules.knock_limit, rules.gin_bonus, rules.undercut_bonus) == (100, 10, 25, 25)
    assert (RULES["house"].box_bonus, RULES["house"].game_bonus) == (0, 0)
    assert RULES["house"].starter_rule is StarterRule.ALTERNATE
    assert (RULES["classic"].box_bonus, RULES["classic"].game_bonus, RULES["classic"].shutout_bonus) == (
        25,
        100,
        200,
    )
    assert RULES["classic"].starter_rule is StarterRule.WINNER_STARTS
    assert new_match("house", 1).rules is RULES["house"]


# --- The match --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["house", "classic", "oklahoma"])
def test_hand_scores_add_up_and_the_first_player_to_reach_100_wins_the_match(name):
    for seed in range(6):
        m = new_match(name, f"to100:{seed}")
        act, rng = policy(), random.Random(seed)
        scores = [0, 0]
        while not m.is_over:
            n = len(m.results)
            m.apply(act(m, rng))
            if len(m.results) > n:  # a hand just ended
                r = m.results[-1]
                if r.winner is not None:
                    scores[r.winner] += r.points
                assert m.scores == scores
                assert m.is_over == (max(scores) >= 100), "the match ends exactly when a seat reaches 100"
        assert tuple(scores) == tuple(t.points for t in m.outcome.totals)
        winner = m.outcome.winner
        assert scores[winner] >= 100 > scores[1 - winner]
        assert m.results[-1].winner == winner and m.outcome.reason == "target"
        assert m.to_act is None and m.legal_actions() == []
        with pytest.raises(IllegalActionError, match="over"):
            m.apply(Pass())


def test_a_dead_hand_scores_nothing():
    m = play(new_match("classic", "dead"), policy("every other hand"), 3)
    dead = [i for i, r in enumerate(m.results) if r.kind is ResultKind.DEAD]
    assert dead
    for i in dead:
        assert m.results[i].points == 0 and m.results[i].winner is None
        assert m.results[i].points_for(0) == m.results[i].points_for(1) == 0
    won = next(r for r in m.results if r.winner is not None and r.points)
    assert won.points_for(won.winner) == won.points == -won.points_for(1 - won.winner)
    assert sum(m.hands_won) == len(m.results) - len(dead)


def test_house_the_starting_player_alternates_every_hand_dead_hands_included():
    for seed in range(4):
        m = play(new_match("house", f"alt:{seed}"), policy("every other hand"), seed)
        assert any(r.kind is ResultKind.DEAD for r in m.results)
        assert any(r.winner == log.starter for r, log in zip(m.results, m.log))  # a starter won too
        starters = [log.starter for log in m.log]
        assert starters == [(m.first_starter + i) % 2 for i in range(len(starters))]


@pytest.mark.parametrize("name", ["classic", "oklahoma"])
def test_classic_the_winner_of_a_hand_starts_the_next_and_the_same_dealer_deals_after_a_dead_hand(name):
    seen = set()
    for seed in range(6):
        m = play(new_match(name, f"winner:{seed}"), policy("every other hand"), seed)
        assert m.log[0].starter == m.first_starter
        for prev, nxt, r in zip(m.log, m.log[1:], m.results):
            if r.winner is None:
                assert nxt.starter == prev.starter, "after a dead hand the same dealer deals again"
                seen.add("dead")
            else:
                assert nxt.starter == r.winner, "the loser deals, so the winner starts"
                seen.add("dealer won" if r.winner != prev.starter else "starter won")
    assert seen == {"dead", "dealer won", "starter won"}


def test_the_first_starter_is_drawn_from_the_match_seed():
    firsts = {new_match("house", f"first:{i}").first_starter for i in range(20)}
    assert firsts == {0, 1}
    assert new_match("classic", "x").first_starter == new_match("classic", "x").first_starter
    assert new_match("house", "x", first_starter=1).log[0].starter == 1


@pytest.mark.parametrize("name", ["classic", "oklahoma"])
def test_classic_adds_25_per_hand_won_and_a_game_bonus_of_100(name):
    for seed in range(20):
        m = play(new_match(name, f"box:{seed}"), policy(), seed)
        loser = 1 - m.outcome.winner
        if m.scores[loser] > 0:
            break
    else:
        pytest.fail("no match where the loser scored")
    for seat in (0, 1):
        won = sum(1 for w in winners(m) if w == seat)
        assert m.hands_won[seat] == won
        t = m.outcome.totals[seat]
        assert t.box_bonus == 25 * won
        assert t.game_bonus == (100 if seat == m.outcome.winner else 0)
        assert t.total == m.scores[seat] + 25 * won + t.game_bonus
    assert m.outcome.totals[m.outcome.winner].points >= 100


def shutout(name: str) -> MatchState:
    # Seat 0 only ever knocks with gin (which cannot be undercut) and seat 1 never knocks.
    for seed in range(20):
        m = play(new_match(name, f"shutout:{seed}"), policy("gin"), seed)
        if m.scores[1] == 0:
            assert m.outcome.winner == 0
            return m
    pytest.fail("no shutout found")


@pytest.mark.parametrize("name", ["classic", "oklahoma"])
def test_classic_game_bonus_is_200_when_the_loser_scored_no_points(name):
    m = shutout(name)
    win, lose = m.outcome.totals
    assert win.game_bonus == 200
    assert win.box_bonus == 25 * m.hands_won[0] and m.hands_won[0] >= 4  # gins of 25 + deadwood
    assert (lose.points, lose.box_bonus, lose.game_bonus, lose.total) == (0, 0, 0, 0)


def test_house_has_no_box_bonus_and_no_game_bonus():
    m = shutout("house")
    for t in m.outcome.totals:
        assert t.box_bonus == 0 and t.game_bonus == 0 and t.total == t.points
    m = play(new_match("house", "plain"), policy(), 1)
    assert all(t.total == t.points for t in m.outcome.totals)


def test_a_resignation_ends_the_match_for_the_other_seat_without_bonuses():
    m = play(new_match("classic", "resign"), policy(), 0, until=30)
    m.resign(0)
    assert m.outcome.winner == 1 and m.outcome.reason == "resign"
    assert all(t.box_bonus == 0 and t.game_bonus == 0 for t in m.outcome.totals)
    with pytest.raises(IllegalActionError):
        m.resign(1)
    again = MatchState.replay(json.loads(json.dumps(m.record())))
    assert again.outcome == m.outcome


# --- Illegal actions and replay ---------------------------------------------------------------


def match_snapshot(m: MatchState):
    return (
        json.dumps(m.record()),
        [m.view(s) for s in (0, 1, None)],
        [json.dumps(wire(m.view(s))) for s in (0, 1, None)],
        list(m.scores),
        list(m.hands_won),
        copy.deepcopy(m.log),
    )


def test_an_illegal_action_in_a_match_raises_and_changes_nothing():
    m = play(new_match("house", "illegal"), policy(), 0, until=7)
    before = match_snapshot(m)
    seat = m.to_act
    illegal = [a for a in (Pass(), Discard("Kh"), Knock("2c")) if a not in m.legal_actions()]
    for action in illegal:
        with pytest.raises(IllegalActionError):
            m.apply(action, seat)
    for action in m.legal_actions():
        with pytest.raises(NotYourTurnError):
            m.apply(action, 1 - seat)
    assert m.legal_actions(1 - seat) == []
    assert match_snapshot(m) == before


@pytest.mark.parametrize("name", ["house", "classic", "oklahoma"])
def test_a_match_record_replays_to_the_same_state(name):
    for seed, until in ((0, None), (1, None), (2, 17), (3, 123)):
        m = play(new_match(name, f"replay:{seed}"), policy(), seed, until=until)
        record = json.loads(json.dumps(m.record()))  # the record survives JSON
        again = MatchState.replay(record)
        assert match_snapshot(again) == match_snapshot(m)
        assert again.results == m.results
        assert [wire(r) for r in again.results] == [wire(r) for r in m.results]
        assert again.outcome == m.outcome
        assert again.hand.stock_order() == m.hand.stock_order()
        assert (again.hand.hand(0), again.hand.hand(1)) == (m.hand.hand(0), m.hand.hand(1))


def test_each_hand_of_the_record_replays_from_its_logged_deal():
    from server.rules import Action, new_hand

    m = play(new_match("classic", "logs"), policy(), 4)
    for log, result in zip(m.log, m.results):
        hands = tuple([str(c) for c in hand] for hand in log.hands)
        h = new_hand(m.rules, log.starter, hands, str(log.upcard), [str(c) for c in log.stock])
        for seat, action in log.actions:
            h.apply(Action.from_wire(action.to_wire()), seat)
        assert h.result == result
    assert isinstance(m.log[0], HandLog)


def test_an_unknown_rule_set_is_a_clear_rules_error_not_a_bare_key_error():
    from server.rules import RulesError, UnknownRulesError

    record = new_match("house", seed=3).record()
    record["rules"] = "casino"
    with pytest.raises(UnknownRulesError, match="unknown rules 'casino'") as caught:
        MatchState.replay(record)
    assert isinstance(caught.value, RulesError) and isinstance(caught.value, KeyError)
    with pytest.raises(UnknownRulesError):
        new_match("casino", seed=3)


def test_every_seats_view_of_a_hand_carries_the_match_score_it_was_dealt_at():
    m = new_match("house", "scores-in-view")
    act, rng = policy(), random.Random(5)
    seen = set()
    while not m.is_over:
        for seat in (0, 1, None):
            assert m.hand.view(seat).scores == tuple(m.scores)  # both seats see both scores
        seen.add(tuple(m.scores))
        m.apply(act(m, rng))
    assert len(seen) > 2  # the score moved during the match, and the views followed it
    again = MatchState.replay(m.record())
    assert again.hand.view(0).scores == m.hand.view(0).scores
