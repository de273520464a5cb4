"""Hard's ``discard_style=1``: MARJJ's own draws and discards, plus what simulation adds.

If Hard drew and discarded as the MARJJ-style player does (:mod:`.handstrength`: its pickup rule,
its candidate discards and its hand-strength score, ``danger`` included), it would play that
player to an even match by symmetry. On top of that rule:

- The knock, after Hard's first ``early_knock`` turns (within them it knocks at once, as MARJJ
  does), is weighed by simulation instead of never being made: its value is the exact
  settlement against each sampled opponent hand (layoffs and undercuts), the value of playing
  on is the playouts of the rest of the hand after MARJJ's discard (:func:`.hard.play_on`, with
  the opponent of :meth:`.hard.HardBot.opp_knock_at`: a gin-holder where its guessed hand could
  have knocked and did not); the better one is played (``knock_bias`` is added to the knock,
  ``knock_risk`` and ``knock_cap`` work as in the default style).
- ``strength_weight`` (percent, 100): the share of MARJJ's weight on the best draws in the
  score (lower: plays less for gin, more for a low deadwood); ``strength_decay`` (percent, 90,
  MARJJ's): that weight's factor for every turn after the first.
- ``tie_band`` (points of MARJJ's score; 0, off): the candidates within that much of MARJJ's
  best (at most ``candidates`` of them) are played out on the same samples, and the best value
  less ``blend``/100 times its score gap to the best is thrown.
- ``playout_model`` (0, off): the playouts' opponent (1) or both seats (2) draw by MARJJ's rule
  and throw as a gin player (:func:`model_settings`, :mod:`.rollout`); ``playout_knock`` and
  ``late_knock`` set when each seat knocks in them (:func:`knock_windows`).

Every guess is drawn from the bot's own seeded generator; it reads the seat's view only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from server.rules import Phase, SeatView

from . import handstrength
from .base import own_mask, taken_index, top_of_pile
from .knowledge import Knowledge
from .rollout import ALWAYS, PlayoutSettings
from .sim import Memo, own_turns, settle_points

if TYPE_CHECKING:
    from .hard import HardBot


def marjj_plus_values(
    bot: HardBot, view: SeatView
) -> tuple[dict[tuple[str, int], float], dict[int, float], dict[int, float]]:
    """The evaluation of a DISCARD decision in the shape of :meth:`.hard.HardBot.discard_values`
    (values in expected points, MARJJ's scores, undercut risk of the least-deadwood knocks)."""
    from .hard import play_on

    options = {c.index: dw for c, dw in view.discard_deadwood}
    least = min(options.values())
    limit = view.knock_limit
    taken = taken_index(view)
    legal = {c: dw for c, dw in options.items() if c != taken}
    hand = own_mask(view)
    k = Knowledge.from_view(view)
    memo = Memo()
    scored = handstrength.scores(
        view,
        legal,
        own_turns(view),
        k,
        memo,
        weight_share=bot.strength_weight,
        decay=bot.strength_decay,
    )
    best = min(scored.values())
    tied = sorted(c for c, s in scored.items() if s == best)
    choice = tied[bot.rng.randrange(len(tied))] if len(tied) > 1 else tied[0]
    simulate = [choice]
    if bot.tie_band:
        near = sorted(
            (c for c in scored if c != choice and scored[c] <= best + bot.tie_band), key=scored.__getitem__
        )
        simulate += near[: bot.candidates - 1]
    if least > limit and len(simulate) == 1:
        return {("discard", choice): 0.0}, scored, {}
    worlds = bot.sample_worlds(view, k, bot.worlds)
    me = view.seat
    assert me is not None
    opp_knock = bot.opp_knock_at(len(k.opp_discards), worlds, limit, memo)
    worth = bot.worth(view)
    n = len(worlds)
    values: dict[tuple[str, int], float] = {}
    model = {0: 0, 1: 1 << (1 - me)}.get(bot.playout_model, 3)
    if model:
        settings = model_settings(bot, view, model, len(k.opp_discards))
    else:
        settings = PlayoutSettings(view.rules, limit, view.multiplier, gin_seats=bot.gin_seats(me))
    for c in simulate:
        rest = hand & ~(1 << c)
        total = 0.0
        for j, (opp_hand, stock) in enumerate(worlds):
            if len(stock) <= 2:  # a plain discard now ends the hand: dead, 0
                continue
            total += worth(play_on(me, rest, opp_hand, stock, [*k.pile, c], opp_knock[j], settings, memo))
        values[("discard", c)] = total / n - bot.blend * (scored[c] - best)
    risk: dict[int, float] = {}
    if least <= limit:
        rules = view.rules
        for kc in (c for c, dw in options.items() if dw == least):
            left = hand & ~(1 << kc)
            points = [settle_points(left, opp_hand, rules, limit, view.multiplier) for opp_hand, _ in worlds]
            values[("knock", kc)] = knock_value(bot, points, rules.box_bonus, worth)
            risk[kc] = sum(p < 0 for p in points) / n
    return values, scored, risk


def model_settings(bot: HardBot, view: SeatView, model: int, opp_discards: int) -> PlayoutSettings:
    """The settings of a decision's playouts with the seats in ``model`` (bits) playing MARJJ's
    draw and a gin player's discard (:mod:`.rollout`), each seat knocking at its knock deadwood
    only in its window of :func:`knock_windows` and at its late knock after it."""
    me = view.seat
    assert me is not None
    own_turns_left, own_late, opp_turns_left, opp_late = knock_windows(bot, view, opp_discards)
    turns = (own_turns_left, opp_turns_left) if me == 0 else (opp_turns_left, own_turns_left)
    late = (own_late, opp_late) if me == 0 else (opp_late, own_late)
    return PlayoutSettings(
        view.rules,
        view.knock_limit,
        view.multiplier,
        gin_seats=model,
        marjj=model,
        knock_turns=turns,
        late_at=late,
    )


def knock_windows(bot: HardBot, view: SeatView, opp_discards: int) -> tuple[int, int, int, int]:
    """How long each seat knocks at its knock deadwood in the playouts of ``playout_knock``, and
    at what after that: (own turns, own late knock, opponent's turns, opponent's late knock).
    Bit 1: the opponent knocks only in what is left of its first ``opp_gin_after`` turns of the
    hand, then only with gin (MARJJ); bit 2: Hard's own seat only in what is left of its
    ``early_knock`` turns, then at ``late_knock`` deadwood or less (0: gin only)."""
    own, own_late, opp, opp_late = ALWAYS[0], 0, ALWAYS[0], 0
    if bot.playout_knock & 1 and opp_discards < bot.opp_gin_after:
        opp = bot.opp_gin_after - opp_discards
    if bot.playout_knock & 2:
        own, own_late = max(0, bot.early_knock - own_turns(view)), bot.late_knock
    return own, own_late, opp, opp_late


def knock_value(bot: HardBot, points: list[int], box_bonus: int, worth: Callable[[int], float]) -> float:
    """A knock's value from its settlements against the sampled hands (``points``, for the
    knocker): their mean worth plus ``knock_bias``."""
    from .hard import with_box

    return sum(worth(with_box(p, box_bonus)) for p in points) / len(points) + bot.knock_bias


def marjj_plus_take(view: SeatView) -> bool:
    """MARJJ's draw (:func:`.handstrength.takes`)."""
    return handstrength.takes(view)


def searched_take(bot: HardBot, view: SeatView) -> bool:
    """``draw_search``: MARJJ's draw, unless the playouts of ``playout_model`` (both seats as
    MARJJ; the same worlds for both choices) find the other choice better by more than
    ``draw_margin`` points. Only a draw from the stock or the pile (not the first upcard), and
    only when the card could meld with the hand or MARJJ's rule takes it."""
    from .hard import near_mask, play_on

    rule = handstrength.takes(view)
    top = top_of_pile(view)
    hand = own_mask(view)
    if view.phase is not Phase.DRAW or not (rule or near_mask(hand) >> top & 1):
        return rule
    k = Knowledge.from_view(view)
    memo = Memo()
    worlds = bot.sample_worlds(view, k, bot.worlds)
    me = view.seat
    assert me is not None
    opp_knock = bot.opp_knock_at(len(k.opp_discards), worlds, view.knock_limit, memo)
    worth = bot.worth(view)
    model = {0: 3, 1: 1 << (1 - me)}.get(bot.playout_model, 3)
    settings = model_settings(bot, view, model, len(k.opp_discards))
    gain = 0.0  # of taking over drawing from the stock
    for j, (opp_hand, stock) in enumerate(worlds):
        if len(stock) <= 2:
            continue
        for first, sign in ((1, 1.0), (2, -1.0)):
            net = play_on(me, hand, opp_hand, stock, list(k.pile), opp_knock[j], settings, memo, first)
            gain += sign * worth(net)
    gain /= len(worlds)
    if rule:
        return gain > -bot.draw_margin
    return gain > bot.draw_margin


__all__ = [
    "knock_value",
    "knock_windows",
    "marjj_plus_take",
    "marjj_plus_values",
    "model_settings",
    "searched_take",
]
