"""What a seat knows about a hand, read from its :class:`~server.rules.SeatView` alone.

The Hard difficulty needs every card it has seen and what the opponent's actions say about the
opponent's hand: a card the opponent took from the discard pile is known to be in that hand
(until discarded again), and a card it discarded, or declined (passed the upcard, drew from
the stock instead), says it probably holds nothing that card would meld with.

Everything here is computed from the public history, the discard pile and the seat's own cards;
this module must never receive or look at a :class:`~server.rules.HandState`. The sampler
(:meth:`Knowledge.sample`) invents the hidden cards (the opponent's unknown cards and the stock
order) from the seat's private ``random.Random``, weighted by what the opponent's actions
suggest, so a simulating bot can play the rest of the hand out on a full guessed state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from server.rules import SeatView, Source
from server.rules.cards import VALUES, to_mask

from .sim import deadwood, thrown_card

FULL = (1 << 52) - 1

# How much a pickup raises the chance that the opponent holds the taken card's neighbours. A
# card the opponent declined (discarded, passed, drew from the stock over) is used differently:
# not as a weight on single neighbours (measured against real hands, that made the guesses
# worse: a simple player throws its highest card even from a pair), but to retry guesses in
# which that card would have made a meld (see :meth:`Knowledge.sample`).
TAKEN_SAME_RANK = 2.2
TAKEN_NEXT_IN_SUIT = 2.0
TAKEN_TWO_AWAY_IN_SUIT = 1.3
RECENT_DECLINES = 3
TAKEN_FOR_OTHER_REASONS = 0.15
"""How often a guess does not build a meld around a card the opponent took."""
MAX_PASSED_OVER = 5
"""Cap on the extra cards a sampled opponent hand is chosen from (see :meth:`Knowledge.sample`)."""


def neighbours(index: int) -> tuple[list[int], list[int], list[int]]:
    """Card indices sharing the rank of ``index``, next to it in its suit, and two away."""
    suit, r = divmod(index, 13)
    same_rank = [s * 13 + r for s in range(4) if s != suit]
    next_in_suit = [suit * 13 + x for x in (r - 1, r + 1) if 0 <= x < 13]
    two_away = [suit * 13 + x for x in (r - 2, r + 2) if 0 <= x < 13]
    return same_rank, next_in_suit, two_away


_NEIGHBOURS = tuple(neighbours(i) for i in range(52))


@dataclass(slots=True)
class Knowledge:
    """The seat's picture of the hand: cards by where they are known to be."""

    seat: int
    own: int
    """Mask of the seat's own cards."""
    pile: list[int]
    """Discard pile, bottom first (card indices)."""
    opp_known: int
    """Cards the opponent is known to hold (taken from the discard pile, not discarded since)."""
    opp_count: int
    opp_declined: list[int]
    """Cards the opponent discarded or declined, in order (a card may appear twice)."""
    opp_taken: list[int]
    """Cards the opponent took from the discard pile, in order."""
    opp_discards: list[int]
    """Cards the opponent discarded, in order."""
    unseen: int
    """Mask of cards this seat has never seen: each is in the opponent's hand or the stock."""
    stock_count: int
    turns: int
    """Draws so far in the hand (both seats), a measure of how far the hand has gone."""

    @property
    def opp_unknown_count(self) -> int:
        return self.opp_count - self.opp_known.bit_count()

    @staticmethod
    def from_view(view: SeatView) -> Knowledge:
        if view.seat is None:
            raise ValueError("a watcher's view has no seat to play")
        me = view.seat
        opp = 1 - me
        own = to_mask(view.hand)
        pile_now = [c.index for c in view.discard_pile]
        # Rebuild the discard pile through the history to know what was on top at each decline:
        # undo the history from the pile as it is now to find the opening upcard.
        pile = list(pile_now)
        for e in reversed(view.history):
            if e.card is None:
                continue
            if e.kind in ("discard", "knock"):
                pile.pop()
            elif e.kind == "take_upcard" or e.source is Source.DISCARD:
                pile.append(e.card.index)
        opp_known = 0
        declined: list[int] = []
        taken: list[int] = []
        discards: list[int] = []
        turns = 0
        for e in view.history:
            kind = e.kind
            if kind == "take_upcard" or (kind == "draw" and e.source is Source.DISCARD):
                turns += 1
                card = e.card.index if e.card is not None else pile[-1]
                if pile:
                    pile.pop()
                if e.seat == opp:
                    opp_known |= 1 << card
                    taken.append(card)
            elif kind == "pass":
                if e.seat == opp and pile:
                    declined.append(pile[-1])
            elif kind == "draw":
                turns += 1
                if e.seat == opp and pile:
                    declined.append(pile[-1])
            elif kind in ("discard", "knock") and e.card is not None:
                card = e.card.index
                pile.append(card)
                if e.seat == opp:
                    opp_known &= ~(1 << card)
                    declined.append(card)
                    discards.append(card)
        seen = own | to_mask(view.discard_pile) | opp_known
        return Knowledge(
            seat=me,
            own=own,
            pile=pile_now,
            opp_known=opp_known,
            opp_count=view.hand_counts[opp],
            opp_declined=declined,
            opp_taken=taken,
            opp_discards=discards,
            unseen=FULL & ~seen,
            stock_count=view.stock_count,
            turns=turns,
        )

    def weights(self) -> dict[int, float]:
        """Relative chance that each unseen card is in the opponent's hand rather than the stock."""
        w = dict.fromkeys(_indices(self.unseen), 1.0)
        held = self.opp_known
        for card in self.opp_taken:
            if not held >> card & 1:
                continue
            same, nxt, two = _NEIGHBOURS[card]
            for i in same:
                if i in w:
                    w[i] *= TAKEN_SAME_RANK
            for i in nxt:
                if i in w:
                    w[i] *= TAKEN_NEXT_IN_SUIT
            for i in two:
                if i in w:
                    w[i] *= TAKEN_TWO_AWAY_IN_SUIT
        return w

    def opp_probabilities(self) -> dict[int, float]:
        """Estimated probability that each unseen card is in the opponent's hand.

        Scales the weights so they sum to the number of unknown opponent cards (capped at 1).
        """
        w = self.weights()
        k = self.opp_unknown_count
        total = sum(w.values())
        if not w or k <= 0 or total <= 0:
            return dict.fromkeys(w, 0.0)
        scale = k / total
        # A couple of passes so that capping at 1 keeps the expected count right.
        probs = {i: min(1.0, x * scale) for i, x in w.items()}
        for _ in range(3):
            s = sum(probs.values())
            if abs(s - k) < 1e-6:
                break
            free = [i for i, p in probs.items() if p < 1.0]
            free_w = sum(w[i] for i in free)
            if free_w <= 0:
                break
            scale *= 1 + (k - s) / max(free_w * scale, 1e-9)
            probs = {i: min(1.0, x * scale) for i, x in w.items()}
        return probs

    def opp_holding(self, probs: dict[int, float] | None = None) -> dict[int, float]:
        """The chance that the opponent holds each card: the unseen ones by
        :meth:`opp_probabilities` (``probs``, when already computed), the known ones 1."""
        out = dict(self.opp_probabilities() if probs is None else probs)
        m = self.opp_known
        while m:
            low = m & -m
            out[low.bit_length() - 1] = 1.0
            m ^= low
        return out

    @property
    def opp_passed_over(self) -> int:
        """How many unknown cards the opponent has thrown away: each discard of a card it was
        not known to hold means it kept its other cards rather than that one."""
        return max(0, len(self.opp_discards) - sum(1 for c in self.opp_discards if c in self.opp_taken))

    def sample(
        self,
        rng: random.Random,
        weights: dict[int, float],
        knock_limit: int,
        tries: int = 4,
        knock_turns: int | None = None,
        thrower: Callable[[int, int], int] = thrown_card,
        improve: float = 1.0,
    ) -> tuple[int, list[int]]:
        """One guess at the hidden cards: (opponent's hand mask, stock order top first).

        - A pickup says the player wanted the card: for each card the opponent took and still
          holds, the guess first gives it two cards (from the unseen ones) that meld with it,
          unless it already melds (now and then it skips this: people take cards for other
          reasons too).
        - The rest of its unknown cards are a weighted sample without replacement
          (Efraimidis-Spirakis keys) of the unseen cards.
        - A player improves its hand every turn, so a plain random guess is far too weak by
          mid-hand: the guess draws one extra card for every card the opponent has thrown away,
          one at a time, each time throwing the card leaving the least deadwood (as a simple
          player would), and puts the thrown cards back into the stock.
        - A guess is retried (a few times; the most plausible is kept) when it makes a recent
          discard or declined upcard of the opponent's into a meld (it would have taken it), or
          when it could have knocked at its last discard (most players knock when they can;
          ``knock_limit`` is the hand's own; ``knock_turns``: only while it has discarded at most
          that many times, for an opponent who holds out for gin after its first turns).
          ``thrower(hand, keep)``: the card a replayed draw throws (by default the least
          deadwood left, as a simple player would). ``improve``: the share of those extra draws
          made (1: one per card thrown away; less makes a weaker, more likely opponent).
        """
        k = self.opp_unknown_count
        keep = list(dict.fromkeys([c for c in self.opp_taken if self.opp_known >> c & 1]))
        best: tuple[int, list[int]] | None = None
        best_bad = 99
        for _ in range(tries):
            hand = self.opp_known
            need = k
            pool_mask = 0
            for c in weights:
                pool_mask |= 1 << c
            for x in keep:
                if need < 1 or rng.random() < TAKEN_FOR_OTHER_REASONS:
                    continue
                if deadwood(hand & ~(1 << x)) + VALUES[x] > deadwood(hand):
                    continue  # already in a meld
                options = [m for m in meld_partners(x, hand, pool_mask) if m.bit_count() <= need]
                if options:
                    m = rng.choice(options)
                    hand |= m
                    pool_mask &= ~m
                    need -= m.bit_count()
            cards = [c for c in weights if pool_mask >> c & 1]
            extra = min(round(self.opp_passed_over * improve), MAX_PASSED_OVER, len(cards) - need)
            keyed = sorted(cards, key=lambda c: rng.random() ** (1.0 / weights[c]), reverse=True)
            for c in keyed[:need]:
                hand |= 1 << c
            stock = keyed[need + extra :]
            for c in keyed[need : need + extra]:
                # as the opponent did: draw one, throw the card leaving the least deadwood
                hand |= 1 << c
                out = thrower(hand, self.opp_known)
                hand &= ~(1 << out)
                stock.append(out)
            rng.shuffle(stock)
            bad = 0
            dw = deadwood(hand)
            if (
                self.opp_discards
                and dw <= knock_limit
                and (knock_turns is None or len(self.opp_discards) <= knock_turns)
            ):
                bad += 1  # it would have knocked already
            for c in self.opp_declined[-RECENT_DECLINES:]:
                if not hand >> c & 1 and deadwood(hand | 1 << c) < dw + VALUES[c]:
                    bad += 1  # it would have taken that card: it melds with this guess
            for c in keep:
                if deadwood(hand & ~(1 << c)) + VALUES[c] <= dw:
                    bad += 2  # a card it took is of no use in this guess: the strongest clue
            if bad < best_bad:
                best, best_bad = (hand, stock), bad
                if bad == 0:
                    break
        assert best is not None
        return best


def meld_partners(card: int, hand: int, pool: int) -> list[int]:
    """Ways to complete a three-card meld with ``card``: for each, the mask of the cards it
    needs from ``pool`` (cards already in ``hand`` come free). Sets, then runs."""
    suit, r = divmod(card, 13)
    have = hand | pool
    out = []
    others = [s * 13 + r for s in range(4) if s != suit and have >> (s * 13 + r) & 1]
    for i in range(len(others)):
        for j in range(i + 1, len(others)):
            out.append(((1 << others[i]) | (1 << others[j])) & pool)
    for d1, d2 in ((-2, -1), (-1, 1), (1, 2)):
        if 0 <= r + d1 < 13 and 0 <= r + d2 < 13:
            a, b = suit * 13 + r + d1, suit * 13 + r + d2
            if have >> a & 1 and have >> b & 1:
                out.append(((1 << a) | (1 << b)) & pool)
    return out


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
