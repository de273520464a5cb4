"""Rule presets and the variant hooks: everything that differs from one variant to another.

A preset is one :class:`Rules` object, loaded once from its data file in ``seeds/rules/``. The
file's numbers (target, bonuses, knock limit, starter rule) fill the object's fields, and its
``"variant"`` field picks the object's type: ``"standard"`` (:class:`Rules` itself: ``house``,
``classic``) or ``"oklahoma"`` (:class:`Oklahoma`). A variant type overrides named hooks, and
the rest of the engine (and the bots' simulation) only ever calls the hooks: nothing outside
this module asks which variant a preset is.

The hooks::

    hand_knock_limit(upcard)       this hand's knock limit, from the first upcard
    hand_multiplier(upcard)        this hand's score multiplier, from the first upcard
    hand_points(kind, k, d, x)     what the winner of a settled hand scores
    hand_breakdown(kind, k, d, x)  the same score worked out, e.g. "(25 + 8 - 5) x 2 = 56"
    next_starter(starter, result)  who starts the next hand
    match_bonuses(scores, won, w)  each seat's (box bonus, game bonus) when seat w reaches the target

>>> RULES["house"].hand_knock_limit(Card.parse("Ah")), RULES["oklahoma"].hand_knock_limit(Card.parse("Ah"))
(10, 0)
>>> RULES["oklahoma"].hand_multiplier(Card.parse("7s")), RULES["oklahoma"].hand_multiplier(Card.parse("7h"))
(2, 1)
>>> RULES["oklahoma"].hand_breakdown(ResultKind.UNDERCUT, 8, 5, 2)
'(25 + 8 - 5) x 2 = 56'

The module reads its data files once, at import; it does no other I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from .cards import Card
from .errors import UnknownRulesError
from .settle import ResultKind

if TYPE_CHECKING:
    from .settle import HandResult

from .. import resources

SEEDS_DIR = resources.rules_dir()

_GIN, _KNOCK, _UNDERCUT = ResultKind.GIN, ResultKind.KNOCK, ResultKind.UNDERCUT
_SPADES = 3


class StarterRule(StrEnum):
    ALTERNATE = "alternate"
    """The starting player alternates every hand, a dead hand included (``house``)."""
    WINNER_STARTS = "winner_starts"
    """The loser of a hand deals the next (its winner starts); after a dead hand the same
    dealer deals again (``classic``, ``oklahoma``)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule preset of the standard variant: the numbers of its data file, and the hooks.

    >>> RULES["classic"].box_bonus, RULES["house"].box_bonus, RULES["house"].knock_limit
    (25, 0, 10)
    >>> RULES["house"]
    RULES['house']
    """

    variant: ClassVar[str] = "standard"
    """The ``"variant"`` of the data files this type plays (see :data:`VARIANTS`)."""

    name: str
    label: str
    """What a client shows, e.g. ``"House rules"``."""
    description: str
    target: int
    knock_limit: int
    """The most deadwood a knock may leave (0: gin only); a variant may lower it hand by hand."""
    gin_bonus: int
    undercut_bonus: int
    box_bonus: int
    game_bonus: int
    shutout_bonus: int
    starter_rule: StarterRule
    guide: str = ""

    # --- the hooks ------------------------------------------------------------------------------

    def hand_knock_limit(self, upcard: Card) -> int:
        """The knock limit of a hand whose first upcard is ``upcard``."""
        return self.knock_limit

    def hand_multiplier(self, upcard: Card) -> int:
        """What everything a hand scores is multiplied by, given its first upcard."""
        return 1

    def hand_points(self, kind: ResultKind, knocker: int, defender: int, multiplier: int = 1) -> int:
        """What the winner of a hand of ``kind`` scores, from the knocker's and the defender's
        deadwood (the defender's after layoffs; no layoffs against gin). Never negative."""
        if kind is _KNOCK:
            return (defender - knocker) * multiplier
        if kind is _UNDERCUT:
            return (self.undercut_bonus + knocker - defender) * multiplier
        if kind is _GIN:
            return (self.gin_bonus + defender) * multiplier
        return 0

    def hand_breakdown(self, kind: ResultKind, knocker: int, defender: int, multiplier: int = 1) -> str:
        """:meth:`hand_points` worked out for people, e.g. ``"25 + 8 - 5 = 28"``."""
        if kind is _KNOCK:
            terms = f"{defender} - {knocker}"
        elif kind is _UNDERCUT:
            terms = f"{self.undercut_bonus} + {knocker} - {defender}"
        elif kind is _GIN:
            terms = f"{self.gin_bonus} + {defender}"
        else:
            return "Dead hand: no score"
        if multiplier != 1:
            terms = f"({terms}) x {multiplier}"
        return f"{terms} = {self.hand_points(kind, knocker, defender, multiplier)}"

    def next_starter(self, starter: int, result: HandResult) -> int:
        """Who starts the hand after one that ``starter`` started and that ended in ``result``."""
        if self.starter_rule is StarterRule.ALTERNATE:
            return 1 - starter
        return starter if result.winner is None else result.winner

    def match_bonuses(
        self, scores: tuple[int, int], hands_won: tuple[int, int], winner: int
    ) -> tuple[tuple[int, int], tuple[int, int]]:
        """Each seat's (box bonus, game bonus) once ``winner`` has reached the target."""
        game = self.shutout_bonus if scores[1 - winner] == 0 else self.game_bonus
        box = self.box_bonus
        return (
            (box * hands_won[0], game if winner == 0 else 0),
            (box * hands_won[1], game if winner == 1 else 0),
        )

    # --- data -----------------------------------------------------------------------------------

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Rules:
        """The preset of one data file; its ``"variant"`` (default ``"standard"``) picks the type."""
        data = dict(data)
        variant = data.pop("variant", "standard")
        cls = VARIANTS.get(variant)
        if cls is None:
            raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
        known = {f.name for f in fields(Rules)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule fields: {sorted(unknown)}")
        return cls(**{**data, "starter_rule": StarterRule(data["starter_rule"])})

    def __repr__(self) -> str:
        return f"RULES[{self.name!r}]"


class Oklahoma(Rules):
    """Oklahoma: the first upcard sets the hand's knock limit (its value; an ace, gin only) and
    a spade upcard doubles everything the hand scores. The rest is the data file's numbers.

    >>> ok = RULES["oklahoma"]
    >>> [ok.hand_knock_limit(Card.parse(c)) for c in ("Ad", "2c", "9h", "Ts", "Jd", "Kc")]
    [0, 2, 9, 10, 10, 10]
    >>> ok.hand_breakdown(ResultKind.GIN, 0, 12, ok.hand_multiplier(Card.parse("Qs")))
    '(25 + 12) x 2 = 74'
    """

    __slots__ = ()
    variant: ClassVar[str] = "oklahoma"

    def hand_knock_limit(self, upcard: Card) -> int:
        return 0 if upcard.rank == 1 else min(upcard.value, self.knock_limit)

    def hand_multiplier(self, upcard: Card) -> int:
        return 2 if upcard.suit == _SPADES else 1


VARIANTS: Mapping[str, type[Rules]] = MappingProxyType({cls.variant: cls for cls in (Rules, Oklahoma)})
"""The variant types by the name a data file gives in its ``"variant"`` field."""


def _load() -> dict[str, Rules]:
    presets = {}
    for path in sorted(SEEDS_DIR.glob("*.json")):
        rules = Rules.from_dict(json.loads(path.read_text(encoding="utf-8")))
        presets[rules.name] = rules
    return presets


RULES: MappingProxyType[str, Rules] = MappingProxyType(_load())
"""Every preset by name (``classic``, ``house``, ``oklahoma``)."""


def rules_named(name: str) -> Rules:
    """The rule set called ``name``; :class:`UnknownRulesError` (a ``KeyError``) if none is.

    >>> rules_named("oklahoma").label
    'Oklahoma'
    >>> rules_named("casino")
    Traceback (most recent call last):
    ...
    server.rules.errors.UnknownRulesError: unknown rules 'casino' (known: classic, house, oklahoma)
    """
    try:
        return RULES[name]
    except (KeyError, TypeError):
        raise UnknownRulesError(f"unknown rules {name!r} (known: {', '.join(sorted(RULES))})") from None
