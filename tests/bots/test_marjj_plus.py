"""Hard's ``discard_style=1`` (server/bots/marjj_plus.py): the MARJJ-style player's draws and
discards, with the knock after the early turns weighed by simulation, on hands written card by
card."""

from __future__ import annotations

from server.bench.marjj import MarjjStyle
from server.bots import make_bot
from server.bots.marjj_plus import marjj_plus_values
from server.bots.sim import own_turns
from server.rules import Discard, Draw, Knock, Pass, Source, TakeUpcard
from server.rules.cards import Card

from . import scenarios
from .scenarios import DRAW_STOCK, PASS, discard, scripted

SEEDS = range(3)


def plus(seed: int, **options: int):  # type: ignore[no-untyped-def]
    return make_bot("hard", seed, discard_style=1, **options)


def test_it_takes_a_card_only_into_a_meld_as_marjj_does() -> None:
    # Ad melds with nothing, but taking it and throwing Kd leaves 1: the older style takes it
    # (it could knock at once), the MARJJ-style draw does not.
    state = scripted(("2c 3c 4c 5h 6h 7h 8s 9s Ts Kd", "Ac 3d 6d Qd 2s 3s Kc Qc 6c Jh"), "Ad", [], [])
    view = state.view(state.to_act)
    assert [make_bot("hard", s, discard_style=0).choose(view) for s in SEEDS] == [TakeUpcard()] * 3
    assert [plus(s).choose(view) for s in SEEDS] == [Pass()] * 3
    assert [make_bot("hard", s).choose(view) for s in SEEDS] == [Pass()] * 3  # the default
    assert [MarjjStyle(s).choose(view) for s in SEEDS] == [Pass()] * 3
    # A card that completes a meld it takes.
    for state in (scenarios.upcard_completes_a_meld(), scenarios.discard_completes_a_meld()):
        acts = {plus(s).choose(state.view(state.to_act)) for s in SEEDS}
        assert acts <= {TakeUpcard(), Draw(Source.DISCARD)}


def test_it_throws_marjjs_discard() -> None:
    # The dealer holds Ac2c3c 4d5d6d, 7s 8s and the pair Kh Ks, and draws Qd: the lone queen goes.
    state = scripted(
        ("2h 9c Th 5s 6h Jc 4s 3d 8c 9h", "Ac 2c 3c 4d 5d 6d 7s 8s Kh Ks"),
        "3h",
        ["2d", "Qd"],
        [PASS, PASS, DRAW_STOCK, discard("2h"), DRAW_STOCK],
    )
    view = state.view(1)
    assert [plus(s).choose(view) for s in SEEDS] == [Discard(Card.parse("Qd"))] * 3
    # No knock is possible and no near-tie is asked for: nothing is simulated.
    values, scored, risk = marjj_plus_values(plus(0), view)
    assert list(values) == [("discard", Card.parse("Qd").index)] and not risk
    assert set(scored) <= {c.index for c in view.hand}


def test_after_its_first_turns_it_knocks_when_the_simulated_knock_pays() -> None:
    # Three cards left in the stock and the opponent holding junk: a knock with 10 wins, where
    # MARJJ plays on for gin.
    late = scenarios.late_knock()
    assert own_turns(late.view(1)) > 3
    assert all(isinstance(plus(s).choose(late.view(1)), Knock) for s in SEEDS)
    assert all(isinstance(MarjjStyle(s).choose(late.view(1)), Discard) for s in SEEDS)


def test_it_plays_on_when_the_opponents_pickups_say_the_knock_is_undercut() -> None:
    # The opponent took 5c, 9h and Qd, each into a set: knocking with 10 would be undercut.
    risky = scenarios.undercut_risk()
    view = risky.view(1)
    acts = [plus(s).choose(view) for s in SEEDS]
    assert all(isinstance(a, Discard) for a in acts)
    assert {a.card.code for a in acts} <= {"Kd", "Ts"}
    values, _, risk = marjj_plus_values(plus(0), view)
    assert max(risk.values()) > 0.5
    knock = max(v for (kind, _), v in values.items() if kind == "knock")
    assert knock < max(v for (kind, _), v in values.items() if kind == "discard")


