"""RULES.md, "The deal", "First turn", "Normal turn", "Dead hand": one hand's phase machine.

Hands are written inline as card codes: seat 0's ten cards, seat 1's ten cards, the upcard and the
top of the stock; ``make`` puts the rest of the deck under the given stock cards in a fixed order.
"""

import json

import pytest

from server.rules import (
    DECK,
    RULES,
    Action,
    Card,
    Discard,
    Draw,
    Event,
    IllegalActionError,
    InvalidActionError,
    Knock,
    NotYourTurnError,
    Pass,
    Phase,
    ResultKind,
    Source,
    TakeUpcard,
    deal,
    new_hand,
)
from server.rules.hand import TURN_LIMIT
from tests.wire_forms import wire

from .helpers import greedy_action, snapshot

HOUSE = RULES["house"]

# Seat 0: three melds and Kh; seat 1: a set of queens, a run of hearts and loose cards.
SEAT0 = "2c 3c 4c 5h 5d 5s 7c 8c 9c Kh"
SEAT1 = "Qs Qd Qc Jh Th 9h 4s As 5c Tc"


def make(seat0=SEAT0, seat1=SEAT1, upcard="Kd", stock_top="", starter=0, full=True):
    """A hand from explicit cards; with ``full`` the rest of the deck goes under ``stock_top``."""
    top = stock_top.split()
    stock = list(top)
    if full:
        used = {*seat0.split(), *seat1.split(), upcard, *top}
        stock += [c.code for c in DECK if c.code not in used]
    return new_hand(HOUSE, starter=starter, hands=(seat0, seat1), upcard=upcard, stock=stock)


def codes(cs):
    return sorted(c.code for c in cs)


# --- The deal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("starter", [0, 1])
def test_a_deal_gives_ten_cards_each_an_upcard_and_a_stock_of_31(starter):
    h = deal(HOUSE, starter=starter, seed="deal")
    assert (h.starter, h.dealer) == (starter, 1 - starter)
    assert len(h.hand(0)) == len(h.hand(1)) == 10
    assert len(h.discard_pile) == 1 and h.view(None).discard_pile == (h.upcard,)
    assert len(h.stock_order()) == 31
    every = [*h.hand(0), *h.hand(1), h.upcard, *h.stock_order()]
    assert sorted(every) == sorted(DECK)
    assert h.phase is Phase.UPCARD and h.to_act == starter


def test_new_hand_rejects_a_deal_that_is_not_a_deal():
    with pytest.raises(ValueError):
        make(seat1="Qs Qd Qc Jh Th 9h 4s As 5c 2c")  # 2c dealt twice
    with pytest.raises(ValueError):
        make(seat0="2c 3c 4c 5h 5d 5s 7c 8c 9c")  # nine cards
    with pytest.raises(ValueError):
        make(starter=2)
    with pytest.raises(ValueError):
        make(full=False)  # no stock: after two passes there would be nothing to draw


def test_a_seed_always_deals_the_same_cards():
    # Stored matches replay from their seeds: this deal must never change (Python's Random and
    # our use of it are pinned here).
    h = deal(HOUSE, starter=0, seed="golden")
    assert " ".join(codes(h.hand(0))) == "4h 5h 7c 7h 8h Ac As Js Kd Td"
    assert " ".join(codes(h.hand(1))) == "2d 2h 3c 4s 5s 9h 9s Jc Kc Th"
    assert h.upcard.code == "8c"
    assert [c.code for c in h.stock_order()[:5]] == ["Ad", "6s", "4c", "Qd", "9c"]


# --- First turn: the upcard offer -------------------------------------------------------------


@pytest.mark.parametrize("starter", [0, 1])
def test_starter_takes_the_upcard_then_the_dealer_moves_next(starter):
    h = make(starter=starter) if starter == 0 else make(seat0=SEAT1, seat1=SEAT0, starter=1)
    dealer = 1 - starter
    assert h.legal_actions() == [TakeUpcard(), Pass()]
    h.apply(TakeUpcard(), seat=starter)
    assert h.phase is Phase.DISCARD and h.to_act == starter
    assert "Kd" in codes(h.hand(starter)) and len(h.hand(starter)) == 11
    assert h.discard_pile == []
    h.apply(Discard("Kh"), seat=starter)
    assert h.phase is Phase.DRAW and h.to_act == dealer
    assert h.legal_actions() == [Draw(Source.STOCK), Draw(Source.DISCARD)]
    assert h.upcard.code == "Kh"


