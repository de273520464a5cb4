"""The rules engine's values as wire Structs: actions, events, seat views, results, records,
presets. Pure functions of their arguments; nothing here knows who is asking or says anything in
English (that is the transport's presentation).

The hot path is a seat's view, built after every action for every seat: the pieces that are
immutable values shared between views (actions, events, results, presets) are converted once
and remembered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter, itemgetter
from typing import Any, TypeVar

import msgspec

import server.rules as r
from server.rules import Action as RulesAction
from server.rules import Event as RulesEvent
from server.rules import HandLog, MatchOutcome, Rules, SeatView
from server.rules import HandResult as RulesHandResult
from server.rules.replay import melds_by_step

from . import messages as w

T = TypeVar("T")
K = TypeVar("K")

_MEMO_LIMIT = 8192


def _memo(convert: Callable[[K], T]) -> Callable[[K], T]:
    """Remember ``convert`` by the identity of its (immutable) argument. The argument is kept
    alive alongside its result, so its id cannot be reused for another object while remembered;
    the table is simply emptied when it grows past a bound (``memoized.table``: the remembered
    (argument, result) pairs by the argument's id)."""
    table: dict[int, tuple[Any, T]] = {}

    def memoized(value: K) -> T:
        hit = table.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        out = convert(value)
        if len(table) >= _MEMO_LIMIT:
            table.clear()
        table[id(value)] = (value, out)
        return out

    memoized.__wrapped__ = convert  # type: ignore[attr-defined]
    memoized.table = table  # type: ignore[attr-defined]
    return memoized


_code = attrgetter("code")
_second = itemgetter(1)


def _codes(cards: Iterable[Any]) -> list[str]:
    return list(map(_code, cards))


def _all(memoized: Callable[[K], T], values: Iterable[K]) -> list[T]:
    """``[memoized(v) for v in values]``, in C when every value is remembered already (a hand's
    history grows by one event a turn, so all but the newest are): this runs for every event of
    the hand on every view. The identity check is implied: a remembered value is kept alive, so
    no other object can have its id."""
    table = memoized.table  # type: ignore[attr-defined]
    try:
        return list(map(_second, map(table.__getitem__, map(id, values))))
    except KeyError:
        return [memoized(v) for v in values]


@_memo
def action(a: RulesAction) -> w.Action:
    match a:
        case r.TakeUpcard():
            return w.TakeUpcard()
        case r.Pass():
            return w.Pass()
        case r.Draw():
            return w.Draw(a.source)
        case r.Discard():
            return w.Discard(a.card.code)
        case r.Knock():
            return w.Knock(a.card.code)
    raise TypeError(f"not an action: {a!r}")


def to_rules_action(a: w.Action) -> dict[str, str]:
    """A wire action as the plain dict the service and the rules engine parse."""
    out: dict[str, str] = msgspec.to_builtins(a)
    return out


@_memo
def event(e: RulesEvent) -> w.Event:
    return w.Event(
        e.seat,
        e.kind,  # type: ignore[arg-type]
        msgspec.UNSET if e.source is None else e.source,
        msgspec.UNSET if e.card is None else e.card.code,
    )


@_memo
def hand_result(res: RulesHandResult) -> w.HandResult:
    return w.HandResult(
        kind=res.kind,
        winner=res.winner,
        points=res.points,
        knocker=res.knocker,
        deadwood=list(res.deadwood),
        hands=[_codes(h) for h in res.hands],
        melds=[[_codes(m.cards) for m in a.melds] for a in res.arrangements],
        unmatched=[_codes(a.unmatched) for a in res.arrangements],
        layoffs=[w.Layoff(lo.card.code, lo.meld) for lo in res.layoffs],
        breakdown=res.breakdown,
    )


@_memo
def rules_view(rules: Rules) -> w.RulesView:
    return w.RulesView(**{f: getattr(rules, f) for f in w.RulesView.__struct_fields__})


def rule_preset(rules: Rules) -> w.RulePreset:
    """A preset as ``GET /api/rules`` lists it: the view's numbers and its guide."""
    return w.RulePreset(**{f: getattr(rules, f) for f in w.RulePreset.__struct_fields__})


_NO_ACTIONS: list[w.Action] = []

_pile_codes = _memo(_codes)
"""A discard pile's codes: the rules give every view of one moment the same pile (a tuple, made
again only when the pile changes), so each seat's view shares the one list."""


def hand_view(
    v: SeatView,
    *,
    playable: bool = True,
    deal_commitment: str | None = None,
    timed_out: frozenset[int] = frozenset(),
    history: Any = None,
) -> w.HandView:
    """A seat's view of the hand. ``playable=False`` (a match waiting for its second player, or
    over) offers nothing: no legal action and no discard's deadwood. ``deal_commitment`` is the
    match's commitment to this hand's seed (:attr:`server.rules.MatchView.deal_commitment`).
    ``history``: the hand's events already converted, as a list or as their JSON encoding (a
    ``msgspec.Raw``, which msgspec writes as it is); else converted here, marking the
    ``timed_out`` ones."""
    arr = v.arrangement
    cards = _codes(v.hand)
    return w.HandView(
        seat=v.seat,
        starter=v.starter,
        dealer=v.dealer,
        phase=v.phase,
        to_act=v.to_act,
        cards=cards,
        hand=cards,  # the v1 name of "cards": the same list
        melds=[_codes(m.cards) for m in arr.melds] if arr else [],
        deadwood=arr.deadwood if arr else None,
        hand_counts=list(v.hand_counts),
        stock_count=v.stock_count,
        discard_pile=_pile_codes(v.discard_pile),
        history=_history(v.history, timed_out) if history is None else history,
        legal_actions=_all(action, v.legal_actions) if playable else _NO_ACTIONS,
        result=hand_result(v.result) if v.result is not None else None,
        knock_limit=v.knock_limit,
        discard_deadwood={c.code: dw for c, dw in v.discard_deadwood} if playable else {},
        multiplier=v.multiplier,
        deal_commitment=deal_commitment,
    )


def events(history: tuple[RulesEvent, ...]) -> list[w.Event]:
    """A hand's events, in order."""
    return _all(event, history)


def _history(history: tuple[RulesEvent, ...], timed_out: frozenset[int]) -> list[w.Event]:
    out = events(history)
    for i in timed_out:
        if i < len(out):
            out[i] = _timed_out(out[i])
    return out


def outcome(o: MatchOutcome | dict[str, Any] | None) -> w.Outcome | None:
    """A match's outcome, from the rules' value or from its stored form."""
    if o is None:
        return None
    if isinstance(o, dict):
        return msgspec.convert(o, w.Outcome)
    return w.Outcome(
        o.winner,
        o.reason,  # type: ignore[arg-type]
        [w.SeatTotal(t.points, t.box_bonus, t.game_bonus, t.total) for t in o.totals],
    )


def finished_hand(number: int, starter: int, result: dict[str, Any]) -> w.FinishedHand:
    """A stored hand result (its wire form, as kept in the database) with its number and starter."""
    return msgspec.convert({**result, "number": number, "starter": starter}, w.FinishedHand)


def _timed_out(e: w.Event) -> w.Event:
    return msgspec.structs.replace(e, timed_out=True)


def hand_record(
    log: HandLog,
    result: RulesHandResult | None,
    timed_out: frozenset[int] = frozenset(),
    rules: Rules | None = None,
    seat: int | None = None,
) -> w.HandRecord:
    """One hand of a record, for the player in ``seat``. A hand the rules finished (``result``)
    is shown whole: both dealt hands, the stock, its seed. A hand left unfinished (by a
    resignation, a forfeit) never reveals what the rules did not: only ``seat``'s own dealt hand
    and melds, no stock, no seed. ``timed_out``: the places in the hand's actions of the moves
    the server played for a seat out of time. With ``rules``, each step's melds for the replay."""
    over = result is not None
    steps = melds_by_step(rules, log) if rules is not None else []
    return w.HandRecord(
        number=log.number,
        starter=log.starter,
        seed=log.seed if over else None,
        hands=[_codes(h) if over or s == seat else None for s, h in enumerate(log.hands)],
        upcard=log.upcard.code,
        stock=_codes(log.stock) if over else None,
        actions=[
            w.RecordedAction(s, action(a), True if i in timed_out else msgspec.UNSET)
            for i, (s, a) in enumerate(log.actions)
        ],
        result=hand_result(result) if result is not None else None,
        deal_commitment=log.commitment,
        melds_by_step=[
            [[_codes(m.cards) for m in melds] if over or s == seat else [] for s, melds in enumerate(step)]
            for step in steps
        ],
    )
