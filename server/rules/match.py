"""A match: hands to the target score (100); who starts each hand and the bonuses at the end
come from the rules' hooks (:meth:`~server.rules.Rules.next_starter`,
:meth:`~server.rules.Rules.match_bonuses`).

A match is determined by its rules, its seed, its deal scheme and its actions: hand ``n`` is
dealt from the hand seed the scheme derives from ``seed`` and ``n`` (:mod:`.deals`: ``sha256``
for new matches, ``legacy`` for matches dealt before), and the first starter from
``f"{seed}:first"`` unless given. So ``MatchState.replay(match.record())`` rebuilds the exact
state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from .actions import Action
from .cards import DECK, Card, from_mask
from .deals import DEFAULT_DEAL, deal_named
from .errors import IllegalActionError
from .frozen import fast_constructor
from .hand import HandState, deal_deck
from .presets import Rules, rules_named
from .settle import HandResult
from .views import SeatView


@dataclass(frozen=True, slots=True)
class SeatTotal:
    """A seat's final score: hand points, box bonus (classic, oklahoma: 25 per hand won) and
    game bonus (classic, oklahoma: 100 to the winner, 200 on a shutout)."""

    points: int
    box_bonus: int
    game_bonus: int

    @property
    def total(self) -> int:
        return self.points + self.box_bonus + self.game_bonus

    def __reduce__(self) -> tuple[type[SeatTotal], tuple[int, int, int]]:
        # By its constructor (as melds.Meld): compiled (a wheel, setup.py), a frozen dataclass
        # is neither unpickled nor copied field by field.
        return (SeatTotal, (self.points, self.box_bonus, self.game_bonus))


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """How a match ended: the winning seat, why (``"target"``: reached 100; a forfeit:
    ``"resign"``, ``"timeout"`` or ``"abandoned"``, see :data:`FORFEITS`), and both seats'
    totals."""

    winner: int
    reason: str  # "target" | "resign" | "timeout" | "abandoned"
    totals: tuple[SeatTotal, SeatTotal]

    def __reduce__(self) -> tuple[type[MatchOutcome], tuple[Any, ...]]:
        return (MatchOutcome, (self.winner, self.reason, self.totals))  # as SeatTotal's


FORFEITS = ("resign", "timeout", "abandoned")
"""The ways a seat loses a match before the target: it resigned, its clock ran out (the service
decides when), or it left and the other seat claimed the match."""


class HandLog:
    """One hand of the match record: who started, the deal and every action, in order.

    A live match keeps the log of every hand it has dealt, so the deal is held as card numbers,
    one byte each (about 90 bytes, where tuples of cards took about 580), and given back as
    cards: ``hands`` (each seat's, in card order), ``upcard`` and ``stock`` (top first)."""

    __slots__ = ("_deal", "actions", "commitment", "number", "seed", "starter")

    def __init__(
        self,
        number: int,
        starter: int,
        seed: str,
        hands: tuple[Sequence[Card], Sequence[Card]],
        upcard: Card,
        stock: Sequence[Card],
        actions: list[tuple[int, Action]] | None = None,
        commitment: str | None = None,
    ) -> None:
        self.number = number
        self.starter = starter
        self.seed = seed
        """The hand's seed: secret while the hand is in play (reveal it only once it is over)."""
        first, second = hands
        # Both hands' sizes first, then the cards: hands, upcard, stock.
        self._deal = bytes((len(first), len(second), *(c.index for c in (*first, *second, upcard, *stock))))
        self.actions: list[tuple[int, Action]] = [] if actions is None else actions
        self.commitment = commitment
        """The hash of ``seed`` shown from the start of the hand (``None``: a legacy deal)."""

    @property
    def hands(self) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        deal, first = self._deal, 2 + self._deal[0]
        return tuple(DECK[i] for i in deal[2:first]), tuple(DECK[i] for i in deal[first : first + deal[1]])

    @property
    def upcard(self) -> Card:
        return DECK[self._deal[2 + self._deal[0] + self._deal[1]]]

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock as dealt, top first."""
        return tuple(DECK[i] for i in self._deal[3 + self._deal[0] + self._deal[1] :])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandLog):
            return NotImplemented
        return (self.number, self.starter, self.seed, self._deal, self.actions, self.commitment) == (
            other.number,
            other.starter,
            other.seed,
            other._deal,
            other.actions,
            other.commitment,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable (its actions grow), as before

    def __reduce__(self) -> tuple[type[HandLog], tuple[Any, ...]]:
        # By its constructor, as SeatTotal's (compiled, a class whose constructor takes
        # arguments is neither copied nor unpickled slot by slot): analyses send logs to their
        # workers.
        fields = (self.number, self.starter, self.seed, self.hands, self.upcard, self.stock)
        return (HandLog, (*fields, self.actions, self.commitment))

    def __repr__(self) -> str:
        return (
            f"HandLog(number={self.number!r}, starter={self.starter!r}, seed={self.seed!r}, "
            f"hands={self.hands!r}, upcard={self.upcard!r}, stock={self.stock!r}, "
            f"actions={self.actions!r}, commitment={self.commitment!r})"
        )


@dataclass(frozen=True, slots=True)
class MatchView:
    """What one seat (or, with ``seat=None``, a watcher) may see of a match."""

    rules: Rules
    seat: int | None
    hand_number: int
    scores: tuple[int, int]
    hands_won: tuple[int, int]
    hand: SeatView
    results: tuple[HandResult, ...]
    outcome: MatchOutcome | None
    deal_commitment: str | None = None
    """The commitment to the hand in play's seed (``None``: a legacy deal)."""

    def __reduce__(self) -> tuple[type[MatchView], tuple[Any, ...]]:
        fields = (self.rules, self.seat, self.hand_number, self.scores, self.hands_won, self.hand)
        return (MatchView, (*fields, self.results, self.outcome, self.deal_commitment))  # as SeatTotal's

    @property
    def last_result(self) -> HandResult | None:
        return self.results[-1] if self.results else None


_new_match_view = cast("type[MatchView]", fast_constructor(MatchView))
"""``MatchView(...)``, faster (see :mod:`.frozen`), checked by mypy as the constructor."""

_LOGGED: dict[Action, tuple[Any, Any]] = {}
"""Per action (at most the 108 there are), its entry in a hand's log for each seat, built once:
a live match's log then holds a reference per action, not a tuple of its own (56 bytes). Each
entry is a ``tuple[int, Action]``, held as ``Any`` so that compiled code (a wheel) passes the
shared tuple along rather than unpacking it and packing a new one."""


def _logged(seat: int, action: Action) -> Any:
    pairs = _LOGGED.get(action)
    if pairs is None:
        pairs = _LOGGED[action] = ((0, action), (1, action))
    return pairs[seat]


class MatchState:
    """A match in play; ``apply`` plays an action in the current hand and deals the next hand
    when one ends, until a seat reaches the target."""

    __slots__ = (
        "deal",
        "first_starter",
        "hand",
        "hands_won",
        "log",
        "outcome",
        "resigned",
        "results",
        "rules",
        "scheme",
        "scores",
        "seed",
    )

    def __init__(
        self, rules: Rules, seed: int | str, first_starter: int | None = None, deal: str = DEFAULT_DEAL
    ) -> None:
        self.rules = rules
        self.seed = str(seed)
        self.scheme = deal_named(deal)
        self.deal = deal
        if first_starter is None:
            first_starter = random.Random(f"{self.seed}:first").randrange(2)
        self.first_starter = first_starter
        self.scores = [0, 0]
        self.hands_won = [0, 0]
        self.results: list[HandResult] = []
        self.log: list[HandLog] = []
        self.outcome: MatchOutcome | None = None
        self.resigned: int | None = None
        self.hand: HandState = self._deal(first_starter)

    @property
    def hand_number(self) -> int:
        """The number of the hand in play (1 for the first)."""
        return len(self.log)

    @property
    def is_over(self) -> bool:
        """Whether the match has an outcome."""
        return self.outcome is not None

    @property
    def to_act(self) -> int | None:
        """The seat to act in the current hand, ``None`` once the match is over."""
        return None if self.is_over else self.hand.to_act

    def _deal(self, starter: int) -> HandState:
        number = len(self.log) + 1
        seed = self.scheme.hand_seed(self.seed, number)
        hand = deal_deck(self.rules, starter, self.scheme.deck(seed))
        hand.scores = (self.scores[0], self.scores[1])
        self.log.append(
            HandLog(
                number,
                starter,
                seed,
                (from_mask(hand.hands[0]), from_mask(hand.hands[1])),
                hand.upcard,
                hand.stock_order(),
                commitment=self.scheme.commitment(seed),
            )
        )
        return hand

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """The current hand's legal actions (none for a ``seat`` that is not to act)."""
        if self.is_over or (seat is not None and seat != self.hand.to_act):
            return []
        return self.hand.legal_actions()

    def apply(self, action: Action, seat: int | None = None) -> MatchState:
        """Play ``action`` in the current hand (checking it is ``seat``'s turn when given). When
        the hand ends its score is added, and either the match ends or the next hand is dealt.
        Errors are those of :meth:`HandState.apply` and leave the match unchanged."""
        if self.is_over:
            raise IllegalActionError("the match is over")
        acting = self.hand.to_act
        self.hand.apply(action, seat)
        assert acting is not None  # apply raised for a hand that is over
        self.log[-1].actions.append(_logged(acting, action))
        if self.hand.is_over:
            self._finish_hand()
        return self

    def _finish_hand(self) -> None:
        result = self.hand.result
        assert result is not None
        self.results.append(result)
        if result.winner is not None:
            self.scores[result.winner] += result.points
            self.hands_won[result.winner] += 1
            if self.scores[result.winner] >= self.rules.target:
                self._end(result.winner, "target")
                return
        self.hand = self._deal(self.rules.next_starter(self.hand.starter, result))

    def _end(self, winner: int, reason: str) -> None:
        scores = (self.scores[0], self.scores[1])
        if reason == "target":
            bonuses = self.rules.match_bonuses(scores, (self.hands_won[0], self.hands_won[1]), winner)
        else:
            bonuses = ((0, 0), (0, 0))  # a resignation earns no bonus
        self.outcome = MatchOutcome(
            winner, reason, (SeatTotal(scores[0], *bonuses[0]), SeatTotal(scores[1], *bonuses[1]))
        )

    def resign(self, seat: int, reason: str = "resign") -> None:
        """``seat`` forfeits (``reason``, one of :data:`FORFEITS`): the other seat wins the match
        (no bonuses are added)."""
        if self.is_over:
            raise IllegalActionError("the match is over")
        if reason not in FORFEITS:
            raise ValueError(f"a forfeit is one of {FORFEITS}")
        self.resigned = seat
        self._end(1 - seat, reason)

    def view(self, seat: int | None) -> MatchView:
        """What ``seat`` (``None``: a watcher) may see of the match and of the hand in play."""
        return _new_match_view(
            self.rules,
            seat,
            self.hand_number,
            (self.scores[0], self.scores[1]),
            (self.hands_won[0], self.hands_won[1]),
            self.hand.view(seat),
            tuple(self.results),
            self.outcome,
            self.log[-1].commitment,
        )

    # --- record and replay ----------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """Everything needed to rebuild the match: rules, seed, deal scheme, first starter,
        actions."""
        return {
            "rules": self.rules.name,
            "seed": self.seed,
            "deal": self.deal,
            "first_starter": self.first_starter,
            "actions": [[s, a.to_wire()] for log in self.log for s, a in log.actions],
            "resigned": self.resigned,
            "reason": None if self.outcome is None else self.outcome.reason,
        }

    @staticmethod
    def replay(record: dict[str, Any]) -> MatchState:
        """Rebuild a match from :meth:`record` (also after a JSON round trip).

        >>> m = new_match("house", seed=42)
        >>> _ = m.apply(m.legal_actions()[1]).apply(m.legal_actions()[1])  # both pass the upcard
        >>> again = MatchState.replay(m.record())
        >>> again.view(0) == m.view(0), again.hand.stock_order() == m.hand.stock_order()
        (True, True)
        """
        m = MatchState(
            rules_named(record["rules"]),
            record["seed"],
            record["first_starter"],
            record.get("deal", "legacy"),  # a record from before deal schemes was dealt so
        )
        for seat, wire in record["actions"]:
            m.apply(Action.from_wire(wire), seat)
        if record.get("resigned") is not None:
            m.resign(record["resigned"], record.get("reason") or "resign")
        return m


def new_match(
    rules: Rules | str, seed: int | str, first_starter: int | None = None, deal: str = DEFAULT_DEAL
) -> MatchState:
    """Start a match; ``rules`` is a preset or its name (``"house"``, ``"classic"``,
    ``"oklahoma"``). The seed decides every deal (and the first starter unless given): take it
    from ``secrets``. ``deal`` names the deal scheme (:data:`~server.rules.deals.DEALS`):
    ``"sha256"`` (verifiable; the default) or ``"legacy"`` (how matches were dealt before).

    >>> m = new_match("classic", seed="a seed", first_starter=1)
    >>> m.hand_number, m.to_act, m.scores, m.view(None).hand.stock_count
    (1, 1, [0, 0], 31)
    """
    return MatchState(rules_named(rules) if isinstance(rules, str) else rules, seed, first_starter, deal)


__all__ = [
    "DECK",
    "FORFEITS",
    "HandLog",
    "MatchOutcome",
    "MatchState",
    "MatchView",
    "SeatTotal",
    "new_match",
    "rules_named",
]
