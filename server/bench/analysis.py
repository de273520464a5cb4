"""Explained play's precision and cost: ``python -m server.bench analysis [--level easy]
[--matches 4] [--worlds 16] [--reference 256]``.

Plays ``--matches`` matches of ``--level`` (seat 0) against Hard on the house rules (seeded
``--seed``0, 1, ...), then analyses every decision of seat 0 in the finished hands twice, side
by side: as before stop 51 (every value on ``--worlds`` guesses) and as now (a decision that
differs from Hard's choice has both actions valued again on ``RECHECK`` times the worlds). Each
differing decision's loss is also measured on ``--reference`` guesses of their own (another
seed), the yardstick: a mistake by it is one losing at least ``MISTAKE`` points there.

Prints, for each way: CPU per decision, the mistakes flagged (right, wrong and missed against
the yardstick) and the points lost per hand (the yardstick's beside them). Then the books, as
now: what the deals were worth, less seat 0's losses, plus Hard's (from its own view), beside
the points seat 0 scored, a hand on average, with that average's standard error (many hands
make it small). A measurement tool: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field

from server.bots import make_bot
from server.bots.analysis import (
    MISTAKE,
    RECHECK,
    action_values,
    analyse_hand,
    evaluate,
    match_scores,
    seat_decisions,
)
from server.rules import RULES
from server.rules.match import MatchState


@dataclass
class Way:
    """One way of analysing: its CPU, its losses on the differing decisions."""

    name: str
    cpu: float = 0.0
    losses: list[float] = field(default_factory=list)


def _match(level: str, seed: str, n: int) -> MatchState:
    m = MatchState(RULES["house"], seed=seed)
    bots = [make_bot(level, n), make_bot("hard", n)]
    while not m.is_over:
        s = m.to_act
        assert s is not None
        m.apply(bots[s].choose(m.hand.view(s)), s)
    return m


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m server.bench analysis", description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", default="easy", help="the analysed seat's level (against Hard)")
    ap.add_argument("--matches", type=int, default=4)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--reference", type=int, default=256, help="guesses of the yardstick")
    ap.add_argument("--seed", default="seed")
    args = ap.parse_args(argv)
    before, now = Way(f"{args.worlds} worlds"), Way(f"{args.worlds}, rechecked on {args.worlds * RECHECK}")
    reference: list[float] = []
    books: list[tuple[float, float]] = []  # each hand: (luck - lost + opponent_lost, points)
    decisions = hands = 0
    for n in range(args.matches):
        m = _match(args.level, f"{args.seed}{n}", n)
        scores = match_scores(m)
        for h, (log, result) in enumerate(zip(m.log, m.results, strict=False)):
            hands += 1
            start = time.process_time()
            mine = analyse_hand(m.rules, log, 0, scores[h], worlds=args.worlds)  # as now
            now.cpu += time.process_time() - start
            theirs = analyse_hand(m.rules, log, 1, scores[h], worlds=args.worlds)
            books.append((mine.start_value - mine.lost + theirs.lost, result.points_for(0)))
            for checked, (step, view, played) in zip(
                mine.decisions, seat_decisions(m.rules, log, 0, scores[h]), strict=True
            ):
                decisions += 1
                start = time.process_time()
                plain = evaluate(view, played, worlds=args.worlds, step=step, recheck=False)  # as before
                before.cpu += time.process_time() - start
                if played == plain.best:
                    continue
                before.losses.append(plain.loss)
                now.losses.append(checked.loss)
                ref = action_values(view, args.reference, (plain.best, played), salt="analysis-reference")
                reference.append(max(0.0, ref[plain.best] - ref[played]))
    truth = [r >= MISTAKE for r in reference]
    print(
        f"{args.level} against Hard: {args.matches} matches, {hands} hands, {decisions} decisions, "
        f"{len(reference)} unlike Hard's; yardstick: {args.reference} worlds, "
        f"{sum(truth)} mistakes, {sum(reference) / hands:.1f} points lost a hand"
    )
    print(
        f"{'way':<28} {'ms/decision':>11} {'flagged':>8} {'right':>6} {'wrong':>6} {'missed':>7} {'lost/hand':>10}"
    )
    for way in (before, now):
        flags = [loss >= MISTAKE for loss in way.losses]
        right = sum(f and t for f, t in zip(flags, truth, strict=True))
        print(
            f"{way.name:<28} {way.cpu / decisions * 1000:>11.1f} {sum(flags):>8} {right:>6} "
            f"{sum(flags) - right:>6} {sum(truth) - right:>7} {sum(way.losses) / hands:>10.1f}"
        )
    scored = [p for _, p in books]
    error = statistics.stdev(scored) / len(scored) ** 0.5 if len(scored) > 1 else 0.0
    print(
        f"books, a hand: deals - losses + Hard's losses = {sum(b for b, _ in books) / hands:+.1f}; "
        f"scored {sum(scored) / hands:+.1f} (standard error {error:.1f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
