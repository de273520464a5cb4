"""The ladder's simple baseline: not a difficulty anyone chooses, built by the same factory, and
a plain greedy player: it knocks whenever it can, takes the upcard only when it melds, and plays
whole matches with legal actions only (seeded self-play against Normal)."""

from __future__ import annotations

from server.bots import BASELINES, DIFFICULTIES, make_bot
from server.rules import RULES, Knock, new_hand, new_match


def test_the_baseline_is_made_by_the_factory_but_is_no_difficulty() -> None:
    assert "simple" in BASELINES and "simple" not in DIFFICULTIES
    assert make_bot("simple", 3).difficulty == "simple"


def test_it_knocks_as_soon_as_it_can_and_takes_only_a_card_that_melds() -> None:
    hands = ("2c 3c 4c 5h 5d 5s 7c 8c 9c 7h", "Qs Qd Qc Jh Th 9h 4s As 5c Tc")
    bot = make_bot("simple", 0)
    # A king melds with nothing: it passes.
    assert bot.choose(new_hand(RULES["house"], 0, hands, "Kd", "Kh 2h 3h 4h").view(0)).to_wire() == {
        "kind": "pass"
    }
    # 6c joins 7c 8c 9c: it takes it, and goes out at once (gin, throwing 7h).
    hand = new_hand(RULES["house"], 0, hands, "6c", "Kh 2h 3h 4h")
    take = bot.choose(hand.view(0))
    assert take.to_wire() == {"kind": "take_upcard"}
    hand.apply(take, 0)
    knock = bot.choose(hand.view(0))
    assert isinstance(knock, Knock) and str(knock.card) == "7h"


def test_whole_matches_against_normal_use_legal_actions_only() -> None:
    for seed in range(3):
        match = new_match("house", f"simple-{seed}")
        bots = {0: make_bot("simple", seed), 1: make_bot("normal", seed)}
        while not match.is_over:
            seat = match.hand.to_act
            view = match.hand.view(seat)
            action = bots[seat].choose(view)
            assert action in view.legal_actions
            match.apply(action, seat)
        assert match.outcome is not None
