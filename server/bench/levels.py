"""The computer levels' published ratings: ``python -m server.bench levels RESULT... [--out FILE]``.

Each RESULT is ``A:B:WINS/MATCHES``, A's match wins against B from a tournament run
(``python -m server.bench tournament A B --matches N --seed S``). The ratings are the
maximum-likelihood fit of the logistic (Elo/Glicko) model, P(A beats B) = 1 / (1 + 10^((Rb -
Ra) / 400)), to all results at once, anchored so that Normal is 1500 (a new player's starting
rating); each level's deviation is the fit's standard error, doubled (about 95%). ``--out``
writes ``seeds/ratings.json`` with the results it came from.

A measurement tool: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

ANCHOR = ("normal", 1500.0)
_K = math.log(10) / 400


def fit(
    results: list[tuple[str, str, int, int]], iterations: int = 200
) -> tuple[dict[str, float], dict[str, float]]:
    """(rating, standard error) of every level in ``results``, Normal at 1500."""
    levels = sorted({x for a, b, _, _ in results for x in (a, b)})
    r = dict.fromkeys(levels, ANCHOR[1])
    for _ in range(iterations):
        # Newton steps on each free level in turn (the likelihood is concave in each).
        for lv in levels:
            if lv == ANCHOR[0]:
                continue
            grad = hess = 0.0
            for a, b, wins, n in results:
                if lv not in (a, b):
                    continue
                other, won = (b, wins) if lv == a else (a, n - wins)
                p = 1 / (1 + math.exp(-_K * (r[lv] - r[other])))
                grad += _K * (won - n * p)
                hess += _K * _K * n * p * (1 - p)
            if hess > 0:
                r[lv] += grad / hess
    se = {}
    for lv in levels:
        info = 0.0
        for a, b, _wins, n in results:
            if lv in (a, b):
                other = b if lv == a else a
                p = 1 / (1 + math.exp(-_K * (r[lv] - r[other])))
                info += _K * _K * n * p * (1 - p)
        se[lv] = 0.0 if lv == ANCHOR[0] else (1 / math.sqrt(info) if info else math.inf)
    return r, se


def _result(text: str) -> tuple[str, str, int, int]:
    a, b, score = text.split(":")
    wins, n = score.split("/")
    return a, b, int(wins), int(n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m server.bench levels", description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+", type=_result, metavar="A:B:WINS/MATCHES")
    ap.add_argument("--out", type=Path, default=None, help="write the ratings file (seeds/ratings.json)")
    ap.add_argument(
        "--command", action="append", default=[], help="a tournament command the results came from"
    )
    ns = ap.parse_args(argv)
    ratings, se = fit(ns.results)
    for lv, rating in sorted(ratings.items(), key=lambda kv: kv[1]):
        print(f"{lv:8} {rating:7.0f}  (± {2 * se[lv]:.0f})")
    if ns.out is not None:
        doc = {
            "about": "The computer levels' fixed published ratings on the players' Glicko-2 scale "
            "(Normal anchored at 1500, a new player's start). Matches against the computer are never "
            "rated; these show a player where they stand. Fitted by python -m server.bench levels "
            "(maximum likelihood, logistic model) from the tournament results below; deviation is "
            "twice the fit's standard error.",
            "levels": {
                lv: {"rating": round(ratings[lv]), "deviation": round(2 * se[lv])}
                for lv in sorted(ratings, key=lambda k: ratings[k])
            },
            "results": [{"a": a, "b": b, "a_wins": w, "matches": n} for a, b, w, n in ns.results],
            "commands": ns.command,
        }
        ns.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {ns.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
