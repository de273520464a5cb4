"""Card masks for the Hard difficulty's simulations: deadwood, settlement and the playout policies.

The playouts (:mod:`.rollout`) play the rest of a *guessed* hand (the simulating bot samples the
hidden cards itself; see :mod:`.knowledge`) with the quick policies here (:func:`greedy_take`,
:func:`greedy_discard`, :func:`gin_thrown_card`), scoring exactly as the rules do
(:func:`settle_points`: knocker's best arrangement, the defender's optimal layoffs, undercut on
a tie). It works on 52-bit masks and plain lists rather than :class:`~server.rules.HandState`
because a decision runs hundreds of playouts.

Every rule that differs between variants comes from the rules object's hooks, as in the engine:
the hand's knock limit and multiplier (a seat view's ``knock_limit`` and ``multiplier``) and the
points (:meth:`~server.rules.Rules.hand_points`, through
:func:`~server.rules.settle.knocker_net`). A test plays thousands of hands through both.

It never sees a real hand: whatever it is given is a guess made from a seat's view.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

from server.rules import Rules, SeatView
from server.rules.cards import VALUES
from server.rules.melds import loose_cards, mask_value, min_deadwood, packings
from server.rules.settle import knocker_net

RANK = tuple(i % 13 for i in range(52))
DRAW, DISCARD, UPCARD = 0, 1, 2

_SUIT = (1 << 13) - 1
_RUN_STARTS = sum(((1 << 11) - 1) << (13 * s) for s in range(4))  # ranks A..J of each suit
_EVERY_SUIT = 1 | 1 << 13 | 1 << 26 | 1 << 39


def deadwood(mask: int) -> int:
    """Least deadwood of ``mask``: :func:`~server.rules.melds.min_deadwood`, with a shortcut.

    Within one suit, the cards lying in some run form stretches of three or more, each a run
    itself; the cards of a rank held in three suits or more form a set. When no card is in both
    a possible run and a possible set, nothing competes: every such card is melded and the
    deadwood is the value of the rest. Only hands where a card could go either way need the
    search (most hands in a playout do not), and only for those ranks.
    """
    starts = mask & (mask >> 1) & (mask >> 2) & _RUN_STARTS
    s0 = mask & _SUIT
    s1 = mask >> 13 & _SUIT
    s2 = mask >> 26 & _SUIT
    s3 = mask >> 39
    sets = ((s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))) * _EVERY_SUIT & mask
    runs = starts | starts << 1 | starts << 2
    both = runs & sets
    if both:
        # A rank none of whose cards could be in a run is melded whole as a set: only the ranks
        # with a card that could go either way are left for the search.
        torn = (both | both >> 13 | both >> 26 | both >> 39) & _SUIT
        return min_deadwood(mask & ~(sets & ~(torn * _EVERY_SUIT)))
    return mask_value(mask & ~(runs | sets))


def _layoff_options(meld: int, defender: int) -> list[int]:
    """Masks of the defender's cards that can be laid off on one knocker meld (empty first)."""
    low = meld & -meld
    first = low.bit_length() - 1
    suit, r0 = divmod(first, 13)
    if meld >> (suit * 13 + 13) == 0:
        # all in one suit: a run
        r1 = meld.bit_length() - 1 - suit * 13
        down = []
        r = r0 - 1
        acc = 0
        while r >= 0 and defender >> (suit * 13 + r) & 1:
            acc |= 1 << (suit * 13 + r)
            down.append(acc)
            r -= 1
        up = []
        r = r1 + 1
        acc = 0
        while r < 13 and defender >> (suit * 13 + r) & 1:
            acc |= 1 << (suit * 13 + r)
            up.append(acc)
            r += 1
        opts = [0, *down]
        return [a | b for a in opts for b in (0, *up)]
    # a set: the missing fourth card, if there is one
    if meld.bit_count() == 3:
        rank = RANK[first]
        for s in range(4):
            card = 1 << (s * 13 + rank)
            if not meld & card:
                return [0, card] if defender & card else [0]
    return [0]


