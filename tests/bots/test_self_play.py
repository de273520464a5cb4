"""Seeded self-play between every pair of difficulties: every action legal, every hand ends.

Hard runs here with a reduced simulation budget (its real configuration is played in
``test_real_hard_plays_whole_hands``); the policy is the same, only the sample counts differ.
"""

from __future__ import annotations

import itertools

import pytest

from server.bots import DIFFICULTIES, make_bot
from server.rules import RULES, Phase, SeatView, deal, new_match

SMALL_HARD = {"worlds": 1, "candidates": 2, "lookahead": 0}
MAX_ACTIONS = 200  # a hand has at most 31 stock draws; any legal play ends well before this


def play_hand(difficulties: tuple[str, str], rules: str, seed: int, hard_options: dict | None = None) -> int:
    """Play one dealt hand between two difficulties; returns the number of actions."""
    bots = [
        make_bot(
            difficulty,
            f"{seed}:{seat}",
            **((SMALL_HARD if hard_options is None else hard_options) if difficulty == "hard" else {}),
        )
        for seat, difficulty in enumerate(difficulties)
    ]
    hand = deal(RULES[rules], starter=seed % 2, seed=f"self-play:{seed}")
    for n in range(MAX_ACTIONS):
        if hand.is_over:
            return n
        seat = hand.to_act
        view = hand.view(seat)
        action = bots[seat].choose(view)
        assert action in view.legal_actions, (
            f"{difficulties[seat]} chose {action!r}, not legal in {view.phase}"
        )
        assert action in hand.legal_actions()
        hand.apply(action, seat)
    raise AssertionError(f"hand {seed} between {difficulties} did not end in {MAX_ACTIONS} actions")


PAIRS = list(itertools.combinations_with_replacement(DIFFICULTIES, 2))
PRESETS = tuple(RULES)  # classic, house, oklahoma in turn
# Seeds per pair; each seed is played twice, seats swapped (about 6,000 hands in all).
HANDS = {("easy", "easy"): 750, ("easy", "normal"): 750, ("normal", "normal"): 750, ("hard", "hard"): 150}
HARD_HANDS = 250


@pytest.mark.parametrize("difficulties", PAIRS, ids=lambda p: "-".join(p))
def test_every_pair_of_difficulties_plays_seeded_hands_legally_to_the_end(
    difficulties: tuple[str, str],
) -> None:
    hands = HANDS.get(difficulties, HARD_HANDS)
    for seed in range(hands):
        rules = PRESETS[seed % len(PRESETS)]
        play_hand(difficulties, rules, seed)
        play_hand((difficulties[1], difficulties[0]), rules, seed)


def test_real_hard_plays_whole_hands() -> None:
    """The shipped configuration (no reduced budget) on a few hands against each difficulty."""
    for seed, opponent in enumerate(DIFFICULTIES):
        play_hand(("hard", opponent), "house", 10_000 + seed, hard_options={})


def test_a_hand_ends_in_a_knock_gin_or_dead_hand_and_both_seats_saw_only_views() -> None:
    seen: list[object] = []

    class Spy:
        def __init__(self, bot):
            self.bot = bot

        def choose(self, view):
            seen.append(view)
            return self.bot.choose(view)

    bots = [Spy(make_bot("normal", 1)), Spy(make_bot("hard", 2, **SMALL_HARD))]
    hand = deal(RULES["house"], starter=0, seed="spy")
    while not hand.is_over:
        hand.apply(bots[hand.to_act].choose(hand.view(hand.to_act)))
    assert hand.phase is Phase.OVER and hand.result is not None
    assert seen and all(type(v) is SeatView for v in seen)


@pytest.mark.parametrize(
    "difficulties", [("easy", "normal"), ("normal", "hard"), ("hard", "easy")], ids="-".join
)
def test_every_difficulty_plays_whole_oklahoma_matches_within_each_hands_own_limit(
    difficulties: tuple[str, str],
) -> None:
    for seed in range(2):
        bots = [
            make_bot(d, f"okla:{seed}:{seat}", **(SMALL_HARD if d == "hard" else {}))
            for seat, d in enumerate(difficulties)
        ]
        m = new_match("oklahoma", f"okla-self-play:{seed}")
        for _ in range(5000):
            if m.is_over:
                break
            hand, seat = m.hand, m.to_act
            view = hand.view(seat)
            up = m.log[-1].upcard
            assert view.knock_limit == (0 if up.rank == 1 else up.value)
            assert view.multiplier == (2 if up.code.endswith("s") else 1)
            action = bots[seat].choose(view)
            assert action in view.legal_actions
            m.apply(action, seat)
            r = hand.result
            if r is not None and r.knocker is not None:
                assert r.deadwood[r.knocker] <= view.knock_limit
        assert m.is_over and m.outcome.reason == "target"