def test_the_upcard_just_taken_cannot_be_discarded():
    h = make().apply(TakeUpcard())
    assert Discard("Kd") not in h.legal_actions() and Knock("Kd") not in h.legal_actions()
    assert "Kd" not in {c.code for c, _ in h.view(0).discard_deadwood}
    assert h.view(0).upcard_taken == Card.parse("Kd")
    before = snapshot(h)
    with pytest.raises(IllegalActionError, match="just taken"):
        h.apply(Discard("Kd"))
    assert snapshot(h) == before


def test_a_player_who_takes_the_upcard_may_knock_with_another_card():
    # Seat 0 holds three melds and Kh; taking the Ah upcard and knocking with Kh leaves 1.
    h = make(upcard="Ah").apply(TakeUpcard())
    assert Knock("Kh") in h.legal_actions()
    h.apply(Knock("Kh"))
    assert h.result is not None and h.result.knocker == 0 and h.result.deadwood[0] == 1


@pytest.mark.parametrize("starter", [0, 1])
def test_starter_passes_dealer_takes_then_the_starter_moves_next(starter):
    h = make(starter=starter)
    dealer = 1 - starter
    h.apply(Pass(), seat=starter)
    assert h.phase is Phase.UPCARD and h.to_act == dealer
    assert h.legal_actions() == [TakeUpcard(), Pass()]
    h.apply(TakeUpcard(), seat=dealer)
    assert h.phase is Phase.DISCARD and h.to_act == dealer
    assert Discard("Kd") not in h.legal_actions()
    h.apply(h.legal_actions()[0], seat=dealer)
    assert h.phase is Phase.DRAW and h.to_act == starter


@pytest.mark.parametrize("starter", [0, 1])
def test_both_pass_then_the_starter_must_draw_from_the_stock(starter):
    h = make(stock_top="8d", starter=starter)
    h.apply(Pass(), seat=starter).apply(Pass(), seat=1 - starter)
    assert h.phase is Phase.DRAW and h.to_act == starter
    assert h.legal_actions() == [Draw(Source.STOCK)]
    before = snapshot(h)
    with pytest.raises(IllegalActionError, match="draw from the stock"):
        h.apply(Draw(Source.DISCARD))
    assert snapshot(h) == before
    h.apply(Draw(Source.STOCK), seat=starter)
    assert "8d" in codes(h.hand(starter))
    h.apply(h.legal_actions()[0], seat=starter)
    # The starter has discarded: the dealer moves next, with both piles open again.
    assert h.to_act == 1 - starter
    assert h.legal_actions() == [Draw(Source.STOCK), Draw(Source.DISCARD)]


def test_the_dealer_cannot_answer_the_upcard_offer_before_the_starter():
    h = make()
    before = snapshot(h)
    with pytest.raises(NotYourTurnError):
        h.apply(Pass(), seat=1)
    with pytest.raises(NotYourTurnError):
        h.apply(TakeUpcard(), seat=1)
    assert snapshot(h) == before


# --- Normal turn ------------------------------------------------------------------------------


def both_passed(**kw):
    return make(**kw).apply(Pass()).apply(Pass())


def test_drawing_from_the_stock_takes_its_top_card_unseen_by_the_other_seat():
    h = both_passed(stock_top="8d 2h")
    h.apply(Draw(Source.STOCK))
    assert "8d" in codes(h.hand(0)) and h.stock_order()[0].code == "2h"
    assert h.history[-1] == Event(0, "draw", None, Source.STOCK)
    assert wire(h.history[-1]) == {"seat": 0, "kind": "draw", "source": "stock"}
    assert "8d" not in json.dumps(wire(h.view(1)))


def test_drawing_from_the_discard_pile_takes_its_top_card():
    h = both_passed(stock_top="8d 2h")
    h.apply(Draw(Source.STOCK)).apply(Discard("Kh"))
    h.apply(Draw(Source.DISCARD), seat=1)
    assert "Kh" in codes(h.hand(1))
    assert [c.code for c in h.view(None).discard_pile] == ["Kd"]  # the passed upcard is underneath
    assert h.history[-1] == Event(1, "draw", Card.parse("Kh"), Source.DISCARD)
    assert wire(h.history[-1]) == {"seat": 1, "kind": "draw", "source": "discard", "card": "Kh"}