def _defend(melds: tuple[int, ...], defender: int) -> int:
    """The defender's least deadwood against the knocker's ``melds``, laying off optimally."""
    options = [_layoff_options(m, defender) for m in melds]
    if all(len(o) == 1 for o in options):
        return min_deadwood(defender)
    best = 1000
    for choice in product(*options):
        laid = 0
        for c in choice:
            laid |= c
        dw = min_deadwood(defender & ~laid)
        if dw < best:
            best = dw
    return best


def settle_points(knocker: int, defender: int, rules: Rules, limit: int, multiplier: int) -> int:
    """Points of a knock from the knocker's side: positive when the knocker scores, negative
    (the undercut) when the defender does. The knocker's 10 cards must be within ``limit``, the
    hand's knock limit; ``multiplier`` is the hand's."""
    k_dw = deadwood(knocker)
    if k_dw == 0:
        return knocker_net(rules, 0, deadwood(defender), multiplier)
    if not defender & _touching(knocker & ~loose_cards(knocker)):
        # Nothing of the defender's can be laid off on any meld the knocker could show, so the
        # knocker's best arrangement is simply its least deadwood (less deadwood never scores
        # less).
        return knocker_net(rules, k_dw, deadwood(defender), multiplier)
    best = None
    for chosen, unmatched in packings(knocker):
        k_dw = mask_value(unmatched)
        if k_dw > limit:
            continue
        net = knocker_net(rules, k_dw, _defend(chosen, defender), multiplier)
        if best is None or net > best:
            best = net
    assert best is not None, "knock over the limit"
    return best


def _touching(cards: int) -> int:
    """Cards of the same rank as, or next in suit to, some card of ``cards``: the only cards
    that could ever be laid off on melds made of ``cards``."""
    ranks = (cards | cards >> 13 | cards >> 26 | cards >> 39) & _SUIT
    up = cards << 1 & ~(_EVERY_SUIT | 1 << 52)  # a king does not reach the next suit's ace
    down = cards >> 1 & ~(_EVERY_SUIT << 12)  # nor an ace the previous suit's king
    return ranks * _EVERY_SUIT | up | down


class Memo:
    """Deadwood answers remembered for one decision: its playouts meet the same hands again and
    again (the simulating seat's own hand after each possible draw, above all)."""

    __slots__ = ("_best", "_dw")

    def __init__(self) -> None:
        self._dw: dict[int, int] = {}
        self._best: dict[int, tuple[tuple[int, int], ...]] = {}

    def deadwood(self, mask: int) -> int:
        r = self._dw.get(mask)
        if r is None:
            r = self._dw[mask] = deadwood(mask)
        return r

    def discards(self, mask: int) -> tuple[tuple[int, int], ...]:
        """The two best greedy discards of an 11-card ``mask``: ((card, deadwood left), ...),
        ranked by deadwood left, then the higher card, then the higher rank, then the lower index.

        Throwing a card lowers the deadwood by at most its value, and by exactly its value when
        it lies in no meld. So the loose cards are scored without a search, and a card in some
        meld is searched only while its bound (deadwood less its value) can still reach the best
        two: usually none is.
        """
        r = self._best.get(mask)
        if r is None:
            r = self._best[mask] = _best_two_discards(mask, deadwood)
        return r

    def discards_after_draw(self, hand: int, drawn: int) -> tuple[tuple[int, int], ...]:
        """:meth:`discards` of ``hand`` plus the card ``drawn``, from ``hand``'s own when the
        drawn card melds with nothing (the usual draw): it then changes no arrangement, and
        throwing any other card leaves what it leaves from ``hand`` plus the drawn card's value.
        ``hand`` recurs in a playout far more often than any one hand after a draw."""
        mask = hand | 1 << drawn
        r = self._best.get(mask)
        if r is None:
            if loose_cards(mask) >> drawn & 1:
                v = VALUES[drawn]
                keys = [(self.deadwood(hand), -v, -RANK[drawn], drawn)]
                keys.extend((dw + v, -VALUES[c], -RANK[c], c) for c, dw in self.discards(hand))
                keys.sort()
                r = tuple((k[3], k[0]) for k in keys[:2])
            else:
                r = _best_two_discards(mask, deadwood)
            self._best[mask] = r
        return r


