"""Independent, obviously-correct reference implementations and small drivers for the rules tests.

Nothing here imports the engine's meld maths: the brute forces below are written from RULES.md
alone, so a test comparing the engine against them can really fail.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from functools import cache

from server.rules import Action, Card, Discard, Draw, HandState, Knock, Pass, Source, TakeUpcard

RANKS = "A23456789TJQK"


def cards(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def value(card: Card) -> int:
    return min(card.rank, 10)


def is_valid_meld(group: Iterable[Card]) -> bool:
    """RULES.md: a set is 3 or 4 cards of one rank; a run is 3+ consecutive ranks of one suit,
    aces low (rank 1 only ever precedes 2)."""
    group = list(group)
    if len(group) < 3 or len(set(group)) != len(group):
        return False
    if len({c.rank for c in group}) == 1:
        return len(group) <= 4
    if len({c.suit for c in group}) != 1:
        return False
    ranks = sorted(c.rank for c in group)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def all_melds(hand: Iterable[Card]) -> list[frozenset[Card]]:
    """Every meld inside ``hand``: every subset of 3+ cards of one rank or of one suit that is
    a valid meld (a meld is always one or the other)."""
    hand = sorted(set(hand))
    groups = [[c for c in hand if c.rank == r] for r in range(1, 14)]
    groups += [[c for c in hand if c.suit == s] for s in range(4)]
    out = set()
    for group in groups:
        for size in range(3, len(group) + 1):
            for subset in itertools.combinations(group, size):
                if is_valid_meld(subset):
                    out.add(frozenset(subset))
    return sorted(out, key=sorted)


def brute_min_deadwood(hand: Iterable[Card]) -> int:
    """Least deadwood: the lowest card is either unmatched or in some meld of the rest."""
    hand = frozenset(hand)
    melds = all_melds(hand)

    @cache
    def best(left: frozenset[Card]) -> int:
        if not left:
            return 0
        first = min(left)
        out = value(first) + best(left - {first})
        for m in melds:
            if first in m and m <= left:
                out = min(out, best(left - m))
        return out

    return best(hand)


def all_packings(hand: Iterable[Card]) -> list[tuple[list[frozenset[Card]], frozenset[Card]]]:
    """Every way to choose disjoint melds from ``hand``: (melds, unmatched cards)."""
    hand = frozenset(hand)
    melds = all_melds(hand)
    out = []

    def walk(start: int, used: frozenset[Card], chosen: list[frozenset[Card]]) -> None:
        out.append((list(chosen), hand - used))
        for j in range(start, len(melds)):
            if not melds[j] & used:
                walk(j + 1, used | melds[j], [*chosen, melds[j]])

    walk(0, frozenset(), [])
    return out


def can_lay_off(knocker_melds: list[frozenset[Card]], laid: frozenset[Card]) -> bool:
    """Whether every card of ``laid`` can be laid off on ``knocker_melds`` (a fourth card on a
    set; run extensions at either end, repeatedly)."""
    # A plain search over every order and every target meld: a greedy choice could put a card
    # on a set when a run needed it as a stepping stone.
    seen: set[tuple[tuple[frozenset[Card], ...], frozenset[Card]]] = set()

    def search(melds: tuple[frozenset[Card], ...], pending: frozenset[Card]) -> bool:
        if not pending:
            return True
        if (melds, pending) in seen:
            return False
        seen.add((melds, pending))
        for c in pending:
            for i, m in enumerate(melds):
                if is_valid_meld([*m, c]):
                    grown = (*melds[:i], m | {c}, *melds[i + 1 :])
                    if search(grown, pending - {c}):
                        return True
        return False

    return search(tuple(knocker_melds), frozenset(laid))


def brute_defender_deadwood(knocker_melds: list[frozenset[Card]], defender: Iterable[Card]) -> int:
    """The defender's least deadwood after its best layoffs: try every subset of the cards that
    might be laid off."""
    defender = frozenset(defender)
    # Candidates: cards that fit some meld once every candidate found so far is added to every
    # meld it fits. Growing a meld never stops another card from fitting, so this is a superset
    # of any legal layoff; can_lay_off below then decides each subset exactly.
    grown = [set(m) for m in knocker_melds]
    touching: list[Card] = []
    changed = True
    while changed:
        changed = False
        for c in sorted(defender - set(touching)):
            fits = [m for m in grown if is_valid_meld([*m, c])]
            if fits:
                touching.append(c)
                for m in fits:
                    m.add(c)
                changed = True
    best = brute_min_deadwood(defender)
    for size in range(1, len(touching) + 1):
        for laid in itertools.combinations(touching, size):
            if can_lay_off(knocker_melds, frozenset(laid)):
                best = min(best, brute_min_deadwood(defender - set(laid)))
    return best


def brute_knock_score(knocker: Iterable[Card], defender: Iterable[Card], limit: int = 10) -> int:
    """The knocker's best signed score (negative: the defender undercuts) over every knocker
    arrangement with deadwood at most ``limit``; gin when the knocker's hand has no deadwood."""
    knocker, defender = list(knocker), list(defender)
    if brute_min_deadwood(knocker) == 0:
        return 25 + brute_min_deadwood(defender)
    best = None
    for melds, unmatched in all_packings(knocker):
        k = sum(value(c) for c in unmatched)
        if k > limit:
            continue
        d = brute_defender_deadwood(melds, defender)
        score = d - k if d > k else -(25 + k - d)
        best = score if best is None else max(best, score)
    assert best is not None
    return best


# --- driving hands ----------------------------------------------------------------------------


def wire(h: HandState, *actions: dict) -> HandState:
    """Apply wire-form actions in order."""
    for a in actions:
        h.apply(Action.from_wire(a))
    return h


def both_pass_and_draw(h: HandState) -> HandState:
    return h.apply(Pass()).apply(Pass()).apply(Draw(Source.STOCK))


def random_action(h: HandState, rng: random.Random) -> Action:
    return rng.choice(h.legal_actions())


def greedy_action(h: HandState, rng: random.Random) -> Action:
    """A simple player that reaches knocks often: take the upcard or draw from the stock, throw
    the card leaving the least deadwood, knock whenever it may."""
    legal = h.legal_actions()
    first = legal[0]
    if isinstance(first, TakeUpcard):
        return rng.choice(legal)
    if isinstance(first, Draw):
        return rng.choice(legal)
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks:
        return rng.choice(knocks)
    options = h.knock_options()
    best = min(options.values())
    return Discard(rng.choice([c for c, dw in options.items() if dw == best]))


def snapshot(h: HandState) -> tuple:
    """Every field of a hand state (not its private caches), and every view of it, for
    before/after comparisons."""
    # Its __slots__ in Python; compiled by mypyc (a wheel), the native class lists them apart.
    names = vars(HandState).get("__slots__") or vars(HandState)["__mypyc_attrs__"]
    fields = tuple((name, repr(getattr(h, name))) for name in names if not name.startswith("_"))
    return fields, h.view(0), h.view(1), h.view(None)


__all__ = [
    "RANKS",
    "Card",
    "Discard",
    "Draw",
    "Knock",
    "Pass",
    "Source",
    "TakeUpcard",
    "all_melds",
    "all_packings",
    "both_pass_and_draw",
    "brute_defender_deadwood",
    "brute_knock_score",
    "brute_min_deadwood",
    "can_lay_off",
    "cards",
    "greedy_action",
    "is_valid_meld",
    "random_action",
    "snapshot",
    "value",
    "wire",
]
