"""A ladder pair's result and a pairing's paired result with its confidence interval. Pure.

A pair is two matches with the seats swapped (between references, one seed played twice, so
the luck of the deal cancels within it): its result for ``a`` is ``a``'s match wins over the two (score 1, 0.5 or 0) and ``a``'s
points over both (net: its scores minus the opponent's). Pairs are independent; the two
matches of one pair are not, so the interval is over pairs: the mean paired score plus or minus
1.96 standard errors (a normal approximation, clipped to 0..1; with one pair it is 0..1).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from .ladder_ports import LadderPair
from .ports import MatchMeta

Z95 = 1.96


@dataclass(frozen=True, slots=True)
class PairResult:
    wins: int
    points: int
    score: float


def pair_result(first: MatchMeta, second: MatchMeta) -> PairResult | None:
    """``a``'s result over a pair's two finished matches (``a`` sits in seat 0 of ``first`` and
    seat 1 of ``second``); None while either is not finished.

    >>> from types import SimpleNamespace as M
    >>> pair_result(M(status="finished", winner=0, scores=[120, 30]), M(status="finished", winner=0, scores=[110, 60]))
    PairResult(wins=1, points=40, score=0.5)
    """
    if first.status != "finished" or second.status != "finished":
        return None
    wins = int(first.winner == 0) + int(second.winner == 1)
    points = (first.scores[0] - first.scores[1]) + (second.scores[1] - second.scores[0])
    return PairResult(wins, points, wins / 2)


@dataclass(frozen=True, slots=True)
class Pairing:
    """``player``'s paired results against ``opponent``: ``pairs`` finished pairs, the mean
    score with its 95% interval, and the mean net points per pair with its interval."""

    player_id: str
    opponent_id: str
    pairs: int
    score: float
    score_low: float
    score_high: float
    points: float
    points_low: float | None
    points_high: float | None
    """None with a single pair (no spread to estimate)."""


def _interval(xs: list[float], low: float, high: float) -> tuple[float, float, float]:
    mean = statistics.fmean(xs)
    if len(xs) < 2:
        return mean, low, high
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs))
    return mean, max(low, mean - half), min(high, mean + half)


def pairings(player_id: str, pairs: list[LadderPair]) -> list[Pairing]:
    """``player_id``'s paired result against each opponent of its finished ``pairs``, most
    pairs first.

    >>> from datetime import datetime, UTC
    >>> t = datetime(2026, 1, 1, tzinfo=UTC)
    >>> ps = [LadderPair(str(i), "x", "y", "house", ("m", "n"), "finished", t, t, w, p, w / 2)
    ...       for i, (w, p) in enumerate([(2, 90), (1, 10), (1, -20), (2, 70)])]
    >>> [(p.opponent_id, p.pairs, p.score, round(p.score_low, 3), round(p.score_high, 3)) for p in pairings("y", ps)]
    [('x', 4, 0.25, 0.0, 0.533)]
    """
    by_opponent: dict[str, list[tuple[float, float]]] = {}
    for p in pairs:
        if p.status != "finished" or p.score is None or p.points is None or player_id not in (p.a, p.b):
            continue
        mine = p.a == player_id
        score, points = (p.score, p.points) if mine else (1 - p.score, -p.points)
        by_opponent.setdefault(p.b if mine else p.a, []).append((score, float(points)))
    out = []
    for opponent, results in by_opponent.items():
        s, s_lo, s_hi = _interval([r[0] for r in results], 0.0, 1.0)
        pts, lo, hi = _interval([r[1] for r in results], -math.inf, math.inf)
        p_lo, p_hi = (lo, hi) if len(results) > 1 else (None, None)
        out.append(Pairing(player_id, opponent, len(results), s, s_lo, s_hi, pts, p_lo, p_hi))
    out.sort(key=lambda p: (-p.pairs, p.opponent_id))
    return out