def _best_two_discards(mask: int, deadwood: Callable[[int], int]) -> tuple[tuple[int, int], ...]:
    whole = deadwood(mask)
    loose = loose_cards(mask)
    best: list[tuple[int, int, int, int]] = []  # (deadwood left, -value, -rank, card), best first
    # Cards in the order of their bound (whole less value, then higher value and rank, then lower
    # index): once the second best so far is below a card's bound, no later card can enter.
    for i in _BY_VALUE:
        if not mask >> i & 1:
            continue
        v = VALUES[i]
        key = (whole - v, -v, -RANK[i], i)
        if len(best) == 2 and key >= best[1]:
            break
        if not loose >> i & 1:
            key = (deadwood(mask ^ 1 << i), -v, -RANK[i], i)
        best.append(key)
        if len(best) > 1:
            best.sort()
            del best[2:]
    return tuple((k[3], k[0]) for k in best)


_BY_VALUE = tuple(sorted(range(52), key=lambda i: (-VALUES[i], -RANK[i], i)))


def thrown_card(mask: int, keep: int, deadwood: Callable[[int], int] = deadwood) -> int:
    """The card of ``mask`` outside ``keep`` whose discard leaves the least deadwood; between
    equals the higher value, then the higher index. (The sampler's model of a simple player.)"""
    whole = deadwood(mask)
    loose = loose_cards(mask)
    best: tuple[int, int, int] | None = None  # (deadwood left, -value, -card)
    for i in _BY_VALUE_HIGH_INDEX:
        if not mask >> i & 1 or keep >> i & 1:
            continue
        v = VALUES[i]
        key = (whole - v, -v, -i)
        if best is not None and key >= best:
            break  # bounds only grow from here on
        if not loose >> i & 1:
            key = (deadwood(mask ^ 1 << i), -v, -i)
        if best is None or key < best:
            best = key
    assert best is not None, "no card to throw"
    return -best[2]


_BY_VALUE_HIGH_INDEX = tuple(sorted(range(52), key=lambda i: (-VALUES[i], -i)))

GIN_VALUE_BAND = 5
"""MARJJ's band: it throws only among the loose cards within this many points of the highest."""


def gin_thrown_card(mask: int, keep: int) -> int:
    """A cheap stand-in for MARJJ's discard (a player who plays for gin): of the cards of
    ``mask`` (outside ``keep``) in no meld, within ``GIN_VALUE_BAND`` of the highest of them, the
    one with the fewest cards of the hand it could meld with (it keeps pairs and run partials),
    then the higher value, then the higher index. With every card in some meld, the
    least-deadwood discard (:func:`thrown_card`)."""
    loose = loose_cards(mask) & ~keep
    if not loose:
        return thrown_card(mask, keep)
    cards = []
    while loose:
        low = loose & -loose
        cards.append(low.bit_length() - 1)
        loose ^= low
    top = max(VALUES[c] for c in cards)
    return min(
        (c for c in cards if VALUES[c] + GIN_VALUE_BAND >= top),
        key=lambda c: (connections(mask, c), -VALUES[c], -c),
    )


def greedy_take(hand: int, top: int, limit: int, memo: Memo | None = None) -> bool:
    """The playout policy's draw: take ``top`` when it melds, or when it lets it knock now."""
    memo = memo or Memo()
    with_top = hand | 1 << top
    dw = memo.deadwood(hand)
    if memo.deadwood(with_top) < dw + VALUES[top]:
        return True
    if dw + VALUES[top] - 10 > limit:
        return False
    best = memo.discards(with_top)
    card, left = best[0]
    if card == top:
        card, left = best[1]
    return left <= limit


