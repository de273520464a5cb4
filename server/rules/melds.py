"""Melds, deadwood and best arrangements.

Exact for any number of cards. Hands are 52-bit masks internally (see :mod:`.cards`): a suit is a
13-bit field, so the runs of a suit come from a table indexed by that field and the sets from a
few bitwise operations. Searching the packings of the (few) melds present in a hand then gives
the least deadwood. This is the hot path of the whole engine (the Hard bot simulates thousands of
hands per decision), so it works on integers and avoids allocation when a hand has no meld.

>>> deadwood("As 2s 3s 7h 7d 7c Kd Qc 5h 9s")
34
>>> best_arrangement("As 2s 3s 4s 7h 7d 7c").deadwood
0
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar, cast

from .cards import DECK, VALUES, Card, from_mask, parse_cards, to_mask

FULL_SUIT = (1 << 13) - 1
_MELDS: dict[int, Meld] = {}


class MeldKind(StrEnum):
    """A set (3-4 cards of a rank) or a run (3+ consecutive ranks of a suit)."""

    SET = "set"
    RUN = "run"


@dataclass(frozen=True, slots=True)
class Meld:
    """A set (3-4 cards of a rank) or a run (3+ consecutive ranks of a suit, aces low)."""

    kind: MeldKind
    cards: tuple[Card, ...]

    def __reduce__(self) -> tuple[type[Meld], tuple[MeldKind, tuple[Card, ...]]]:
        # Pickled by its constructor (views go to the bot workers): compiled by mypyc (see
        # setup.py), a frozen dataclass cannot be unpickled field by field.
        return (Meld, (self.kind, self.cards))

    @staticmethod
    def from_mask(mask: int) -> Meld:
        meld = _MELDS.get(mask)
        if meld is None:
            cards = from_mask(mask)
            kind = MeldKind.SET if len({c.rank for c in cards}) == 1 else MeldKind.RUN
            meld = Meld(kind, tuple(cards))
            if is_meld(mask):  # the deck holds a few hundred melds: each is made once
                _MELDS[mask] = meld
        return meld

    @staticmethod
    def parse(codes: Iterable[Card | str] | str) -> Meld:
        cards = parse_cards(codes)
        mask = to_mask(cards)
        if not is_meld(mask) or len(cards) != mask.bit_count():
            raise ValueError(f"not a meld: {' '.join(map(str, cards))}")
        return Meld.from_mask(mask)

    @property
    def mask(self) -> int:
        return to_mask(self.cards)

    @property
    def value(self) -> int:
        return sum(c.value for c in self.cards)

    def __str__(self) -> str:
        return " ".join(c.code for c in self.cards)

    def __repr__(self) -> str:
        return f"Meld.parse({str(self)!r})"


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Melds chosen from a group of cards, the cards left unmatched and their total value."""

    melds: tuple[Meld, ...]
    unmatched: tuple[Card, ...]
    deadwood: int

    def __reduce__(self) -> tuple[type[Arrangement], tuple[tuple[Meld, ...], tuple[Card, ...], int]]:
        return (Arrangement, (self.melds, self.unmatched, self.deadwood))  # as Meld's

    @property
    def cards(self) -> tuple[Card, ...]:
        """All the cards, melds first (each in order), then unmatched cards by rank."""
        return tuple(c for m in self.melds for c in m.cards) + self.unmatched


# --- tables -----------------------------------------------------------------------------------


def _suit_value(bits: int) -> int:
    return sum(min(r + 1, 10) for r in range(13) if bits >> r & 1)


_SUIT_VALUE: tuple[int, ...] = tuple(_suit_value(b) for b in range(1 << 13))


def _runs_in_suit(bits: int) -> tuple[tuple[int, int], ...]:
    """Every run (as a 13-bit field, value) that lies inside the 13-bit field ``bits``."""
    out = []
    r = 0
    while r < 13:
        if not bits >> r & 1:
            r += 1
            continue
        end = r
        while end + 1 < 13 and bits >> (end + 1) & 1:
            end += 1
        for lo in range(r, end - 1):
            for hi in range(lo + 2, end + 1):
                run = ((1 << (hi - lo + 1)) - 1) << lo
                out.append((run, _SUIT_VALUE[run]))
        r = end + 1
    return tuple(out)


