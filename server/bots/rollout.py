"""The playouts of Hard's simulations: the rest of a hand played out on card masks.

A playout starts from a *guessed* full state (the simulating bot samples the hidden cards itself;
see :mod:`.knowledge`) and plays both seats with quick policies (:mod:`.sim`) until a knock, a
gin or a dead hand, scoring exactly as the rules do (:func:`.sim.settle_points`). Each seat's
policy is set by bits (bit ``s`` for seat ``s``):

- Draw: the greedy rule (:func:`.sim.greedy_take`: the top of the pile when it melds or lets the
  seat knock at once), or for the seats in ``marjj`` the MARJJ-style player's rule
  (:func:`marjj_take`: only into a meld, never to knock at once; issue 17's ``playout_model``).
- Discard: to the least deadwood (:func:`.sim.greedy_discard`), or for the seats in
  ``gin_seats``, when not knocking, as a gin player (:func:`.sim.gin_thrown_card`).
- Knock: at or below ``knock_at[s]`` (gin always); with ``knock_turns``, only within that
  seat's next ``knock_turns[s]`` turns of the playout, and after them at or below ``late_at[s]``
  (0: only with gin, as MARJJ, who knocks in its first few turns of a hand and then holds out for
  gin).

A decision builds one :class:`PlayoutSettings` (the hand's rules and the seats' policies, the same for
all its playouts) and calls :func:`play_hand` for each sampled world with that world's state.
Everything it is given is a guess made from one seat's view.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.rules import Rules
from server.rules.cards import VALUES
from server.rules.hand import TURN_LIMIT

from .sim import DISCARD, DRAW, UPCARD, Memo, gin_thrown_card, greedy_discard, greedy_take, settle_points

__all__ = ["ALWAYS", "DISCARD", "DRAW", "UPCARD", "PlayoutSettings", "marjj_take", "play_hand"]

ALWAYS = (TURN_LIMIT, TURN_LIMIT)
"""``knock_turns`` that never run out (a hand is dead by then)."""


@dataclass(frozen=True, slots=True)
class PlayoutSettings:
    """What every playout of one decision shares, built once per decision by the simulating bot:
    the hand's rules object, knock limit and score multiplier, its ``starter`` (who draws first
    after two passes of the upcard), and the seats' policies (see the module's docstring): the
    bits ``gin_seats`` and ``marjj``, and per seat ``knock_turns`` and ``late_at``. Each seat's
    knock deadwood is a guess of each world (:func:`play_hand`'s ``knock_at``)."""

    rules: Rules
    limit: int
    multiplier: int
    starter: int = 0
    gin_seats: int = 0
    marjj: int = 0
    knock_turns: tuple[int, int] = ALWAYS
    late_at: tuple[int, int] = (0, 0)


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


def _takes(hand: int, top: int, limit: int, memo: Memo, like: int) -> bool:
    return marjj_take(hand, top, memo) if like else greedy_take(hand, top, limit, memo)


def play_hand(
    hands: list[int],
    stock: list[int],
    pile: list[int],
    to_act: int,
    phase: int,
    taken: int,
    knock_at: tuple[int, int],
    settings: PlayoutSettings,
    memo: Memo,
    passes: int = 0,
    stock_only: bool = False,
    turns: int = 0,
) -> tuple[int, int]:
    """Play one world's hand to the end: (knocker, its points; negative when undercut), or
    (-1, 0) for a dead hand (the stock down to two cards, or the hand's turn limit).

    The world's state: ``hands`` (mutated: left as the hand ended, the knocker's ten cards),
    ``stock`` and ``pile`` (both top-last, both consumed), the seat ``to_act`` in ``phase``
    (having taken ``taken`` from the pile, or -1), ``passes`` of the upcard so far,
    ``stock_only`` (the first draw must come from the stock: after two passes, or to value
    drawing from it) and ``turns``, the plain discards already made in this hand (at
    :data:`~server.rules.hand.TURN_LIMIT` the hand is dead, as in the engine). ``knock_at[s]``:
    the deadwood at or below which seat ``s`` knocks in this world (gin always; never above the
    limit). ``settings``: what the decision's playouts share; ``memo``: its deadwood answers.
    """
    limit = settings.limit
    marjj = settings.marjj
    gin_seats = settings.gin_seats
    late_at = (min(settings.late_at[0], limit), min(settings.late_at[1], limit))  # never above it
    best: tuple[tuple[int, int], ...] = ()  # the greedy discards after a draw from the stock
    left = list(settings.knock_turns)  # each seat's turns left to knock at knock_at
    while True:
        s = to_act
        if phase == UPCARD:
            if _takes(hands[s], pile[-1], limit, memo, marjj >> s & 1):
                taken = pile.pop()
                hands[s] |= 1 << taken
                phase = DISCARD
                continue
            passes += 1
            if passes == 1:
                to_act = 1 - s
            else:
                to_act = settings.starter
                phase = DRAW
                stock_only = True
            continue
        if phase == DRAW:
            if not stock_only and pile and _takes(hands[s], pile[-1], limit, memo, marjj >> s & 1):
                taken = pile.pop()
                hands[s] |= 1 << taken
            else:
                drawn = stock.pop()
                best = memo.discards_after_draw(hands[s], drawn)
                hands[s] |= 1 << drawn
                taken = -1
            stock_only = False
            phase = DISCARD
            continue
        # DISCARD
        if taken < 0 and best:
            card, dw = best[0]
            best = ()
        else:
            card, dw = greedy_discard(hands[s], taken, memo)
        if dw <= (knock_at[s] if left[s] > 0 else late_at[s]) or dw == 0:
            hands[s] &= ~(1 << card)
            return s, settle_points(hands[s], hands[1 - s], settings.rules, limit, settings.multiplier)
        if gin_seats >> s & 1:
            card = gin_thrown_card(hands[s], 1 << taken if taken >= 0 else 0)
        hands[s] &= ~(1 << card)
        pile.append(card)
        left[s] -= 1
        turns += 1
        if len(stock) <= 2 or turns >= TURN_LIMIT:
            return -1, 0
        to_act = 1 - s
        phase = DRAW
        taken = -1