def greedy_discard(hand: int, taken: int, memo: Memo | None = None) -> tuple[int, int]:
    """The playout policy's discard: least deadwood left, then the higher card. (card, dw)."""
    best = (memo or Memo()).discards(hand)
    if best[0][0] == taken:
        return best[1]
    return best[0]


def best_draws_deadwood(ten: int, unseen: int, memo: Memo, k: int) -> float:
    """The mean deadwood of ``ten`` after each of its best ``k`` draws from ``unseen`` (each
    followed by the best discard): how close the hand is to gin, counting only the draws that
    help it most (a hand one card from gin scores 0 when it has ``k`` such cards left)."""
    outcomes = []
    m = unseen & ~ten
    while m:
        low = m & -m
        m ^= low
        outcomes.append(memo.discards(ten | low)[0][1])
    if not outcomes:
        return float(memo.deadwood(ten))
    outcomes.sort()
    best = outcomes[:k]
    return sum(best) / len(best)


def own_turns(view: SeatView) -> int:
    """How many times the view's seat has drawn (or taken the upcard) in the hand so far."""
    return sum(1 for e in view.history if e.seat == view.seat and e.kind in ("take_upcard", "draw"))


_SAME_RANK = tuple(sum(1 << (s * 13 + r) for s in range(4)) for r in range(13))
_SUIT = 0x1FFF


def live_connections(hand: int, card: int, dead: int) -> int:
    """Like :func:`connections`, counting only partners that can still make a meld with
    ``card`` when the cards in ``dead`` (the discard pile, say) are out of play: a card of its
    rank while three of the rank are live; a card of its suit one away while the card below or
    above the two is live, two away while the card between is. (Bit arithmetic on the suit's
    thirteen ranks: Normal asks this of every discard it weighs.)"""
    r = RANK[card]
    n = 0
    same = _SAME_RANK[r]
    if (dead & same).bit_count() <= 1:
        n = (hand & same & ~(1 << card)).bit_count()
    base = card - r
    # Bit 0 rank r - 2 ... bit 4 rank r + 2 (bits below rank 0 and above the king are 0).
    near = (hand >> base & _SUIT) << 2 >> r
    if not near & 0b11011:
        return n  # no card of the suit within two
    live = (~(dead >> base) & _SUIT) << 2 >> r  # the same, for the suit's cards not out of play
    if near & 0b00001:  # r - 2: the card between
        n += live >> 1 & 1
    if near & 0b00010:  # r - 1: below it or above the card
        n += (live | live >> 3) & 1
    if near & 0b01000:  # r + 1: below the card or above it
        n += (live >> 1 | live >> 4) & 1
    if near & 0b10000:  # r + 2: the card between
        n += live >> 3 & 1
    return n


def connections(hand: int, card: int) -> int:
    """How many of the hand's cards could one day meld with ``card`` (same rank, or within two
    in its suit). A crude measure of a card's promise."""
    same_rank = 0
    r = RANK[card]
    for s in range(4):
        i = s * 13 + r
        if i != card and hand >> i & 1:
            same_rank += 1
    suit_base = card - r
    near = 0
    for d in (-2, -1, 1, 2):
        x = r + d
        if 0 <= x < 13 and hand >> (suit_base + x) & 1:
            near += 1
    return same_rank + near


__all__ = [
    "DISCARD",
    "DRAW",
    "UPCARD",
    "Memo",
    "best_draws_deadwood",
    "connections",
    "deadwood",
    "gin_thrown_card",
    "greedy_discard",
    "greedy_take",
    "live_connections",
    "own_turns",
    "settle_points",
    "thrown_card",
]