_RUN_TABLE: dict[int, tuple[tuple[int, int], ...]] = {}


def _suit_runs(bits: int) -> tuple[tuple[int, int], ...]:
    runs = _RUN_TABLE.get(bits)
    if runs is None:
        runs = _RUN_TABLE[bits] = _runs_in_suit(bits)
    return runs


def _sets_of_rank(rank0: int, suits: int) -> list[tuple[int, int]]:
    """Sets of rank index ``rank0`` among the suits in the 4-bit field ``suits``."""
    present = [s for s in range(4) if suits >> s & 1]
    value = min(rank0 + 1, 10)
    cards = [1 << (s * 13 + rank0) for s in present]
    out = []
    if len(cards) == 4:
        out.append((cards[0] | cards[1] | cards[2] | cards[3], 4 * value))
        for skip in range(4):
            m = 0
            for i in range(4):
                if i != skip:
                    m |= cards[i]
            out.append((m, 3 * value))
    elif len(cards) == 3:
        out.append((cards[0] | cards[1] | cards[2], 3 * value))
    return out


# --- core maths on masks ----------------------------------------------------------------------


def mask_value(mask: int) -> int:
    """Total deadwood value of the cards in ``mask`` (no melds considered)."""
    return (
        _SUIT_VALUE[mask & FULL_SUIT]
        + _SUIT_VALUE[mask >> 13 & FULL_SUIT]
        + _SUIT_VALUE[mask >> 26 & FULL_SUIT]
        + _SUIT_VALUE[mask >> 39 & FULL_SUIT]
    )


def melds_in(mask: int) -> list[tuple[int, int]]:
    """Every meld (mask, value) lying inside ``mask``, overlapping ones included."""
    s0 = mask & FULL_SUIT
    s1 = mask >> 13 & FULL_SUIT
    s2 = mask >> 26 & FULL_SUIT
    s3 = mask >> 39 & FULL_SUIT
    out: list[tuple[int, int]] = []
    for shift, bits in ((0, s0), (13, s1), (26, s2), (39, s3)):
        if bits & (bits >> 1) & (bits >> 2):
            out.extend((run << shift, v) for run, v in _suit_runs(bits))
    triples = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    while triples:
        low = triples & -triples
        r = low.bit_length() - 1
        suits = (s0 >> r & 1) | (s1 >> r & 1) << 1 | (s2 >> r & 1) << 2 | (s3 >> r & 1) << 3
        out.extend(_sets_of_rank(r, suits))
        triples ^= low
    return out


def unmeldable_value(mask: int) -> int:
    """Total value of the cards in ``mask`` that lie in no meld at all: a lower bound of the
    least deadwood (such cards are unmatched in every arrangement), found with a few bitwise
    operations instead of a search.

    >>> unmeldable_value(to_mask("As 2s 3s 7h 7d 7c Kd Qc 5h 9s".split()))
    34
    """
    s0 = mask & FULL_SUIT
    s1 = mask >> 13 & FULL_SUIT
    s2 = mask >> 26 & FULL_SUIT
    s3 = mask >> 39
    # Lowest cards of three-card runs, all suits at once (a run cannot wrap into the next suit),
    # and the ranks held in three suits or more, copied into every suit.
    starts = mask & (mask >> 1) & (mask >> 2) & _RUN_STARTS
    sets = ((s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))) * _EVERY_SUIT
    dead = mask & ~(starts | starts << 1 | starts << 2 | sets)
    return (
        _SUIT_VALUE[dead & FULL_SUIT]
        + _SUIT_VALUE[dead >> 13 & FULL_SUIT]
        + _SUIT_VALUE[dead >> 26 & FULL_SUIT]
        + _SUIT_VALUE[dead >> 39]
    )


