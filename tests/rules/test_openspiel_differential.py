"""Differential test of our deadwood against OpenSpiel's C++ ``GinRummyUtils.min_deadwood``.

OpenSpiel (package ``open-spiel``, test-only) implements the same melds and deadwood, so on ten
cards the two must agree exactly. Its card ints are suit-major with suits in the order s c d h
(``u.card_string(0) == "As"``, ``13 == "Ac"``); we map through the card codes, never by arithmetic.

Known differences from our rules (RULES.md wins; do not "fix" either side to match):

- It lets a player discard the upcard just taken; we forbid it (RULES.md: never discarding that
  card). Shown below on a real OpenSpiel state.
- It scores a deadwood tie after a knock as 0; for us a tie is an undercut worth 25. Shown below.
- It caps layoffs on runs (a limited number of extensions); we lay off at either end repeatedly.
- Its 11-card ``min_deadwood`` (the best count after a discard) is sometimes higher than the
  true least: usually by one point, rarely by two (about 0.3% and 0.04% of meld-rich hands);
  ours is exact. Shown below: never lower, at most two higher.

So only the ten-card deadwood is compared for equality.
"""

import random

import pyspiel
import pytest
from pyspiel.gin_rummy import GinRummyUtils

from server.rules import DECK, RULES, Card, Draw, Knock, Pass, Source, TakeUpcard, deadwood, new_hand
from server.rules.cards import to_mask
from server.rules.melds import discard_deadwoods, min_deadwood

from .helpers import brute_min_deadwood

U = GinRummyUtils(13, 4, 10)
OS = {U.card_string(i): i for i in range(52)}  # our code -> OpenSpiel's card int
CODES = [c.code for c in DECK]


def openspiel(codes: list[str]) -> int:
    return U.min_deadwood([OS[c] for c in codes])


def random_hands(seed: int, n: int, size: int, narrow: bool) -> list[list[str]]:
    """``n`` random hands; ``narrow`` draws from a window of 6 ranks in 3 suits (many melds)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pool = CODES
        if narrow:
            lo = rng.randrange(1, 9)
            suits = rng.sample(range(4), 3)
            pool = [c.code for c in DECK if lo <= c.rank < lo + 6 and c.suit in suits]
        out.append(rng.sample(pool, size))
    return out


def test_the_card_mapping_is_a_bijection_onto_openspiels_card_ints():
    assert sorted(OS) == sorted(CODES) and sorted(OS.values()) == list(range(52))
    assert U.card_string(0) == "As" and U.card_string(13) == "Ac"


@pytest.mark.parametrize("narrow", [False, True], ids=["uniform", "meld-rich"])
def test_deadwood_of_random_10_card_hands_equals_openspiels_min_deadwood(narrow):
    hands = random_hands(10 if narrow else 11, 20_000, 10, narrow)
    mismatches = [
        (" ".join(h), min_deadwood(to_mask(h)), openspiel(h))
        for h in hands
        if min_deadwood(to_mask(h)) != openspiel(h)
    ]
    assert mismatches == []
    # The public API on card codes agrees too (a sample: it parses, so it is slower).
    assert all(deadwood(h) == openspiel(h) for h in hands[:2000])


def test_openspiels_11_card_count_is_never_below_ours_and_sometimes_above():
    # Ours: the least deadwood after the best discard, exact (checked against a brute force on
    # every hand where the two differ). OpenSpiel is mostly one point above; rarely two.
    off = []
    for h in random_hands(12, 5000, 11, narrow=True):
        ours = min(discard_deadwoods(to_mask(h)).values())
        theirs = openspiel(h)
        assert 0 <= theirs - ours <= 2, h
        if theirs != ours:
            off.append(h)
            assert ours == min(brute_min_deadwood(set(_cards(h)) - {c}) for c in _cards(h))
    assert off, "the documented difference no longer shows; re-check OpenSpiel's 11-card count"
    one_off = ["4d", "6h", "6c", "2d", "4h", "2c", "5h", "4c", "2h", "5c", "6d"]
    assert (min(discard_deadwoods(to_mask(one_off)).values()), openspiel(one_off)) == (4, 5)
    two_off = ["6h", "3c", "5h", "6c", "6s", "Ah", "4h", "5c", "5s", "Ac", "4c"]
    assert (min(discard_deadwoods(to_mask(two_off)).values()), openspiel(two_off)) == (7, 9)


def _cards(codes):
    return [Card.parse(c) for c in codes]


# Seat 0: 2c 3c 4c / 5h 5d 5s / 7c 8c 9c + 8h (8); seat 1: three queens, 9h Th Jh, 6s 7s 8s + 8d (8).
DEAL = "2c 3c 4c 5h 5d 5s 7c 8c 9c 8h", "Qs Qd Qc Jh Th 9h 6s 7s 8s 8d"
UPCARD = "Kd"


def openspiel_after_taking_the_upcard():
    game = pyspiel.load_game("gin_rummy")
    s = game.new_initial_state()
    for code in (*DEAL[0].split(), *DEAL[1].split(), UPCARD):  # chance deals in this order
        s.apply_action(OS[code])
    assert s.action_to_string(52).endswith("Draw upcard")
    s.apply_action(52)
    return s


def test_difference_openspiel_lets_the_upcard_just_taken_be_discarded_we_do_not():
    s = openspiel_after_taking_the_upcard()
    assert OS[UPCARD] in s.legal_actions()
    rest = [c.code for c in DECK if c.code not in {*DEAL[0].split(), *DEAL[1].split(), UPCARD}]
    h = new_hand(RULES["house"], starter=0, hands=DEAL, upcard=UPCARD, stock=rest)
    h.apply(TakeUpcard())
    assert all(getattr(a, "card", None) != DECK[CODES.index(UPCARD)] for a in h.legal_actions())


def test_difference_openspiel_scores_a_tie_as_0_we_score_an_undercut_of_25():
    s = openspiel_after_taking_the_upcard()
    s.apply_action(55)  # Knock
    s.apply_action(OS[UPCARD])  # OpenSpiel allows throwing the upcard just taken
    while not s.is_terminal():  # declare every meld offered, then pass
        legal = s.legal_actions()
        names = [s.action_to_string(a) for a in legal]
        s.apply_action(next((a for a, n in zip(legal, names) if not n.endswith("Pass")), legal[0]))
    assert s.returns() == [0.0, 0.0]

    rest = [c.code for c in DECK if c.code not in {*DEAL[0].split(), *DEAL[1].split(), UPCARD}]
    h = new_hand(RULES["house"], starter=0, hands=DEAL, upcard=UPCARD, stock=rest)
    h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK)).apply(Knock(rest[0]))
    assert h.result.deadwood == (8, 8)
    assert (h.result.kind.value, h.result.winner, h.result.points) == ("undercut", 1, 25)