def test_the_card_just_taken_from_the_discard_pile_cannot_be_discarded_on_the_same_turn():
    h = both_passed(stock_top="8d 2h")
    h.apply(Draw(Source.STOCK)).apply(Discard("Kh")).apply(Draw(Source.DISCARD))
    assert Discard("Kh") not in h.legal_actions()
    before = snapshot(h)
    for illegal in (Discard("Kh"), Knock("Kh")):
        with pytest.raises(IllegalActionError, match="just taken"):
            h.apply(illegal)
        assert snapshot(h) == before
    # On a later turn it may go.
    h.apply(Discard("As")).apply(Draw(Source.STOCK)).apply(Discard("2h"))
    h.apply(Draw(Source.STOCK))
    assert Discard("Kh") in h.legal_actions()


def test_a_card_just_drawn_from_the_stock_may_be_discarded_at_once():
    h = both_passed(stock_top="8d")
    h.apply(Draw(Source.STOCK))
    assert Discard("8d") in h.legal_actions()
    h.apply(Discard("8d"))
    assert h.upcard.code == "8d" and h.to_act == 1


def test_a_turn_is_one_draw_then_one_discard():
    h = both_passed(stock_top="8d 2h")
    before = snapshot(h)
    with pytest.raises(IllegalActionError, match="draw first"):
        h.apply(Discard("Kh"))
    assert snapshot(h) == before
    h.apply(Draw(Source.STOCK))
    before = snapshot(h)
    with pytest.raises(IllegalActionError, match="discard"):
        h.apply(Draw(Source.STOCK))
    assert snapshot(h) == before


# --- Knock and gin ----------------------------------------------------------------------------

# Two melds (Tc Jc Qc, three nines) and Ah 2d 3s Kd loose: deadwood 16 before drawing.
KNOCKER = "Tc Jc Qc 9h 9d 9s Ah 2d 3s Kd"
KNOCKER_FOE = "Qs Qd Kc Jh Th 8h 4s As 5c 7c"


def test_knock_is_legal_when_the_ten_cards_left_after_the_discard_have_deadwood_10_or_less():
    h = both_passed(seat0=KNOCKER, seat1=KNOCKER_FOE, upcard="Js", stock_top="4h")
    h.apply(Draw(Source.STOCK))  # Ah 2d 3s 4h + Kd: throwing Kd leaves exactly 10
    assert h.knock_options()[Card.parse("Kd")] == 10
    assert Knock("Kd") in h.legal_actions()
    assert Knock("Ah") not in h.legal_actions()  # leaves 2 + 3 + 4 + 10 = 19
    h.apply(Knock("Kd"))
    assert h.phase is Phase.OVER and h.result is not None
    assert h.result.knocker == 0 and h.result.deadwood[0] == 10
    assert h.result.kind in (ResultKind.KNOCK, ResultKind.UNDERCUT)


def test_knock_is_illegal_when_the_ten_cards_left_have_deadwood_11():
    h = both_passed(seat0=KNOCKER, seat1=KNOCKER_FOE, upcard="Js", stock_top="5h")
    h.apply(Draw(Source.STOCK))  # Ah 2d 3s 5h left after Kd: 11
    assert h.knock_options()[Card.parse("Kd")] == 11
    assert Knock("Kd") not in h.legal_actions() and Discard("Kd") in h.legal_actions()
    before = snapshot(h)
    with pytest.raises(IllegalActionError, match="11 deadwood left, the knock limit of this hand is 10"):
        h.apply(Knock("Kd"))
    assert snapshot(h) == before


def test_knocking_with_deadwood_0_is_gin():
    h = both_passed(seat1="Qs Qd Qc Jh Th 9h 4s As 5c Jc", stock_top="Tc")
    h.apply(Draw(Source.STOCK)).apply(Knock("Kh"))
    r = h.result
    assert r is not None and r.kind is ResultKind.GIN and r.winner == 0
    assert r.deadwood == (0, 20)
    assert r.points == 25 + 20


def test_there_is_no_big_gin():
    # Eleven cards all melded after the draw: the player must still discard, and going out
    # scores plain gin (25 + the defender's deadwood), never a big gin bonus.
    h = both_passed(
        seat0="As 2s 3s 4s 5s 6s 7s 8s 9s Ts", seat1="Qs Qd Qc Jh Th 9h 4d Ad 5c Tc", stock_top="Js"
    )
    h.apply(Draw(Source.STOCK))
    assert h.phase is Phase.DISCARD and not h.is_over
    assert {a.kind for a in h.legal_actions()} == {"discard", "knock"}
    h.apply(Knock("Js"))
    r = h.result
    assert r is not None and r.kind is ResultKind.GIN
    assert r.deadwood == (0, 4 + 1 + 5 + 10)  # 4d Ad 5c Tc; Qs Qd Qc and Jh Th 9h are melded
    assert r.points == 25 + 20
    assert {k.value for k in ResultKind} == {"gin", "knock", "undercut", "dead"}


