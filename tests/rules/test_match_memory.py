"""What a match keeps of each hand it dealt and of each action: a live server holds thousands of
matches, each with every hand's log until it ends."""

from __future__ import annotations

import random
import sys

from server.rules import HandLog, new_match
from server.rules.cards import from_mask

DEAL_BYTES = 200
"""A hand's log with its deal, at most (tuples of cards took about 730 bytes)."""


def test_a_hands_log_keeps_its_deal_small_and_gives_back_the_cards_dealt():
    m = new_match("house", seed="small deal")
    log, hand = m.log[0], m.hand
    assert log.hands == (tuple(from_mask(hand.hands[0])), tuple(from_mask(hand.hands[1])))
    assert log.upcard == hand.upcard and log.stock == tuple(hand.stock_order())
    assert sys.getsizeof(log) + sys.getsizeof(log._deal) <= DEAL_BYTES
    again = HandLog(log.number, log.starter, log.seed, log.hands, log.upcard, log.stock, [], log.commitment)
    assert again == log and repr(again) == repr(log)


def test_each_logged_action_is_a_shared_pair_not_a_tuple_of_its_own():
    rng = random.Random(5)
    one, two = new_match("house", seed="a"), new_match("house", seed="b")
    for m in (one, two):
        while len(m.log) == 1 and not m.is_over:
            m.apply(rng.choice(m.legal_actions()))
    pairs = {id(p): p for m in (one, two) for log in m.log for p in log.actions}
    kinds = {p for m in (one, two) for log in m.log for p in log.actions}
    assert len(pairs) == len(kinds)  # equal entries are one object, whichever match logged them
