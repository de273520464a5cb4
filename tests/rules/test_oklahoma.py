"""RULES.md, variant ``oklahoma``: the first upcard sets the hand's knock limit, a spade upcard
doubles the hand; otherwise classic scoring (box and game bonuses, the winner starts).

Hands are written card by card; the stock is listed top first and padded with the cards left.
"""

import random
from dataclasses import fields

import pytest

from server.rules import (
    DECK,
    RULES,
    Card,
    Discard,
    Draw,
    IllegalActionError,
    Knock,
    Oklahoma,
    Pass,
    ResultKind,
    Source,
    TakeUpcard,
    new_hand,
    new_match,
)
from server.rules.cards import to_mask
from server.rules.settle import dead_hand
from tests.wire_forms import wire

from .helpers import greedy_action

OK = RULES["oklahoma"]

# Three melds and a king; whatever it draws next decides what the knock leaves.
MELDED = "2h 3h 4h 6d 6s 6c 9d 9s 9c Kd"
OTHER = "Qs Qd Jh Th 8h 7c 7s 2s 3s 3d"
# The guide's worked example: the knocker keeps 8 after the draw, the defender 5 after layoffs.
GUIDE_KNOCKER = "2c 3c 4c 5h 5d 5s 7c 8c 9c 8h"
GUIDE_DEFENDER = "Qs Qd Qc Jh Th 9h 4s As 5c Tc"
# A defender with 71 deadwood and nothing to lay off on the guide knocker's melds.
FAR_DEFENDER = "Kd Qd Jc 9d 7d Th 6h 2s 3s 4d"


def hand(seat0: str, seat1: str, upcard: str, stock: str = "", rules=OK, starter: int = 0):
    used = {*seat0.split(), *seat1.split(), upcard, *stock.split()}
    rest = [c.code for c in DECK if c.code not in used]
    return new_hand(rules, starter, (seat0, seat1), upcard, [*stock.split(), *rest])


def draw_from_stock_after_two_passes(h):
    return h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK))


# --- The knock limit ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("upcard", "limit"),
    [
        *[("Ad", 0), ("2c", 2), ("3h", 3), ("4d", 4), ("5c", 5), ("6h", 6), ("7d", 7), ("8c", 8), ("9h", 9)],
        *[("Td", 10), ("Jc", 10), ("Qh", 10), ("Kd", 10), ("As", 0), ("7s", 7), ("Ks", 10)],
    ],
)
def test_the_first_upcards_value_is_the_hands_knock_limit(upcard, limit):
    others = [c.code for c in DECK if c.code != upcard]
    h = new_hand(OK, 0, (others[:10], others[10:20]), upcard, others[20:])
    assert h.knock_limit == limit
    for seat in (0, 1, None):
        assert h.view(seat).knock_limit == limit
        assert wire(h.view(seat))["knock_limit"] == limit


def test_the_limit_stays_for_the_whole_hand_whoever_takes_the_upcard():
    h = hand(MELDED, OTHER, upcard="3c", stock="5d")
    h.apply(Pass()).apply(TakeUpcard())  # the dealer takes the 3: it is no longer the top card
    h.apply(Discard("Qs"))
    assert h.upcard == Card.parse("Qs") and h.knock_limit == 3
    h.apply(Draw(Source.STOCK))
    assert h.view(0).knock_limit == 3 and h.view(1).knock_limit == 3


def test_a_knock_within_the_hands_limit_is_legal():
    h = draw_from_stock_after_two_passes(hand(MELDED, OTHER, upcard="5c", stock="5d"))
    assert h.knock_options()[Card.parse("Kd")] == 5
    assert Knock("Kd") in h.legal_actions()
    h.apply(Knock("Kd"))
    assert h.result.kind is ResultKind.KNOCK and h.result.deadwood[0] == 5


def test_a_knock_above_the_hands_limit_is_illegal_with_a_clear_message():
    h = draw_from_stock_after_two_passes(hand(MELDED, OTHER, upcard="4c", stock="5d"))
    assert h.knock_options()[Card.parse("Kd")] == 5
    assert Knock("Kd") not in h.legal_actions() and Discard("Kd") in h.legal_actions()
    assert not h.is_legal(Knock("Kd"))
    with pytest.raises(IllegalActionError, match="5 deadwood left, the knock limit of this hand is 4"):
        h.apply(Knock("Kd"))
    assert h.phase.value == "discard"  # nothing changed
    h.apply(Discard("Kd"))