_RUN_STARTS = sum(((1 << 11) - 1) << (13 * s) for s in range(4))  # ranks A..J of each suit
_EVERY_SUIT = 1 | 1 << 13 | 1 << 26 | 1 << 39


def is_meld(mask: int) -> bool:
    n = mask.bit_count()
    return n >= 3 and any(m == mask for m, _ in melds_in(mask))


class _RunBest(dict[int, int]):
    """13-bit field of one suit -> the largest total value of disjoint runs inside it, each
    field computed once on first use (8192 fields at most)."""

    def __missing__(self, bits: int) -> int:
        best = 0
        if bits & (bits >> 1) & (bits >> 2):
            low = bits & -bits
            r = low.bit_length() - 1
            best = self[bits ^ low]  # the lowest card stays out of runs
            end = r
            while bits >> (end + 1) & 1:
                end += 1
                if end - r >= 2:  # the run r..end, then the best of the cards above it
                    run = bits & ((1 << (end + 1)) - 1)
                    v = _SUIT_VALUE[run] + self[bits ^ run]
                    if v > best:
                        best = v
        self[bits] = best
        return best


_RUN_BEST = _RunBest()

# For the 4-bit field of the suits holding a rank: every set those cards can form, as a 4-bit
# field of suits (three of them, or all four).
_SET_CHOICES: tuple[tuple[int, ...], ...] = tuple(
    tuple(sub for sub in range(16) if sub & present == sub and sub.bit_count() >= 3) for present in range(16)
)


def _best_meld_value(s0: int, s1: int, s2: int, s3: int, sets: int) -> int:
    """Largest total value of disjoint melds in the four suit fields. ``sets``: the ranks (13-bit
    field) that still may form a set. At each such rank choose no set or one of its sets; then
    the suits are independent and their runs come from a table."""
    if not sets:
        rb = _RUN_BEST
        return rb[s0] + rb[s1] + rb[s2] + rb[s3]
    low = sets & -sets
    rest = sets ^ low
    best = _best_meld_value(s0, s1, s2, s3, rest)
    value = VALUES[low.bit_length() - 1]
    present = (
        (1 if s0 & low else 0) | (2 if s1 & low else 0) | (4 if s2 & low else 0) | (8 if s3 & low else 0)
    )
    for sub in _SET_CHOICES[present]:
        v = sub.bit_count() * value + _best_meld_value(
            s0 & ~low if sub & 1 else s0,
            s1 & ~low if sub & 2 else s1,
            s2 & ~low if sub & 4 else s2,
            s3 & ~low if sub & 8 else s3,
            rest,
        )
        if v > best:
            best = v
    return best


def min_deadwood(mask: int) -> int:
    """Least deadwood of the cards in ``mask`` over every arrangement of melds.

    >>> min_deadwood(to_mask("3h 4h 5h 6h 7h 3c 3d 7c 7d".split()))
    0
    """
    s0 = mask & FULL_SUIT
    s1 = mask >> 13 & FULL_SUIT
    s2 = mask >> 26 & FULL_SUIT
    s3 = mask >> 39
    total = _SUIT_VALUE[s0] + _SUIT_VALUE[s1] + _SUIT_VALUE[s2] + _SUIT_VALUE[s3]
    sets = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    if sets:
        return total - _best_meld_value(s0, s1, s2, s3, sets)
    if mask & (mask >> 1) & (mask >> 2) & _RUN_STARTS:
        rb = _RUN_BEST
        return total - rb[s0] - rb[s1] - rb[s2] - rb[s3]
    return total  # no meld at all: the common case for random hands


