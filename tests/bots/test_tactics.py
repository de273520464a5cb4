"""Tactical situations written as hands: each bot sees only its view and must play the move a
good player of its difficulty plays."""

from __future__ import annotations

import pytest

from server.bots import DIFFICULTIES, make_bot
from server.rules import Discard, Draw, Knock, Source, TakeUpcard

from . import scenarios

SEEDS = range(4)


def choices(difficulty: str, state, **options) -> list:
    view = state.view(state.to_act)
    return [make_bot(difficulty, seed, **options).choose(view) for seed in SEEDS]


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_every_difficulty_takes_an_upcard_that_completes_a_meld(difficulty: str) -> None:
    state = scenarios.upcard_completes_a_meld()
    assert choices(difficulty, state) == [TakeUpcard()] * len(SEEDS)


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_every_difficulty_takes_a_discard_that_completes_a_meld(difficulty: str) -> None:
    state = scenarios.discard_completes_a_meld()
    assert choices(difficulty, state) == [Draw(Source.DISCARD)] * len(SEEDS)


def test_normal_knocks_as_soon_as_it_can() -> None:
    for state in (scenarios.undercut_risk(), scenarios.late_knock()):
        # Normal knocks even into an undercut: it does not read the opponent.
        assert all(isinstance(a, Knock) for a in choices("normal", state))
        # ... with the discard leaving the least deadwood (Kd or Ts: both leave 10)
        assert {a.card.code for a in choices("normal", state)} <= {"Kd", "Ts"}


def test_hard_knocks_when_waiting_cannot_pay() -> None:
    # Three cards left in the stock: waiting gives the opponent the last turn and a dead hand;
    # the opponent has shown nothing and holds junk, so a knock with 10 wins.
    assert all(isinstance(a, Knock) for a in choices("hard", scenarios.late_knock()))


def test_hard_waits_for_gin_when_a_knock_would_be_undercut() -> None:
    # The opponent took three discards that each made a set: its deadwood is low, a knock with
    # 10 would be undercut; gin is one card away, so Hard plays on.
    acts = choices("hard", scenarios.undercut_risk())
    assert all(isinstance(a, Discard) for a in acts)
    assert {a.card.code for a in acts} <= {"Kd", "Ts"}  # and keeps its melds


def test_hard_avoids_discarding_next_to_a_card_the_player_picked_up() -> None:
    # The opponent took the 8s; of the bot's two loose nines, 9s would feed it a run.
    acts = choices("hard", scenarios.picked_up_8s())
    assert all(isinstance(a, Discard) for a in acts)
    assert "9s" not in {a.card.code for a in acts}


def test_normal_throws_its_highest_useless_card_keeping_a_live_pair() -> None:
    acts = choices("normal", scenarios.queens_pair(dead=False))
    assert {a.card.code for a in acts} == {"Jc"}


def test_normal_counts_a_pair_whose_set_is_dead_as_useless() -> None:
    acts = choices("normal", scenarios.queens_pair(dead=True))
    assert {a.card.code for a in acts} <= {"Qs", "Qd"}
