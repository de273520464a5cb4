"""Playouts against a MARJJ-like opponent, for Hard's ``playout_model=1`` (issue 17).

:func:`.sim.playout` plays both seats with one greedy policy (take a card that melds or lets
it knock, throw to the least deadwood, knock at its threshold). Here the seats in ``marjj``
(bit ``s`` for seat ``s``) play as the MARJJ-style player does instead:

- Draw: the top of the pile only when, after the best discard, it lowers the deadwood and sits
  in a meld of the ten cards kept (:func:`marjj_take`, MARJJ's rule; :func:`.handstrength.takes`
  on masks), never to knock at once.
- Discard: as a gin player (:func:`.sim.gin_thrown_card`: of the loose cards near the highest,
  the one with the fewest partners in the hand), when it does not knock.

Knocks are as in :func:`.sim.playout` (``knock_at[s]``: 0, gin only, for a MARJJ-like seat past
its early turns). The other seat plays the greedy policy. Scoring is the rules' own
(:func:`.sim.settle_points`). Everything it is given is a guess made from one seat's view.
"""

from __future__ import annotations

from server.rules import Rules
from server.rules.cards import VALUES
from server.rules.hand import TURN_LIMIT

from .sim import Memo, gin_thrown_card, greedy_discard, greedy_take, settle_points


def marjj_take(hand: int, top: int, memo: Memo) -> bool:
    """MARJJ's draw on masks: take ``top`` only when the ten cards kept after the best discard
    (never ``top`` itself) have less deadwood than ``hand`` and ``top`` melds among them."""
    best = memo.discards(hand | 1 << top)
    card, left = best[0]
    if card == top:
        card, left = best[1]
    if left >= memo.deadwood(hand):
        return False
    ten = (hand | 1 << top) & ~(1 << card)
    return left < memo.deadwood(ten & ~(1 << top)) + VALUES[top]


def marjj_playout(
    hands: list[int],
    stock: list[int],
    pile: list[int],
    to_act: int,
    rules: Rules,
    limit: int,
    multiplier: int,
    knock_at: tuple[int, int],
    marjj: int,
    memo: Memo,
) -> int:
    """Play from ``to_act``'s draw to the end; seat 0's points less seat 1's for the hand (0: a
    dead hand). ``stock`` and ``pile`` are top-last and consumed; ``hands`` is mutated.
    ``marjj`` (bits): the seats playing MARJJ's draw and gin player's discard."""
    turns = 0
    while True:
        s = to_act
        hand = hands[s]
        like = marjj >> s & 1
        taken = -1
        if pile and (marjj_take(hand, pile[-1], memo) if like else greedy_take(hand, pile[-1], limit, memo)):
            taken = pile.pop()
            hand |= 1 << taken
            card, dw = greedy_discard(hand, taken, memo)
        else:
            drawn = stock.pop()
            card, dw = memo.discards_after_draw(hand, drawn)[0]
            hand |= 1 << drawn
        if dw <= knock_at[s] or dw == 0:
            hands[s] = hand & ~(1 << card)
            net = settle_points(hands[s], hands[1 - s], rules, limit, multiplier)
            return net if s == 0 else -net
        if like:
            card = gin_thrown_card(hand, 1 << taken if taken >= 0 else 0)
        hands[s] = hand & ~(1 << card)
        pile.append(card)
        turns += 1
        if len(stock) <= 2 or turns >= TURN_LIMIT:
            return 0
        to_act = 1 - s


__all__ = ["marjj_playout", "marjj_take"]
