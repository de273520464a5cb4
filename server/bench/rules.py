"""``python -m server.bench rules``: the rules engine's speed beside OpenSpiel and RLCard.

Two measurements, each on one workload shared by every engine in the same run:

1. Deadwood of random 10-card hands per second: ours on masks (``melds.min_deadwood``) and on
   cards (``deadwood()`` of :class:`Card` lists) against OpenSpiel's C++
   ``GinRummyUtils.min_deadwood`` (called from Python, one hand per call, like ours).
2. Whole hands of uniformly random legal play per second: ours (``deal`` + ``legal_actions`` +
   ``apply``, every action checked) against OpenSpiel's ``gin_rummy`` driven from Python (chance
   nodes sampled uniformly) and RLCard's ``GinRummyGame`` (its judge's legal actions).

The engines take turns in short slices until the time budget is spent, so a machine shared with
other work slows them alike, and each is timed in CPU seconds of this process. Targets (issue 2): (1) at least 0.25x OpenSpiel's C++; (2) at least
1.5x OpenSpiel and 10x RLCard. OpenSpiel and RLCard are test-only dependencies; a missing one is
reported and skipped. This prints figures; it is not a test and asserts nothing (``--check``
turns a missed target into exit status 1).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from server.rules import DECK, RULES, deal
from server.rules.cards import to_mask
from server.rules.melds import deadwood, min_deadwood

Runner = Callable[[int], int]
"""Does one batch of work starting at workload item ``i``; returns the units done."""


@dataclass
class Engine:
    name: str
    run: Runner
    units: int = 0
    seconds: float = 0.0
    position: int = 0
    actions: int = 0

    @property
    def rate(self) -> float:
        return self.units / self.seconds if self.seconds else 0.0


# CPU time of this process, not wall time: on a machine shared with other work (CI, the other
# engineers' test runs) waiting for a core would otherwise count against whichever engine was
# running. Every engine here is single-threaded.
clock = time.process_time


def race(engines: list[Engine], budget: float, slice_seconds: float = 0.25) -> None:
    """Alternate the engines in slices until each has had ``budget`` seconds of CPU time."""
    while any(e.seconds < budget for e in engines):
        for e in engines:
            if e.seconds >= budget:
                continue
            start = clock()
            stop = start + min(slice_seconds, budget - e.seconds)
            now = start
            while now < stop:
                done = e.run(e.position)
                e.position += done
                e.units += done
                now = clock()
            e.seconds += now - start


# --- (1) deadwood ------------------------------------------------------------------------------


def deadwood_engines(n_hands: int, seed: int, batch: int = 500) -> list[Engine]:
    rng = random.Random(seed)
    hands = [rng.sample(range(52), 10) for _ in range(n_hands)]
    masks = [to_mask(DECK[i] for i in h) for h in hands]
    card_lists = [[DECK[i] for i in h] for h in hands]

    def ours_masks(i: int) -> int:
        for m in masks[i % n_hands : i % n_hands + batch]:
            min_deadwood(m)
        return len(masks[i % n_hands : i % n_hands + batch])

    def ours_cards(i: int) -> int:
        for cs in card_lists[i % n_hands : i % n_hands + batch]:
            deadwood(cs)
        return len(card_lists[i % n_hands : i % n_hands + batch])

    engines = [
        Engine("ours: melds.min_deadwood(mask)", ours_masks),
        Engine("ours: deadwood(cards)", ours_cards),
    ]
    try:
        from pyspiel.gin_rummy import GinRummyUtils
    except ImportError:
        print("  (OpenSpiel is not installed: pip install -e '.[test]')")
        return engines
    utils = GinRummyUtils(13, 4, 10)
    os_int = {utils.card_string(j): j for j in range(52)}  # its ints are suit-major, suits s c d h
    to_os = [os_int[c.code] for c in DECK]
    os_hands = [[to_os[i] for i in h] for h in hands]
    for h, m in zip(os_hands[:200], masks[:200]):  # same workload, same answers
        assert utils.min_deadwood(h) == min_deadwood(m)
    os_min_deadwood = utils.min_deadwood

    def openspiel(i: int) -> int:
        for h in os_hands[i % n_hands : i % n_hands + batch]:
            os_min_deadwood(h)
        return len(os_hands[i % n_hands : i % n_hands + batch])

    engines.append(Engine("OpenSpiel C++ min_deadwood", openspiel))
    return engines


# --- (2) whole hands of random play -------------------------------------------------------------


def hand_engines(seed: int) -> list[Engine]:
    engines: list[Engine] = []
    rules = RULES["house"]
    ours_rng = random.Random(seed)

    def ours(i: int) -> int:
        h = deal(rules, i & 1, seed * 1_000_003 + i)
        choice = ours_rng.choice
        n = 0
        while not h.is_over:
            h.apply(choice(h.legal_actions()))
            n += 1
        engines[0].actions += n
        return 1

    engines.append(Engine("ours: deal + legal_actions + apply", ours))

    try:
        import pyspiel
    except ImportError:
        print("  (OpenSpiel is not installed: pip install -e '.[test]')")
    else:
        game = pyspiel.load_game("gin_rummy")
        os_rng = random.Random(seed)
        os_engine = Engine("OpenSpiel gin_rummy (from Python)", lambda i: 0)

        def openspiel(i: int) -> int:
            s = game.new_initial_state()
            choice = os_rng.choice
            n = 0
            while not s.is_terminal():
                if s.is_chance_node():
                    s.apply_action(choice(s.chance_outcomes())[0])  # uniform over the cards left
                else:
                    s.apply_action(choice(s.legal_actions()))
                    n += 1
            os_engine.actions += n
            return 1

        os_engine.run = openspiel
        engines.append(os_engine)

    try:
        import numpy as np
        from rlcard.games.gin_rummy.game import GinRummyGame
    except ImportError:
        print("  (RLCard is not installed: pip install -e '.[bench]')")
    else:
        rl_game = GinRummyGame()
        rl_game.np_random = np.random.RandomState(seed)
        rl_rng = random.Random(seed)
        rl_engine = Engine("RLCard GinRummyGame", lambda i: 0)

        def rlcard(i: int) -> int:
            rl_game.init_game()
            choice = rl_rng.choice
            n = 0
            while not rl_game.is_over():
                rl_game.step(choice(rl_game.judge.get_legal_actions()))
                n += 1
            rl_engine.actions += n
            return 1

        rl_engine.run = rlcard
        engines.append(rl_engine)
    return engines


# --- report ------------------------------------------------------------------------------------


def verdict(ratio: float, target: float) -> str:
    return f"{ratio:6.2f}x  (target >= {target:g}x: {'met' if ratio >= target else 'MISSED'})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m server.bench rules", description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=30.0, help="total time budget (default 30)")
    p.add_argument("--share", type=float, default=0.3, help="part of the budget for deadwood (default 0.3)")
    p.add_argument(
        "--hands", type=int, default=100_000, help="distinct random 10-card hands (default 100000)"
    )
    p.add_argument("--seed", type=int, default=1, help="workload seed (default 1)")
    p.add_argument("--only", choices=["deadwood", "hands"], help="run one measurement only")
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = p.parse_args(argv)

    missed = False
    run_deadwood = args.only in (None, "deadwood")
    run_hands = args.only in (None, "hands")
    share = args.share if run_deadwood and run_hands else 1.0
    print(f"python -m server.bench rules: {args.seconds:g} s budget, seed {args.seed}")

    if run_deadwood:
        print(f"\n(1) deadwood of random 10-card hands ({args.hands} hands, the same list for every engine)")
        engines = deadwood_engines(args.hands, args.seed)
        race(engines, args.seconds * share / len(engines))
        base = next((e for e in engines if e.name.startswith("OpenSpiel")), None)
        for e in engines:
            line = f"  {e.name:<38} {e.rate:>12,.0f} hands/s"
            if base is not None and e is not base:
                line += "   vs OpenSpiel C++: " + verdict(e.rate / base.rate, 0.25)
                missed |= e.rate / base.rate < 0.25
            print(line)

    if run_hands:
        print("\n(2) whole hands of uniformly random legal play (each engine deals its own seeded hands)")
        engines = hand_engines(args.seed)
        race(engines, args.seconds * (1 - share if run_deadwood else 1.0) / len(engines))
        ours = engines[0]
        for e in engines:
            actions = e.actions / e.units if e.units else 0
            print(f"  {e.name:<38} {e.rate:>12,.1f} hands/s  ({e.units} hands, {actions:.0f} actions/hand)")
        targets = {"OpenSpiel": 1.5, "RLCard": 10.0}
        for e in engines[1:]:
            short = e.name.split(" ")[0]
            print(f"  ours vs {short:<31}" + verdict(ours.rate / e.rate, targets[short]))
            missed |= ours.rate / e.rate < targets[short]

    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    raise SystemExit(main())
