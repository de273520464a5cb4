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
- ``style_feed`` (points; 0, off): adds that many points times the chance that the opponent
  can meld the card (:func:`feed_chances`, from the sampler's card probabilities) to MARJJ's
  score. ``close_weight`` (percent; 0, off): the ``strength_weight`` used once either seat is at
  most ``close_need`` (30) points from the target in ``house`` (:func:`strength_share`). Both
  were measured no better (issue 17's fifth round).
- ``playout_model`` (0, off): the playouts' opponent (1) or both seats (2) draw by MARJJ's rule
  and throw as a gin player (:func:`model_play_on`, :mod:`.rollout`).

Every guess is drawn from the bot's own seeded generator; it reads the seat's view only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.rules import SeatView

from . import handstrength
from .base import own_mask, taken_index
from .equity import knock_value
from .knowledge import Knowledge
from .rollout import marjj_playout
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
        weight_share=strength_share(bot, view),
        decay=bot.strength_decay,
    )
    if bot.style_feed:
        scored = {c: v + bot.style_feed * chance for c, v, chance in feed_chances(k, scored)}
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
    gin = bot.gin_seats(me)
    values: dict[tuple[str, int], float] = {}
    model = {0: 0, 1: 1 << (1 - me)}.get(bot.playout_model, 3)
    for c in simulate:
        rest = hand & ~(1 << c)
        total = 0.0
        for j, (opp_hand, stock) in enumerate(worlds):
            if len(stock) <= 2:  # a plain discard now ends the hand: dead, 0
                continue
            if model:
                net = model_play_on(view, rest, opp_hand, stock, [*k.pile, c], memo, opp_knock[j], model)
            else:
                net = play_on(view, rest, opp_hand, stock, [*k.pile, c], 1 - me, memo, opp_knock[j], gin)
            total += worth(net)
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


def model_play_on(
    view: SeatView,
    mine: int,
    theirs: int,
    stock: list[int],
    pile: list[int],
    memo: Memo,
    opp_knock: int,
    model: int,
) -> int:
    """Like :func:`.hard.play_on` (the opponent to draw next), with the seats in ``model``
    (bits) playing MARJJ's draw and a gin player's discard (:func:`.rollout.marjj_playout`)."""
    from .hard import with_box

    me = view.seat
    assert me is not None
    limit = view.knock_limit
    hands = [mine, theirs] if me == 0 else [theirs, mine]
    knock_at = (limit, opp_knock) if me == 0 else (opp_knock, limit)
    net = marjj_playout(
        hands, stock[::-1], pile, 1 - me, view.rules, limit, view.multiplier, knock_at, model, memo
    )
    return with_box(net if me == 0 else -net, view.rules.box_bonus)


def feed_chances(k: Knowledge, scored: dict[int, float]) -> list[tuple[int, float, float]]:
    """(card, score, chance that the opponent holds two cards making a meld with it) for each
    scored card, from the sampler's card probabilities (:func:`.hard.feed_chance`; a card the
    opponent is known to hold counts as held)."""
    from .hard import feed_chance

    p_opp = k.opp_holding()
    return [(c, v, feed_chance(c, p_opp)) for c, v in scored.items()]


def strength_share(bot: HardBot, view: SeatView) -> float:
    """The share of MARJJ's best-draws weight: ``strength_weight``, or ``close_weight`` when
    set, the match's target has no box bonus (``house``) and either seat is at most
    ``close_need`` points from the target (a won hand of any kind may end the match: ending
    the hand soon, with a knock, is worth more than the gin's points)."""
    me = view.seat
    if not bot.close_weight or view.rules.box_bonus or me is None:
        return bot.strength_weight
    target = view.rules.target
    if min(target - view.scores[me], target - view.scores[1 - me]) <= bot.close_need:
        return bot.close_weight
    return bot.strength_weight


def marjj_plus_take(view: SeatView) -> bool:
    """MARJJ's draw (:func:`.handstrength.takes`)."""
    return handstrength.takes(view)


__all__ = ["feed_chances", "marjj_plus_take", "marjj_plus_values", "model_play_on", "strength_share"]
