"""First checks of the rules engine: the guide's worked example and a seeded self-play."""

import random

import pytest

from server.rules import (
    RULES,
    Card,
    Discard,
    Draw,
    IllegalActionError,
    Knock,
    Pass,
    ResultKind,
    Source,
    deal,
    new_hand,
)


def test_card_round_trip():
    card = Card.parse("Td")
    assert str(card) == "Td"
    assert eval(repr(card)) == card


def test_guides_worked_example_knocker_8_defender_5_after_layoffs_scores_28():
    h = new_hand(
        RULES["house"],
        starter=0,
        hands=("2c 3c 4c 5h 5d 5s 7c 8c 9c Kh", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
        upcard="Kd",
        stock="8d 2h 3h",
    )
    h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK))
    h.apply(Knock("Kh"))
    r = h.result
    assert r is not None
    assert r.kind is ResultKind.UNDERCUT
    assert r.winner == 1 and r.points == 28
    assert r.deadwood == (8, 5)
    assert sorted(lo.card.code for lo in r.layoffs) == ["5c", "Tc"]
    assert r.breakdown == "25 + 8 - 5 = 28"


def test_the_card_just_taken_from_the_discard_pile_cannot_be_discarded():
    h = new_hand(
        RULES["house"],
        starter=0,
        hands=("2c 3c 4c 5h 5d 5s 7c 8c 9c Kh", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
        upcard="Kd",
        stock="8d 2h 3h 4h",
    )
    h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK)).apply(Discard("Kh"))
    h.apply(Draw(Source.DISCARD))
    before = h.view(1)
    with pytest.raises(IllegalActionError):
        h.apply(Discard("Kh"))
    assert h.view(1) == before


def test_seeded_self_play_conserves_cards():
    rng = random.Random(5)
    for n in range(200):
        h = deal(RULES["classic"], n % 2, n)
        while not h.is_over:
            h.apply(rng.choice(h.legal_actions()))
            total = h.hands[0].bit_count() + h.hands[1].bit_count() + len(h.stock) + len(h.discard_pile)
            assert total == 52
