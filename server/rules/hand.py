"""One hand (one deal) as a phase machine.

Phases and what each allows (anything else raises and leaves the state unchanged)::

    UPCARD   take_upcard | pass        starter first, then dealer; two passes -> DRAW (stock only)
    DRAW     draw stock | draw discard
    DISCARD  discard C | knock C       never the card just taken from the discard pile
    OVER     nothing                   ``result`` holds the settlement

A hand is fully determined by its deal (two hands, the upcard, the stock order) and its
actions, so any hand replays exactly: ``new_hand`` builds one from explicit cards, ``deal``
from a seeded shuffle (a private ``random.Random``, never the global one).

>>> from server.rules import RULES
>>> h = deal(RULES["house"], starter=0, seed=7)
>>> h.phase, h.to_act, [a.to_wire() for a in h.legal_actions()]
(<Phase.UPCARD: 'upcard'>, 0, [{'kind': 'take_upcard'}, {'kind': 'pass'}])
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from .actions import (
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    TAKE_UPCARD,
    Action,
    Discard,
    Draw,
    Knock,
    Pass,
    Source,
    TakeUpcard,
)
from .cards import DECK, VALUES, Card, as_card, from_mask, indices, to_mask
from .errors import IllegalActionError, InvalidActionError, NotYourTurnError
from .melds import (
    FULL_SUIT,
    Arrangement,
    best_arrangement_mask,
    discard_deadwoods,
    min_deadwood,
    unmeldable_value,
)
from .presets import Rules
from .settle import HandResult, dead_hand, settle_knock
from .views import Event, Phase, SeatView, new_seat_view

# A seat's view is rebuilt after every action of either seat, mostly for cards that have not
# changed since the last one: each hand remembers, per seat, the last cards it arranged and
# their best arrangement (an immutable value), so it lives and dies with the hand. (A global
# LRU over hands thrashed once the live hands outnumbered it: CPU per move grew with the
# number of live matches.)


# --- precomputed, immutable pieces of the hot path ----------------------------------------------

# Events are immutable values, so each possible one is built once and shared by every hand.
_EV_PASS = tuple(Event(s, "pass") for s in (0, 1))
_EV_DRAW_STOCK = tuple(Event(s, "draw", None, Source.STOCK) for s in (0, 1))
_EV_DRAW_DISCARD = tuple(tuple(Event(s, "draw", c, Source.DISCARD) for c in DECK) for s in (0, 1))
_EV_TAKE = tuple(tuple(Event(s, "take_upcard", c) for c in DECK) for s in (0, 1))
_EV_DISCARD = tuple(tuple(Event(s, "discard", c) for c in DECK) for s in (0, 1))
_EV_KNOCK = tuple(tuple(Event(s, "knock", c) for c in DECK) for s in (0, 1))


class _SuitActions(dict[int, tuple[Action, ...]]):
    """For one suit: the 13-bit field of the cards held -> the tuple of their discard actions,
    each built on first use (plain dict lookups afterwards, empty tuples included)."""

    def __init__(self, base: int) -> None:
        super().__init__()
        self.base = base

    def __missing__(self, bits: int) -> tuple[Action, ...]:
        out = self[bits] = tuple(DISCARDS[self.base + r] for r in range(13) if bits >> r & 1)
        return out


_T0, _T1, _T2, _T3 = (_SuitActions(base) for base in (0, 13, 26, 39))
_UPCARD, _DRAW, _DISCARD, _OVER = Phase.UPCARD, Phase.DRAW, Phase.DISCARD, Phase.OVER
_STOCK = Source.STOCK
TURN_LIMIT = 100
"""The plain discard that ends a hand's 100th turn ends it dead (docs/rules.md): two players
could otherwise pass cards back and forth through the discard pile for ever."""
_indices = indices


class HandState:
    """A hand in play. ``apply`` mutates the state (and returns it, for chaining).

    ``knock_limit`` and ``multiplier`` are this hand's own, computed once at the deal by the
    rules' hooks from the first upcard; legality, settlement and the views all read them.
    """

    __slots__ = (
        "_arranged",
        "_knockable",
        "_options",
        "_pile",
        "dealer",
        "discard_pile",
        "hands",
        "history",
        "is_over",
        "knock_limit",
        "multiplier",
        "passes",
        "phase",
        "result",
        "rules",
        "scores",
        "starter",
        "stock",
        "stock_only",
        "taken",
        "to_act",
        "turns",
    )

    def __init__(
        self,
        rules: Rules,
        starter: int,
        hands: tuple[int, int],
        upcard: int,
        stock: Sequence[int],
    ) -> None:
        self.rules = rules
        self.starter = starter
        self.dealer = 1 - starter
        self.hands = [hands[0], hands[1]]
        self.stock = list(reversed(stock))  # top of the stock is the end of the list
        self.discard_pile = [upcard]
        self._pile: tuple[Card, ...] | None = None
        """The discard pile's cards, as the views show them: made once for every view until the
        pile changes (None: not made since)."""
        first = DECK[upcard]
        self.knock_limit = rules.hand_knock_limit(first)
        self.multiplier = rules.hand_multiplier(first)
        self.phase = Phase.UPCARD
        self.is_over = False  # phase is OVER; a plain attribute since players read it every step
        self.to_act: int | None = starter
        """The seat to act; None once the hand is over."""
        self.passes = 0
        self.stock_only = False
        self.taken = -1
        self.turns = 0
        """Plain discards so far: the hand is dead at :data:`TURN_LIMIT`."""
        self.history: tuple[Event, ...] = ()
        """The hand's public events, oldest first: a tuple, grown by a new one per event (so every
        view of one moment shares it, and a consumer may remember work by its identity)."""
        self.result: HandResult | None = None
        self._options: dict[int, int] | None = None
        self._knockable = -1
        self._arranged: list[tuple[int, Arrangement, tuple[Card, ...]] | None] = [None, None]
        """Per seat: (its cards' mask, their best arrangement, the cards in its order)."""
        self.scores = (0, 0)
        """The match score of each seat when this hand was dealt (the match sets it)."""

    # --- inspection ---------------------------------------------------------------------------

    def hand(self, seat: int) -> list[Card]:
        """A seat's cards (full information; do not show to the other seat)."""
        return [c for c in DECK if self.hands[seat] >> c.index & 1]

    @property
    def upcard(self) -> Card:
        """Top of the discard pile."""
        return DECK[self.discard_pile[-1]]

    def stock_order(self) -> list[Card]:
        """The stock, top first (hidden information)."""
        return [DECK[i] for i in reversed(self.stock)]

    def knock_options(self) -> dict[Card, int]:
        """In DISCARD: for each legal discard, the deadwood left after it (in card order: by
        index, as :func:`~.melds.discard_deadwoods` gives them)."""
        return dict(self._discard_pairs())

    def _discard_pairs(self) -> tuple[tuple[Card, int], ...]:
        """:meth:`knock_options` as a view holds them: (card, deadwood) pairs, in card order
        (no dict: a card's hash is a Python function)."""
        if self.phase is not Phase.DISCARD:
            return ()
        taken = self.taken
        return tuple([(DECK[i], dw) for i, dw in self._discard_options().items() if i != taken])

    def _pile_cards(self) -> tuple[Card, ...]:
        pile = self._pile
        if pile is None:
            pile = self._pile = tuple(map(DECK.__getitem__, self.discard_pile))
        return pile

    def _discard_options(self) -> dict[int, int]:
        if self._options is None:
            seat = self.to_act
            assert seat is not None  # a discard is to come: the hand is not over
            self._options = discard_deadwoods(self.hands[seat])
        return self._options

    def _knock_mask(self) -> int:
        """The cards (as a mask) whose discard leaves deadwood within the knock limit.

        Cheaper than every discard's deadwood: removing a card lowers the least deadwood by at
        most its value, so only cards worth at least ``deadwood(11 cards) - limit`` can be knock
        discards, and most hands in play have none. This runs once per turn, so it bounds the
        speed of self-play and of the simulating bots.
        """
        if self._knockable >= 0:
            return self._knockable
        seat = self.to_act
        assert seat is not None  # a discard is to come: the hand is not over
        hand = self.hands[seat]
        limit = self.knock_limit
        out = 0
        if self._options is not None:
            for i, dw in self._options.items():
                if dw <= limit:
                    out |= 1 << i
        # Cards in no meld bound the deadwood from below for free; random and early hands
        # almost always stop here.
        elif unmeldable_value(hand) - limit <= 10:
            need = min_deadwood(hand) - limit  # a knock discard must be worth at least this
            if need <= 10:
                m = hand
                while m:
                    low = m & -m
                    m ^= low
                    if VALUES[low.bit_length() - 1] >= need and min_deadwood(hand ^ low) <= limit:
                        out |= low
        self._knockable = out
        return out

    def legal_actions(self) -> list[Action]:
        """The legal actions, in a fixed order: take_upcard, pass; draw stock, draw discard;
        discards then knocks, each by card index (suit, then rank)."""
        phase = self.phase
        if phase is _DISCARD:
            seat = self.to_act
            assert seat is not None  # only an OVER hand has no seat to act
            m = self.hands[seat]
            if self.taken >= 0:
                m &= ~(1 << self.taken)
            k = self._knockable
            if k < 0:
                k = self._knock_mask()
            # Per-suit tables of ready-made action tuples: no per-card work on the hot path.
            legal = [*_T0[m & FULL_SUIT], *_T1[m >> 13 & FULL_SUIT], *_T2[m >> 26 & FULL_SUIT], *_T3[m >> 39]]
            k &= m
            if k:
                legal += [KNOCKS[i] for i in _indices(k)]
            return legal
        if phase is _DRAW:
            return [DRAW_STOCK] if self.stock_only else [DRAW_STOCK, DRAW_DISCARD]
        if phase is _UPCARD:
            return [TAKE_UPCARD, PASS]
        return []

    def is_legal(self, action: Action) -> bool:
        """Whether ``action`` is legal now for the seat to act (never raises)."""
        try:
            self._check(action)
        except (IllegalActionError, InvalidActionError):
            return False
        return True

    def _check(self, action: Action) -> None:
        if not isinstance(action, Action):
            # A wire dict or junk handed straight to apply is malformed input, not a move.
            raise InvalidActionError(f"not an action: {action!r} (parse wire dicts with Action.from_wire)")
        phase = self.phase
        if phase is Phase.OVER:
            raise IllegalActionError("the hand is over")
        if phase is Phase.UPCARD:
            if not isinstance(action, TakeUpcard | Pass):
                raise IllegalActionError("the upcard is on offer: take_upcard or pass")
        elif phase is Phase.DRAW:
            if not isinstance(action, Draw):
                raise IllegalActionError("draw first, from the stock or the discard pile")
            if action.source is Source.DISCARD and self.stock_only:
                raise IllegalActionError("both players passed the upcard: draw from the stock")
        else:
            if not isinstance(action, Discard | Knock):
                raise IllegalActionError("discard (or knock) a card")
            i = action.card.index
            seat = self.to_act
            assert seat is not None  # only an OVER hand has no seat to act
            if not self.hands[seat] >> i & 1:
                raise IllegalActionError(f"{action.card} is not in your hand")
            if i == self.taken:
                raise IllegalActionError(
                    f"{action.card} was just taken from the discard pile and cannot be discarded this turn"
                )
            if isinstance(action, Knock) and not self._knock_mask() >> i & 1:
                left = self._discard_options()[i]
                limit = self.knock_limit
                raise IllegalActionError(
                    f"cannot knock discarding {action.card}: {left} deadwood left, "
                    + (f"the knock limit of this hand is {limit}" if limit else "this hand is gin only")
                )

    # --- transitions --------------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> HandState:
        """Apply ``action`` for the seat to act (or check it is ``seat``'s turn first).

        Raises :class:`IllegalActionError` / :class:`NotYourTurnError` leaving the state as it
        was (and :class:`InvalidActionError` for something that is not an action).
        """
        s = self.to_act
        if s is None:  # the hand is over
            self._check(action)
            raise IllegalActionError("the hand is over")
        phase = self.phase
        if seat is not None and seat != s:
            raise NotYourTurnError(f"it is seat {s}'s turn, not seat {seat}'s")
        kind = type(action)
        # Each branch checks exactly what _check would, before changing anything; anything
        # unusual (a wrong phase, a subclass, junk) goes through _check for the error.
        if phase is _DISCARD and (kind is Discard or kind is Knock):
            card = action.card.index  # type: ignore[attr-defined]
            bit = 1 << card
            if not self.hands[s] & bit or card == self.taken:
                self._check(action)
            if kind is Knock and not self._knock_mask() & bit:
                self._check(action)
            self.hands[s] ^= bit
            self.discard_pile.append(card)
            self._pile = None
            self.taken = -1
            self._options = None
            self._knockable = -1
            if kind is Knock:
                self.history += (_EV_KNOCK[s][card],)
                self.phase = _OVER
                self.is_over = True
                self.to_act = None
                self.result = settle_knock(
                    self.rules, s, (self.hands[0], self.hands[1]), self.knock_limit, self.multiplier
                )
            else:
                self.history += (_EV_DISCARD[s][card],)
                self.turns += 1
                if len(self.stock) <= 2 or self.turns >= TURN_LIMIT:
                    self.phase = _OVER
                    self.is_over = True
                    self.to_act = None
                    self.result = dead_hand((self.hands[0], self.hands[1]))
                else:
                    self.to_act = 1 - s
                    self.phase = _DRAW
        elif phase is _DRAW and kind is Draw:
            if action.source is _STOCK:  # type: ignore[attr-defined]
                card = self.stock.pop()
                self.history += (_EV_DRAW_STOCK[s],)
            else:
                if self.stock_only:
                    self._check(action)
                card = self.discard_pile.pop()
                self._pile = None
                self.taken = card
                self.history += (_EV_DRAW_DISCARD[s][card],)
            self.hands[s] |= 1 << card
            self.stock_only = False
            self.phase = _DISCARD
        elif phase is _UPCARD and kind is TakeUpcard:
            card = self.discard_pile.pop()
            self._pile = None
            self.hands[s] |= 1 << card
            self.taken = card
            self.phase = _DISCARD
            self.history += (_EV_TAKE[s][card],)
        elif phase is _UPCARD and kind is Pass:
            self.passes += 1
            self.history += (_EV_PASS[s],)
            if self.passes == 1:
                self.to_act = self.dealer
            else:
                self.to_act = self.starter
                self.phase = _DRAW
                self.stock_only = True
        else:
            self._check(action)
            # Legal, but a subclass of an action type: play the plain action it stands for.
            plain: Action
            if isinstance(action, Knock):
                plain = KNOCKS[action.card.index]
            elif isinstance(action, Discard):
                plain = DISCARDS[action.card.index]
            elif isinstance(action, Draw):
                plain = DRAW_STOCK if action.source is _STOCK else DRAW_DISCARD
            else:
                plain = TAKE_UPCARD if isinstance(action, TakeUpcard) else PASS
            return self.apply(plain, seat)
        return self

    # --- views --------------------------------------------------------------------------------

    def arrangement(self, seat: int) -> Arrangement:
        """The best arrangement of ``seat``'s cards, remembered until they change."""
        return self._arrangement(seat)[1]

    def _arrangement(self, seat: int) -> tuple[int, Arrangement, tuple[Card, ...]]:
        mask = self.hands[seat]
        memo = self._arranged[seat]
        if memo is None or memo[0] != mask:
            arrangement = best_arrangement_mask(mask)
            memo = self._arranged[seat] = (mask, arrangement, arrangement.cards)
        return memo

    def view(self, seat: int | None, *, arranged: bool = True) -> SeatView:
        """What ``seat`` may see (``None``: the public view for watchers). ``arranged=False``
        leaves out the best arrangement (``arrangement`` None, ``hand`` in card order): a
        computer player reads its cards, never their layout, and the arrangement is the costly
        part of a view."""
        own = seat is not None
        arrangement: Arrangement | None = None
        cards: tuple[Card, ...] = ()
        if seat is not None:
            if arranged:
                _, arrangement, cards = self._arrangement(seat)
            else:
                cards = tuple(from_mask(self.hands[seat]))
        return new_seat_view(
            rules=self.rules,
            seat=seat,
            starter=self.starter,
            dealer=self.dealer,
            phase=self.phase,
            to_act=self.to_act,
            hand=cards,
            arrangement=arrangement,
            hand_counts=(self.hands[0].bit_count(), self.hands[1].bit_count()),
            stock_count=len(self.stock),
            discard_pile=self._pile_cards(),
            history=self.history,
            legal_actions=tuple(self.legal_actions()) if own and seat == self.to_act else (),
            result=self.result,
            knock_limit=self.knock_limit,
            multiplier=self.multiplier,
            scores=self.scores,
            discard_deadwood=self._discard_pairs() if own and seat == self.to_act else (),
        )

    def __repr__(self) -> str:
        return f"<HandState {self.rules.name} phase={self.phase.value} to_act={self.to_act} stock={len(self.stock)}>"


def new_hand(
    rules: Rules,
    starter: int,
    hands: Sequence[Iterable[Card | str] | str],
    upcard: Card | str,
    stock: Iterable[Card | str] | str,
) -> HandState:
    """A hand from explicit cards: each seat's ten cards (a pair: a tuple, or a list read from a
    record), the upcard and the stock (top first).

    >>> from server.rules import RULES
    >>> h = new_hand(RULES["house"], starter=0,
    ...              hands=("As 2s 3s 4s 5s 6s 7s 8s 9s Ts", "Ac 2c 3c 4c 5c 6c 7c 8c 9c Tc"),
    ...              upcard="Kd", stock="Qd Jd Td 9d")
    >>> h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK)).phase
    <Phase.DISCARD: 'discard'>
    """
    from .cards import parse_cards

    if starter not in (0, 1):
        raise ValueError("starter must be seat 0 or 1")
    h0, h1 = parse_cards(hands[0]), parse_cards(hands[1])
    up = as_card(upcard)
    st = parse_cards(stock)
    all_cards = [*h0, *h1, up, *st]
    if len(h0) != 10 or len(h1) != 10:
        raise ValueError("each hand must have ten cards")
    if len(set(all_cards)) != len(all_cards):
        raise ValueError("a card appears twice in the deal")
    if not st:
        raise ValueError("the stock must hold at least one card")  # both may pass, then draw
    return HandState(rules, starter, (to_mask(h0), to_mask(h1)), up.index, [c.index for c in st])


def shuffled_deck(seed: int | str) -> list[int]:
    """The deck order (card indices) for ``seed``, from a private ``random.Random``."""
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


def deal(rules: Rules, starter: int, seed: int | str) -> HandState:
    """Deal a hand from a seeded shuffle: ten cards each, the upcard, then 31 cards of stock.
    The same seed always deals the same cards.

    >>> from server.rules import RULES
    >>> h = deal(RULES["house"], starter=1, seed="s")
    >>> len(h.hand(0)), len(h.hand(1)), len(h.stock_order()), h.to_act, h.dealer
    (10, 10, 31, 1, 0)
    >>> deal(RULES["house"], 1, "s").hand(0) == h.hand(0)
    True
    """
    return deal_deck(rules, starter, shuffled_deck(seed))


def deal_deck(rules: Rules, starter: int, deck: Sequence[int]) -> HandState:
    """Deal a hand from a deck order (card indices, first dealt first): ``deck[0:10]`` to seat
    0, ``deck[10:20]`` to seat 1, ``deck[20]`` the upcard, the rest the stock, top first."""
    h0 = h1 = 0
    for i in deck[0:10]:
        h0 |= 1 << i
    for i in deck[10:20]:
        h1 |= 1 << i
    return HandState(rules, starter, (h0, h1), deck[20], deck[21:])
