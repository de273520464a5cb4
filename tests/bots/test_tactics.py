"""Tactical situations written as hands: each bot sees only its view and must play the move a
good player of its difficulty plays."""

from __future__ import annotations

import pytest

from server.bots import DIFFICULTIES, make_bot
from server.rules import RULES, Discard, Draw, Knock, Pass, Source, TakeUpcard, new_hand
from server.rules.cards import DECK

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


# --- Oklahoma: the hand's own knock limit -------------------------------------------------------

OKLAHOMA_MELDED = "2h 3h 4h 6d 6s 6c 9d 9s 9c Kd"  # three melds and a king


def oklahoma_after_drawing(upcard: str, drawn: str):
    """An oklahoma hand where seat 0 (the bot) has drawn ``drawn`` after both passed the upcard:
    throwing Kd leaves exactly ``drawn``'s value in deadwood."""
    other = "Qs Qd Jh Th 8h 7c 7s 2s 3s 3d"
    used = {*OKLAHOMA_MELDED.split(), *other.split(), upcard, drawn}
    rest = [c.code for c in DECK if c.code not in used]
    h = new_hand(RULES["oklahoma"], 0, (OKLAHOMA_MELDED, other), upcard, [drawn, *rest])
    return h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK))


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
@pytest.mark.parametrize(("upcard", "drawn"), [("4c", "5d"), ("Ac", "Ad"), ("2c", "3c")])
def test_no_difficulty_knocks_above_the_hands_own_limit(difficulty: str, upcard: str, drawn: str) -> None:
    state = oklahoma_after_drawing(upcard, drawn)
    view = state.view(0)
    assert min(dw for _, dw in view.discard_deadwood) > view.knock_limit
    acts = choices(difficulty, state, **({"worlds": 4} if difficulty == "hard" else {}))
    assert all(isinstance(a, Discard) for a in acts)


def test_normal_knocks_as_soon_as_the_hands_own_limit_allows() -> None:
    state = oklahoma_after_drawing("5c", "5d")  # limit 5, deadwood 5 after throwing Kd
    assert choices("normal", state) == [Knock("Kd")] * len(SEEDS)