# --- Dead hand --------------------------------------------------------------------------------


def test_dead_hand_when_a_plain_discard_leaves_the_stock_at_2_or_fewer():
    h = both_passed(stock_top="8d 2h 3h 6c", full=False)
    h.apply(Draw(Source.STOCK)).apply(Discard("8d"))  # 3 left in the stock: play goes on
    assert h.phase is Phase.DRAW and h.to_act == 1
    h.apply(Draw(Source.STOCK))  # 2 left
    assert h.phase is Phase.DISCARD
    h.apply(Discard("2h"))
    r = h.result
    assert h.phase is Phase.OVER and r is not None
    assert (r.kind, r.winner, r.points) == (ResultKind.DEAD, None, 0)
    assert [codes(x) for x in r.hands] == [codes(h.hand(0)), codes(h.hand(1))]


def test_a_knock_with_2_cards_left_in_the_stock_is_still_settled():
    h = both_passed(seat0=KNOCKER, seat1=KNOCKER_FOE, upcard="Js", stock_top="8d 4h 3h 6c", full=False)
    h.apply(Draw(Source.STOCK)).apply(Discard("8d"))
    h.apply(Draw(Source.DISCARD)).apply(Discard("4s"))
    h.apply(Draw(Source.STOCK))  # 4h: 2 cards left
    h.apply(Knock("Kd"))
    assert h.result is not None and h.result.kind is not ResultKind.DEAD


def test_a_full_hand_without_knocks_ends_dead_after_29_draws_from_the_stock():
    h = make(upcard="Kd")
    h.apply(Pass()).apply(Pass())
    while not h.is_over:
        legal = h.legal_actions()
        h.apply(legal[0] if legal[0].kind == "draw" else next(a for a in legal if a.kind == "discard"))
    assert h.result is not None and h.result.kind is ResultKind.DEAD
    assert len(h.stock_order()) == 2
    assert sum(1 for e in h.history if e.kind == "draw") == 29


def test_a_hand_passed_back_and_forth_through_the_discard_pile_ends_dead_at_its_100th_turn():
    """Both players only ever take the discard and throw another card: the stock never shrinks,
    so without the turn limit this hand would never end."""
    h = make(upcard="Kd")
    h.apply(TakeUpcard()).apply(Discard("Kh"))  # seat 0 keeps the upcard
    turns = 1
    while not h.is_over and turns < 1_000:
        seat = h.to_act
        h.apply(Draw(Source.DISCARD))
        assert h.to_act == seat and h.taken >= 0
        h.apply(next(a for a in h.legal_actions() if a.kind == "discard"))  # never the card taken
        turns += 1
    r = h.result
    assert h.is_over and r is not None and (r.kind, r.winner, r.points) == (ResultKind.DEAD, None, 0)
    assert turns == TURN_LIMIT == 100
    assert len(h.stock_order()) == 31  # nobody drew from the stock
    assert sum(1 for e in h.history if e.kind == "discard") == 100


# --- Illegal and malformed actions ------------------------------------------------------------


def states_in_every_phase():
    upcard = make()
    draw_stock_only = make().apply(Pass()).apply(Pass())
    draw = make().apply(TakeUpcard()).apply(Discard("Kh"))
    discard = make().apply(TakeUpcard())
    over = make(stock_top="8d 2h 3h", full=False).apply(Pass()).apply(Pass())
    over.apply(Draw(Source.STOCK)).apply(Discard("8d"))
    assert over.is_over
    return {
        "upcard": upcard,
        "draw_stock_only": draw_stock_only,
        "draw": draw,
        "discard": discard,
        "over": over,
    }


EVERY_KIND = [
    TakeUpcard(),
    Pass(),
    Draw(Source.STOCK),
    Draw(Source.DISCARD),
    Discard("Kh"),
    Discard("Kd"),
    Discard("Qs"),  # seat 1's card
    Discard("8d"),  # in the stock
    Knock("Kh"),
    Knock("2c"),
    Knock("Qs"),
]


