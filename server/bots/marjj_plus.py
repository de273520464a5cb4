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

Every guess is drawn from the bot's own seeded generator; it reads the seat's view only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.rules import SeatView

from . import handstrength
from .base import own_mask, taken_index
from .knowledge import Knowledge
from .sim import Memo, own_turns, settle_points

if TYPE_CHECKING:
    from .hard import HardBot


def marjj_plus_values(
    bot: HardBot, view: SeatView
) -> tuple[dict[tuple[str, int], float], dict[int, float], dict[int, float]]:
    """The evaluation of a DISCARD decision in the shape of :meth:`.hard.HardBot.discard_values`
    (values in expected points, MARJJ's scores, undercut risk of the least-deadwood knocks)."""
    from .hard import play_on, with_box

    options = {c.index: dw for c, dw in view.discard_deadwood}
    least = min(options.values())
    limit = view.knock_limit
    taken = taken_index(view)
    legal = {c: dw for c, dw in options.items() if c != taken}
    hand = own_mask(view)
    k = Knowledge.from_view(view)
    memo = Memo()
    scored = handstrength.scores(
        view, legal, own_turns(view), k, memo, weight_share=bot.strength_weight, decay=bot.strength_decay
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
    for c in simulate:
        rest = hand & ~(1 << c)
        total = 0.0
        for j, (opp_hand, stock) in enumerate(worlds):
            if len(stock) > 2:  # else a plain discard now ends the hand: dead, 0
                total += worth(play_on(view, rest, opp_hand, stock, [*k.pile, c], 1 - me, memo, opp_knock[j]))
        values[("discard", c)] = total / n - bot.blend * (scored[c] - best)
    risk: dict[int, float] = {}
    if least <= limit:
        rules = view.rules
        for kc in (c for c, dw in options.items() if dw == least):
            left = hand & ~(1 << kc)
            points = [settle_points(left, opp_hand, rules, limit, view.multiplier) for opp_hand, _ in worlds]
            values[("knock", kc)] = (
                sum(worth(with_box(p, rules.box_bonus)) for p in points) / n + bot.knock_bias
            )
            risk[kc] = sum(p < 0 for p in points) / n
    return values, scored, risk


def marjj_plus_take(view: SeatView) -> bool:
    """MARJJ's draw (:func:`.handstrength.takes`)."""
    return handstrength.takes(view)


__all__ = ["marjj_plus_take", "marjj_plus_values"]
