"""Match equity: the chance of winning a match to a target from a score, for Hard's
``match_equity`` option (``house`` only, where just the match counts).

A hand is modelled as won by either seat with the same chance and scoring the points of
:data:`HAND_POINTS` (measured: Hard against the MARJJ-style player, house rules), a dead hand as replayed at
the same score. :func:`win_chance` is then the exact chance, under that model, that the seat
needing ``mine`` points reaches them before the one needing ``theirs``. :func:`equity_worth`
turns a hand's points into the change of that chance, scaled so that at the start of a match
a point is worth about a point (:data:`SCALE_POINTS`): a knock decision valued that way plays
for the match, not for the points (points past the target are worth nothing; a few points the
opponent needs weigh more than many it does not).

Everything here is a function of the scores only: it reads no cards. :func:`knock_value` is
Hard's value of a knock from its sampled settlements, with or without this.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .hard import HardBot

HAND_POINTS: tuple[tuple[int, float], ...] = (
    (3, 0.091), (8, 0.058), (13, 0.044), (18, 0.044), (23, 0.073), (28, 0.290), (33, 0.181),
    (38, 0.109), (43, 0.041), (48, 0.033), (53, 0.013), (58, 0.012), (62, 0.008), (68, 0.003),
    (78, 0.001), (81, 0.001),
)  # fmt: skip
"""(points of the hand's winner, share of the hands won not dead): Hard's defaults against the
MARJJ-style player in 780 single house hands (760 not dead; 389 gins, 350 knocks, 41
undercuts), the points grouped by fives (each group at its mean)."""

SCALE_POINTS = 20
"""The scale: at 0-0 of a match to the target, winning this many points changes the value by
about that many points."""


_TOTAL = sum(share for _, share in HAND_POINTS)
_POINTS = tuple((pts, share / _TOTAL) for pts, share in HAND_POINTS)


@cache
def _table(size: int) -> tuple[tuple[float, ...], ...]:
    """``w[a][b]``: the chance that the seat needing ``a`` points (1..size) wins before the one
    needing ``b``; index 0 is unused."""
    w = [[0.0] * (size + 1) for _ in range(size + 1)]
    for a in range(1, size + 1):
        row = w[a]
        for b in range(1, size + 1):
            total = 0.0
            for pts, share in _POINTS:
                mine = 1.0 if pts >= a else w[a - pts][b]
                theirs = 0.0 if pts >= b else row[b - pts]
                total += share * (mine + theirs)
            row[b] = total / 2
    return tuple(tuple(r) for r in w)


def win_chance(mine: int, theirs: int) -> float:
    """The chance of winning the match for the seat needing ``mine`` points against one needing
    ``theirs`` (either at most 0: the match is over)."""
    if mine <= 0:
        return 1.0
    if theirs <= 0:
        return 0.0
    size = max(100, -(-max(mine, theirs) // 50) * 50)
    return _table(size)[mine][theirs]


def equity_worth(mine: int, theirs: int, target: int) -> Callable[[int], float]:
    """What a hand's points (for this seat; negative: for the opponent) are worth, as the
    change of the match's win chance, scaled by :data:`SCALE_POINTS` at ``target``-``target``."""
    now = win_chance(mine, theirs)
    step = win_chance(target - SCALE_POINTS, target) - win_chance(target, target)
    scale = SCALE_POINTS / step if step > 0 else 1.0

    def worth(points: int) -> float:
        if points >= 0:
            return scale * (win_chance(mine - points, theirs) - now)
        return scale * (win_chance(mine, theirs + points) - now)

    return worth


def knock_value(bot: HardBot, points: list[int], box_bonus: int, worth: Callable[[int], float]) -> float:
    """A knock's value from its settlements against the sampled hands (``points``, for the
    knocker): their mean worth plus ``knock_bias``; with ``match_equity`` the bias moves each
    settlement's points instead (a won knock never below 0), so a knock that wins the match in
    every sample loses nothing by it."""
    from .hard import with_box

    n = len(points)
    bias = bot.knock_bias
    if bot.match_equity:
        shifted = (with_box(p, box_bonus) for p in points)
        return sum(worth(max(0, x + bias) if x > 0 else x + bias) for x in shifted) / n
    return sum(worth(with_box(p, box_bonus)) for p in points) / n + bias


__all__ = ["HAND_POINTS", "SCALE_POINTS", "equity_worth", "knock_value", "win_chance"]