@pytest.mark.parametrize("phase", ["upcard", "draw_stock_only", "draw", "discard", "over"])
def test_an_illegal_action_raises_a_typed_error_and_changes_nothing(phase):
    h = states_in_every_phase()[phase]
    legal = h.legal_actions()
    illegal = [a for a in EVERY_KIND if a not in legal]
    assert illegal
    for action in illegal:
        assert not h.is_legal(action)
        before = snapshot(h)
        with pytest.raises(IllegalActionError) as e:
            h.apply(action)
        assert e.value.code == "illegal_action"
        assert snapshot(h) == before, action
    for action in legal:
        assert h.is_legal(action)
        assert states_in_every_phase()[phase].apply(action) is not None


@pytest.mark.parametrize("phase", ["upcard", "draw_stock_only", "draw", "discard"])
def test_acting_out_of_turn_raises_not_your_turn_and_changes_nothing(phase):
    h = states_in_every_phase()[phase]
    other = 1 - h.to_act
    before = snapshot(h)
    for action in h.legal_actions():
        with pytest.raises(NotYourTurnError) as e:
            h.apply(action, seat=other)
        assert e.value.code == "not_your_turn"
    assert snapshot(h) == before


def test_every_legal_action_round_trips_through_its_wire_form():
    for h in states_in_every_phase().values():
        for action in h.legal_actions():
            wire = action.to_wire()
            assert json.loads(json.dumps(wire)) == wire
            assert Action.from_wire(wire) == action
    assert Action.from_wire({"kind": "draw", "source": "discard"}) == Draw(Source.DISCARD)
    assert Action.from_wire({"kind": "knock", "card": "7h"}) == Knock("7h")


MALFORMED = [
    None,
    "pass",
    ["pass"],
    42,
    {},
    {"kind": None},
    {"kind": "Pass"},
    {"kind": "draw_card", "source": "stock"},
    {"kind": "pass", "seat": 0},
    {"kind": "take_upcard", "card": "Kd"},
    {"kind": "draw"},
    {"kind": "draw", "source": "deck"},
    {"kind": "draw", "source": None},
    {"kind": "draw", "source": ["stock"]},
    {"kind": "draw", "source": "stock", "card": "7h"},
    {"kind": "discard"},
    {"kind": "discard", "card": "7x"},
    {"kind": "discard", "card": "10h"},
    {"kind": "discard", "card": 7},
    {"kind": "discard", "card": None},
    {"kind": "discard", "card": ["7h"]},
    {"kind": "discard", "card": "7h", "knock": True},
    {"kind": "knock"},
    {"kind": "knock", "card": ""},
    {"kind": "knock", "cards": ["7h"]},
    {1: "pass"},
]


@pytest.mark.parametrize("data", MALFORMED, ids=repr)
def test_a_malformed_wire_action_raises_invalid_action_error(data):
    with pytest.raises(InvalidActionError) as e:
        Action.from_wire(data)
    assert e.value.code == "bad_request"


def test_a_card_object_is_not_a_wire_card_code():
    with pytest.raises(InvalidActionError):
        Action.from_wire({"kind": "discard", "card": Card.parse("7h")})


def test_applying_something_that_is_not_an_action_raises_invalid_action_and_changes_nothing():
    for h in states_in_every_phase().values():
        before = snapshot(h)
        for junk in ({"kind": "pass"}, None, "pass"):
            with pytest.raises(InvalidActionError):
                h.apply(junk)
        assert snapshot(h) == before


def test_a_subclass_of_an_action_plays_as_the_plain_action():
    class MyDiscard(Discard):
        pass

    h = make().apply(TakeUpcard())
    plain = make().apply(TakeUpcard()).apply(Discard("Kh"))
    h.apply(MyDiscard("Kh"))
    assert snapshot(h) == snapshot(plain)
    with pytest.raises(IllegalActionError):
        make().apply(MyDiscard("Kh"))


def test_a_greedy_player_reaches_knocks_and_every_knock_it_makes_is_legal():
    # A sanity check of the test driver used by the property tests.
    import random

    rng = random.Random(1)
    knocks = 0
    for n in range(40):
        h = deal(HOUSE, n % 2, n)
        while not h.is_over:
            a = greedy_action(h, rng)
            assert a in h.legal_actions()
            h.apply(a)
        knocks += h.result.kind is not ResultKind.DEAD
    assert knocks > 20
