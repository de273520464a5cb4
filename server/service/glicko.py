"""Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013) for one finished match, through
the ``glicko2`` package (PyPI).

Each rated match is its own rating period for its two players: both are rated on that one
result from the ratings they had before it (so the order two matches finish in matters only to
the players they share). A new player starts at 1500, deviation 350, volatility 0.06; the system
constant tau is the package's 0.5. Deviation does not grow with time away (no periods without
play are applied): documented in docs/protocol.md. Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import glicko2  # type: ignore[import-untyped]  # (no type hints)

START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
_SCALE = 173.7178
"""Glicko-2's internal scale: rating = 1500 + 173.7178 * mu."""


@dataclass(frozen=True, slots=True)
class Glicko:
    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY


class _Player(glicko2.Player):  # type: ignore[misc]
    """The package's player with step 5's function f as the paper has it: the package uses the
    rating (mu) where the paper has the deviation (phi) in f, which moves the new volatility of
    any player not rated exactly 1500. This one override corrects it; everything else is the
    package's."""

    def _f(self, x: float, delta: float, v: float, a: float) -> float:
        phi2: float = (self.rd / _SCALE) ** 2
        ex = math.exp(x)
        return ex * (delta**2 - phi2 - v - ex) / (2 * (phi2 + v + ex) ** 2) - (x - a) / float(self._tau) ** 2


def rate(player: Glicko, opponents: list[tuple[Glicko, float]]) -> Glicko:
    """``player``'s rating after one period of games against ``opponents`` (each with the score:
    1 a win, 0 a loss, 0.5 a draw)."""
    p = _Player(rating=player.rating, rd=player.deviation, vol=player.volatility)
    p.update_player(
        [o.rating for o, _ in opponents], [o.deviation for o, _ in opponents], [s for _, s in opponents]
    )
    return Glicko(float(p.rating), float(p.rd), float(p.vol))


def rate_match(winner: Glicko, loser: Glicko) -> tuple[Glicko, Glicko]:
    """Both players' ratings after one match, each from the other's rating before it."""
    return rate(winner, [(loser, 1.0)]), rate(loser, [(winner, 0.0)])


def expected_score(player: Glicko, opponent: Glicko) -> float:
    """The chance ``player`` beats ``opponent`` (Glicko-2's E, with the opponent's deviation)."""
    phi = opponent.deviation / _SCALE
    g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
    return 1 / (1 + math.exp(-g * (player.rating - opponent.rating) / _SCALE))
