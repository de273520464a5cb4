"""Glicko-2 figures checked by hand against Glickman's worked example ("Example of the Glicko-2
system", 2013, section 3) and against the formulas for one match between two new players."""

from __future__ import annotations

import math

import pytest

from server.service.glicko import Glicko, expected_score, rate, rate_match


def test_glickmans_worked_example():
    # A 1500 (RD 200, volatility 0.06) player beats 1400/30, loses to 1550/100 and 1700/300:
    # the paper gives 1464.06, RD 151.52, volatility 0.05999.
    after = rate(
        Glicko(1500, 200, 0.06), [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_two_new_players_one_match():
    # By hand: phi = 350/173.7178 = 2.014762, g(phi) = 1/sqrt(1 + 3 phi^2/pi^2) = 0.669069,
    # E = 0.5, v = 1/(g^2 E (1-E)) = 8.935475; the volatility barely moves (0.06 -> 0.0599997),
    # so phi* = sqrt(phi^2 + sigma'^2) = 2.015655 and phi' = 1/sqrt(1/phi*^2 + 1/v) = 1.671210:
    # RD 290.32; mu' = phi'^2 g (1 - E) = 0.934337: rating 1500 + 173.7178 mu' = 1662.31, and
    # the loser mirrors it (1337.69).
    winner, loser = rate_match(Glicko(), Glicko())
    assert winner.rating == pytest.approx(1662.31, abs=0.01)
    assert loser.rating == pytest.approx(1337.69, abs=0.01)
    assert winner.deviation == loser.deviation == pytest.approx(290.32, abs=0.01)
    assert winner.volatility == pytest.approx(0.06, abs=1e-5)


def test_an_upset_moves_more_than_an_expected_win():
    strong, weak = Glicko(1800, 80), Glicko(1400, 80)
    assert expected_score(strong, weak) > 0.9
    expected = rate_match(strong, weak)[0].rating - strong.rating
    upset = rate_match(weak, strong)[0].rating - weak.rating
    assert 0 < expected < upset


def test_the_volatility_step_uses_the_deviation_not_the_rating():
    # The package's own f() squares the rating where the paper has phi^2: with a player far
    # from 1500 its volatility would go wrong. Ours solves the paper's equation: check that the
    # new volatility is a root of f (the paper's step 5) for a 2100 player's surprising loss.
    player, opponent = Glicko(2100, 60, 0.06), Glicko(1300, 60)
    after = rate(player, [(opponent, 0.0)])
    phi, sigma, tau = 60 / 173.7178, 0.06, 0.5
    g = 1 / math.sqrt(1 + 3 * (60 / 173.7178) ** 2 / math.pi**2)
    e = 1 / (1 + math.exp(-g * (2100 - 1300) / 173.7178))
    v = 1 / (g * g * e * (1 - e))
    delta = v * g * (0 - e)
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    assert f(math.log(after.volatility**2)) == pytest.approx(0, abs=1e-5)
    assert after.volatility > 0.06  # a big surprise raises it