def test_an_ace_upcard_means_the_hand_ends_only_with_gin():
    h = draw_from_stock_after_two_passes(hand(MELDED, OTHER, upcard="Ac", stock="Ad"))
    assert h.knock_options()[Card.parse("Kd")] == 1
    assert not any(isinstance(a, Knock) for a in h.legal_actions())
    with pytest.raises(IllegalActionError, match="1 deadwood left, this hand is gin only"):
        h.apply(Knock("Kd"))


def test_under_an_ace_upcard_gin_is_still_legal():
    h = draw_from_stock_after_two_passes(hand(MELDED, OTHER, upcard="Ac", stock="5h"))
    assert [a for a in h.legal_actions() if isinstance(a, Knock)] == [Knock("Kd")]
    h.apply(Knock("Kd"))  # 2h 3h 4h 5h, 6d 6s 6c, 9d 9s 9c: gin
    r = h.result
    assert (r.kind, r.winner, r.points, r.breakdown) == (ResultKind.GIN, 0, 95, "25 + 70 = 95")


# --- A spade upcard doubles the hand --------------------------------------------------------------


def test_a_spade_upcard_doubles_an_undercut_bonus_included():
    h = draw_from_stock_after_two_passes(hand(GUIDE_KNOCKER, GUIDE_DEFENDER, upcard="Ks", stock="Kh"))
    assert h.multiplier == 2 and h.view(0).multiplier == 2
    h.apply(Knock("Kh"))
    r = h.result
    assert (r.kind, r.winner, r.points) == (ResultKind.UNDERCUT, 1, 56)
    assert r.breakdown == "(25 + 8 - 5) x 2 = 56"


def test_the_same_undercut_under_a_diamond_upcard_is_not_doubled():
    h = draw_from_stock_after_two_passes(hand(GUIDE_KNOCKER, GUIDE_DEFENDER, upcard="Kd", stock="Kh"))
    assert h.multiplier == 1 and h.view(None).multiplier == 1
    h.apply(Knock("Kh"))
    assert (h.result.points, h.result.breakdown) == (28, "25 + 8 - 5 = 28")


def test_a_spade_upcard_doubles_a_knock():
    h = draw_from_stock_after_two_passes(hand(GUIDE_KNOCKER, FAR_DEFENDER, upcard="Ts", stock="Kh"))
    h.apply(Knock("Kh"))
    r = h.result
    assert (r.kind, r.winner, r.points, r.deadwood) == (ResultKind.KNOCK, 0, 126, (8, 71))
    assert r.breakdown == "(71 - 8) x 2 = 126"


def test_a_spade_upcard_doubles_a_gin_bonus_included():
    h = draw_from_stock_after_two_passes(
        hand("2c 3c 4c 5h 5d 5s 7c 8c 9c Kh", FAR_DEFENDER, upcard="Js", stock="Tc")
    )
    h.apply(Knock("Kh"))
    r = h.result
    assert (r.kind, r.winner, r.points, r.breakdown) == (ResultKind.GIN, 0, 192, "(25 + 71) x 2 = 192")


def test_the_seat_view_sends_the_knock_limit_and_the_multiplier():
    h = hand(GUIDE_KNOCKER, GUIDE_DEFENDER, upcard="7s")
    view = h.view(0)
    assert (view.knock_limit, view.multiplier) == (7, 2)
    sent = wire(view)
    assert (sent["knock_limit"], sent["multiplier"]) == (7, 2)
    # In the documented order (docs/protocol.md): the multiplier after the discards' deadwood,
    # then the deal's commitment.
    assert list(sent)[-4:] == ["knock_limit", "discard_deadwood", "multiplier", "deal_commitment"]


# --- The match: classic scoring -------------------------------------------------------------------


def test_the_winner_of_a_hand_starts_the_next_the_same_starter_after_a_dead_hand():
    h = draw_from_stock_after_two_passes(hand(GUIDE_KNOCKER, GUIDE_DEFENDER, upcard="Ks", stock="Kh"))
    h.apply(Knock("Kh"))
    assert OK.next_starter(0, h.result) == 1  # the defender undercut
    dead = dead_hand((to_mask(GUIDE_KNOCKER.split()), to_mask(GUIDE_DEFENDER.split())))
    assert OK.next_starter(0, dead) == 0 and OK.next_starter(1, dead) == 1


def test_box_and_game_bonuses_are_added_when_a_seat_reaches_100():
    assert OK.match_bonuses((104, 40), (3, 2), 0) == ((75, 100), (50, 0))
    assert OK.match_bonuses((30, 112), (1, 4), 1) == ((25, 0), (100, 100))
    assert OK.match_bonuses((126, 0), (1, 0), 0) == ((25, 200), (0, 0))  # a shutout