def test_tie_band_plays_out_the_near_ties_of_marjjs_score() -> None:
    view = scenarios.undercut_risk().view(1)
    narrow, scored, _ = marjj_plus_values(plus(0, tie_band=0), view)
    wide, _, _ = marjj_plus_values(plus(0, tie_band=100, candidates=3), view)
    discards = [c for kind, c in wide if kind == "discard"]
    assert len([c for kind, c in narrow if kind == "discard"]) == 1
    assert len(discards) == min(3, len(scored))
    # every value is net of the blend penalty for its score gap to MARJJ's best
    best = min(scored.values())
    assert all(c in scored and scored[c] >= best for c in discards)


def test_a_decision_is_a_function_of_seed_and_view() -> None:
    view = scenarios.undercut_risk().view(1)
    assert plus(7).choose(view) == plus(7).choose(view)


def test_the_gin_thrower_keeps_pairs_and_partials_where_least_deadwood_throws_the_highest() -> None:
    from server.bots.handstrength import gin_thrown_card
    from server.bots.sim import thrown_card
    from server.rules.cards import to_mask

    # Ac2c3c 4d5d6d in melds, 7h 8h a partial; Kh Ks a pair, Qd lone: least deadwood throws a king (the
    # higher index), the gin player the lone queen (within 5 points of the highest loose card).
    hand = to_mask(["Ac", "2c", "3c", "4d", "5d", "6d", "7h", "8h", "Kh", "Ks", "Qd"])
    assert thrown_card(hand, 0) in {Card.parse("Kh").index, Card.parse("Ks").index}
    assert gin_thrown_card(hand, 0) == Card.parse("Qd").index
    # A card it must keep (one it took) is never thrown.
    assert gin_thrown_card(hand, 1 << Card.parse("Qd").index) != Card.parse("Qd").index
    # Every card in a meld: the least-deadwood discard.
    full = to_mask(["Ac", "2c", "3c", "4c", "4d", "5d", "6d", "7h", "8h", "9h", "Th"])
    assert gin_thrown_card(full, 0) == thrown_card(full, 0)


def test_a_knock_is_valued_at_its_mean_settlement_plus_the_knock_bias() -> None:
    from server.bots.hard import HardBot
    from server.bots.marjj_plus import knock_value

    assert knock_value(HardBot(0), [30, 41], 0, float) == 35.5 - 3
    assert knock_value(HardBot(0, knock_bias=0), [10, -20], 25, float) == (35 - 45) / 2


def test_strength_weight_and_decay_scale_marjjs_weight_on_the_best_draws() -> None:
    from server.bots import handstrength
    from server.bots.knowledge import Knowledge
    from server.bots.sim import Memo, best_draws_deadwood

    view = scenarios.undercut_risk().view(1)
    k = Knowledge.from_view(view)
    options = {c.index: dw for c, dw in view.discard_deadwood}
    turns = own_turns(view)
    full = handstrength.scores(view, options, turns, k, Memo())
    half = handstrength.scores(view, options, turns, k, Memo(), weight_share=0.5)
    assert full.keys() == half.keys()
    weight = 20.0 * 0.9 ** (turns - 1)
    for c in full:
        gin = best_draws_deadwood(k.own & ~(1 << c), k.unseen, Memo(), 6)
        assert abs((full[c] - half[c]) - 0.5 * weight * gin) < 1e-9
    # a faster decay: 0.8 a turn instead of MARJJ's 0.9
    fast = handstrength.scores(view, options, turns, k, Memo(), decay=0.8)
    for c in full:
        gin = best_draws_deadwood(k.own & ~(1 << c), k.unseen, Memo(), 6)
        assert abs((full[c] - fast[c]) - 20.0 * (0.9 ** (turns - 1) - 0.8 ** (turns - 1)) * gin) < 1e-9
    # the bot passes its options through
    _, scored, _ = marjj_plus_values(plus(0, strength_weight=50), view)
    assert scored == half
    _, scored, _ = marjj_plus_values(plus(0, strength_weight=100, strength_decay=80), view)
    assert scored == fast


def test_marjj_take_draws_as_marjj_with_hards_own_discards() -> None:
    state = scripted(("2c 3c 4c 5h 6h 7h 8s 9s Ts Kd", "Ac 3d 6d Qd 2s 3s Kc Qc 6c Jh"), "Ad", [], [])
    view = state.view(state.to_act)
    assert [make_bot("hard", s, discard_style=0, marjj_take=1).choose(view) for s in SEEDS] == [Pass()] * 3