def packings(mask: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every packing of disjoint melds inside ``mask`` (the empty one included), as
    (meld masks, unmatched mask)."""
    return _walk([m for m, _ in melds_in(mask)], mask, 0, 0, ())


def _walk(
    melds: list[int], mask: int, start: int, used: int, chosen: tuple[int, ...]
) -> Iterator[tuple[tuple[int, ...], int]]:
    # A module-level generator, not a recursive closure: a closure that calls itself is a
    # reference cycle, left for the cyclic garbage collector on every call (a server building
    # views for a thousand matches then spends long full collections on them).
    yield chosen, mask & ~used
    for j in range(start, len(melds)):
        m = melds[j]
        if not m & used:
            yield from _walk(melds, mask, j + 1, used | m, (*chosen, m))


def loose_cards(mask: int) -> int:
    """The cards of ``mask`` (as a mask) that lie in no meld at all."""
    s0 = mask & FULL_SUIT
    s1 = mask >> 13 & FULL_SUIT
    s2 = mask >> 26 & FULL_SUIT
    s3 = mask >> 39
    starts = mask & (mask >> 1) & (mask >> 2) & _RUN_STARTS
    sets = ((s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))) * _EVERY_SUIT
    return mask & ~(starts | starts << 1 | starts << 2 | sets)


def discard_deadwoods(mask: int) -> dict[int, int]:
    """For each card index in ``mask`` (in index order): the least deadwood of the other cards.

    A card in no meld is unmatched in every arrangement, so throwing it lowers the deadwood by
    exactly its value; only the cards of the hand's core (those in some meld, see
    :func:`best_arrangement_mask`) need a search of their own, and it is the core's alone (the
    other cards add their value to it): remembered per core.

    >>> d = discard_deadwoods(to_mask("7c 7d 7h 8h 9h Kd".split()))
    >>> d[Card.parse("Kd").index], d[Card.parse("7h").index], d[Card.parse("8h").index]
    (14, 41, 19)
    """
    loose = loose_cards(mask)
    core = mask ^ loose
    rest = mask_value(loose)
    least, without = _kept(_CORE_DISCARDS, core, _core_discards) if core else (0, {})
    whole = rest + least
    out: dict[int, int] = {}
    m = mask
    while m:
        low = m & -m
        m ^= low
        i = low.bit_length() - 1
        out[i] = whole - VALUES[i] if low & loose else rest + without[i]
    return out


def _core_discards(core: int) -> tuple[int, dict[int, int]]:
    """A core's least deadwood, and for each of its cards the least deadwood of the others."""
    without = {}
    m = core
    while m:
        low = m & -m
        m ^= low
        without[low.bit_length() - 1] = min_deadwood(core ^ low)
    return min_deadwood(core), without


def _spread(bits: int) -> int:
    """Seven bits of a suit's field, rank ``r``'s bit moved to bit ``4 * r``."""
    return sum(1 << 4 * r for r in range(7) if bits >> r & 1)


_SPREAD: tuple[int, ...] = tuple(_spread(b) for b in range(1 << 7))
_RANK_ORDER: tuple[Card, ...] = tuple(DECK[s * 13 + r] for r in range(13) for s in range(4))


def by_rank(mask: int) -> tuple[Card, ...]:
    """The cards of ``mask`` by rank, then suit: the four suits' fields interleaved, rank by
    rank (bit ``4 * r + s``), then read in bit order, with no sort.

    >>> " ".join(c.code for c in by_rank(to_mask("Kd 2c 2s Ah".split())))
    'Ah 2c 2s Kd'
    """
    sp = _SPREAD
    s0 = mask & FULL_SUIT
    s1 = mask >> 13 & FULL_SUIT
    s2 = mask >> 26 & FULL_SUIT
    s3 = mask >> 39 & FULL_SUIT
    t = (
        (sp[s0 & 127] | sp[s0 >> 7] << 28)
        | (sp[s1 & 127] | sp[s1 >> 7] << 28) << 1
        | (sp[s2 & 127] | sp[s2 >> 7] << 28) << 2
        | (sp[s3 & 127] | sp[s3 >> 7] << 28) << 3
    )
    order = _RANK_ORDER
    out = []
    while t:
        low = t & -t
        out.append(order[low.bit_length() - 1])
        t ^= low
    return tuple(out)


def _meld_order(m: Meld) -> tuple[int, int, int]:
    return (m.cards[0].rank, 0 if m.kind is MeldKind.SET else 1, m.cards[0].suit)