def test_a_seeded_oklahoma_match_follows_each_hands_upcard_and_adds_classic_bonuses():
    seen_limits, doubled = set(), 0
    for seed in range(4):
        m = new_match("oklahoma", f"okla:{seed}")
        rng = random.Random(seed)
        while not m.is_over:
            hand_state, n = m.hand, len(m.results)
            m.apply(greedy_action(hand_state, rng))
            if len(m.results) == n:
                continue
            up, r = m.log[-2 if not m.is_over else -1].upcard, m.results[-1]
            limit = 0 if up.rank == 1 else up.value
            assert hand_state.knock_limit == limit
            seen_limits.add(limit)
            if r.kind is not ResultKind.DEAD:
                assert r.deadwood[r.knocker] <= limit
            assert (" x 2 = " in r.breakdown) == (up.suit == 3 and r.kind is not ResultKind.DEAD)
            doubled += " x 2 = " in r.breakdown
        for seat, t in enumerate(m.outcome.totals):
            assert t.box_bonus == 25 * m.hands_won[seat]
            assert t.game_bonus == (
                (200 if m.scores[1 - seat] == 0 else 100) if seat == m.outcome.winner else 0
            )
        assert m.hands_won == [sum(r.winner == s for r in m.results) for s in (0, 1)]
    assert doubled and len(seen_limits) >= 5


# --- The hooks ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["house", "classic"])
def test_the_standard_variant_has_one_knock_limit_and_no_multiplier(name):
    rules = RULES[name]
    assert type(rules) is not Oklahoma
    assert {rules.hand_knock_limit(c) for c in DECK} == {10}
    assert {rules.hand_multiplier(c) for c in DECK} == {1}


@pytest.mark.parametrize("name", ["house", "classic", "oklahoma"])
def test_every_variant_scores_a_settled_hand_the_same_way_times_its_multiplier(name):
    rules = RULES[name]
    for multiplier in (1, 2, 3):
        assert rules.hand_points(ResultKind.KNOCK, 3, 20, multiplier) == 17 * multiplier
        assert rules.hand_points(ResultKind.UNDERCUT, 8, 5, multiplier) == 28 * multiplier
        assert rules.hand_points(ResultKind.UNDERCUT, 6, 6, multiplier) == 25 * multiplier
        assert rules.hand_points(ResultKind.GIN, 0, 30, multiplier) == 55 * multiplier
        assert rules.hand_points(ResultKind.DEAD, 12, 30, multiplier) == 0
    assert rules.hand_breakdown(ResultKind.KNOCK, 3, 20) == "20 - 3 = 17"
    assert rules.hand_breakdown(ResultKind.GIN, 0, 30, 3) == "(25 + 30) x 3 = 165"
    assert rules.hand_breakdown(ResultKind.DEAD, 0, 0) == "Dead hand: no score"


def test_house_alternates_the_starter_and_adds_no_bonus():
    house = RULES["house"]
    h = draw_from_stock_after_two_passes(hand(GUIDE_KNOCKER, GUIDE_DEFENDER, "Kd", "Kh", rules=house))
    h.apply(Knock("Kh"))
    assert house.next_starter(0, h.result) == 1 and house.next_starter(1, h.result) == 0
    assert house.match_bonuses((104, 0), (5, 0), 0) == ((0, 0), (0, 0))


def test_a_data_file_picks_its_variant_type_by_name():
    data = {**{f.name: getattr(OK, f.name) for f in fields(OK)}, "name": "tulsa", "variant": "oklahoma"}
    assert type(type(OK).from_dict(data)) is Oklahoma
    with pytest.raises(ValueError, match="unknown variant 'texas'"):
        type(OK).from_dict({**data, "variant": "texas"})


def test_nothing_outside_the_presets_asks_which_variant_a_rule_set_is():
    import re
    from pathlib import Path

    server = Path(__file__).resolve().parents[2] / "server"
    asking = re.compile(
        r"\.variant\b|\bOklahoma\b|(name|rules)\s*[!=]=\s*[\"'](house|classic|oklahoma)[\"']"
        r"|[\"'](house|classic|oklahoma)[\"']\s*[!=]=|\.(gin_bonus|undercut_bonus|starter_rule)\b"
    )
    found = [
        f"{path.relative_to(server)}: {line.strip()}"
        for path in server.rglob("*.py")
        if path.relative_to(server).as_posix() not in ("rules/presets.py", "rules/__init__.py")
        for line in path.read_text().splitlines()
        if asking.search(line) and not line.lstrip().startswith(("#", '"', "'", ">>>"))
    ]
    assert found == []