def best_arrangement_mask(mask: int) -> Arrangement:
    """The best arrangement of the cards in ``mask`` (see :func:`best_arrangement`).

    Only the cards that lie in some meld (the hand's *core*) take part in the search: the others
    are unmatched in every packing, so they add the same value to each and never change which
    packing is best (nor the order packings come in, so ties break alike). Hands differ far more
    than their cores do (in random play, 270,000 hands with a meld had 8,000 cores), so each
    core's best packing is remembered (``CORES_KEPT`` of them): a view's arrangement is then
    mostly a lookup and the unmatched cards put in order (18.5 against 10.4 us a view's in the
    moves benchmark)."""
    core = mask & ~loose_cards(mask)
    # (No core, no meld: the common case in play.)
    melds, used = _kept(_CORES, core, _best_packing) if core else ((), 0)
    unmatched = mask & ~used
    return Arrangement(melds, by_rank(unmatched), mask_value(unmatched))


CORES_KEPT = 4096
"""Cores remembered by each table below (the oldest forgotten first; both full, about 3 MB). In
random play over 3,000 matches (270,000 hands with a meld, 8,000 cores) 96% of the lookups found
their core kept (93% with 1,024 kept, 97% with 16,384)."""

_CORES: dict[int, tuple[tuple[Meld, ...], int]] = {}
"""A core (as a mask) -> its best packing's melds, in the arrangement's order, and their cards."""

_CORE_DISCARDS: dict[int, tuple[int, dict[int, int]]] = {}
"""A core -> :func:`_core_discards` of it."""

K = TypeVar("K")
V = TypeVar("V")


def _kept(table: dict[K, V], key: K, compute: Callable[[K], V]) -> V:
    """``compute(key)``, remembered in ``table`` (at most ``CORES_KEPT`` entries)."""
    value = table.get(key)
    if value is None:
        value = compute(key)
        if len(table) >= CORES_KEPT:
            table.pop(next(iter(table)), None)  # the oldest
        table[key] = value
    return value


def _best_packing(core: int) -> tuple[tuple[Meld, ...], int]:
    best: tuple[int, ...] = ()
    best_key: tuple[int, int] | None = None
    for chosen, unmatched in packings(core):
        # least deadwood; among equals, fewer melds (keeps four-card sets and long runs whole)
        key = (mask_value(unmatched), len(chosen))
        if best_key is None or key < best_key:
            best, best_key = chosen, key
    used = 0
    for m in best:
        used |= m
    return tuple(sorted(map(Meld.from_mask, best), key=_meld_order)), used


# --- public API on cards ----------------------------------------------------------------------


def deadwood(cards: Iterable[Card | str] | str) -> int:
    """Least deadwood of a group of cards (any number of cards).

    >>> deadwood(["Kh", "Qh", "Jh", "2c"])
    2
    """
    if isinstance(cards, str):
        cards = cards.split()
    # Inlined card -> bit (no helper calls per card): bots and the benchmark call this a lot.
    mask = 0
    for c in cards:
        if c.__class__ is not Card:
            c = Card.parse(cast(str, c))  # not a Card, so a code (parse rejects anything else)
        mask |= 1 << (c.suit * 13 + c.rank - 1)
    return min_deadwood(mask)


def best_arrangement(cards: Iterable[Card | str] | str) -> Arrangement:
    """The arrangement of melds leaving the least deadwood; ties go to fewer, longer melds.

    >>> a = best_arrangement("7c 7d 7h 8h 9h")
    >>> a.deadwood, [str(m) for m in a.melds]
    (14, ['7h 8h 9h'])
    """
    cards = parse_cards(cards)
    mask = to_mask(cards)
    if mask.bit_count() != len(cards):
        raise ValueError("the same card appears twice")
    return best_arrangement_mask(mask)


__all__ = [
    "DECK",
    "Arrangement",
    "Meld",
    "MeldKind",
    "best_arrangement",
    "deadwood",
]
