"""Bot tournament: ``python -m server.bench tournament A B [options]``.

Plays matches between two of ``easy``, ``normal``, ``hard``, ``simple`` (OpenSpiel's
``SimpleGinRummyBot``, from the test-only ``open-spiel`` package) and ``marjj`` (a MARJJ-style
player that plays for gin after its first turns, :mod:`.marjj`) and prints A's match win rate
with a 95% Wilson interval, net points per hand, hand outcomes and each player's decision time
p50/p99.

Fairness: matches come in pairs with the same seed (so the same deals, hand by hand) and the
seats swapped; the first starter alternates from pair to pair. ``--rules both`` plays each pair
in ``house`` and in ``classic``, ``--rules all`` in every preset (``oklahoma`` too). Work is spread over at most two processes.

The OpenSpiel bot plays through a lockstep adapter: an OpenSpiel ``gin_rummy`` state is dealt the
same cards (its player 0 is our starter) and every action of the hand, both seats', is mirrored
into it, stock draws as the chance outcome of the card our engine drew; the real C++ bot then
steps on that state and its action is translated back. Our rules differ from OpenSpiel's in one
way the bot can hit: it may want to discard the card it just took from the discard pile (legal
there, not here); the adapter then plays its next-best legal card and counts a deviation. The
harness alone holds the full state (it is the referee); our bots still get only views.

This is a measurement script: it prints figures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from server.bots import DIFFICULTIES, make_bot
from server.rules import (
    RULES,
    Action,
    Discard,
    Draw,
    HandState,
    Knock,
    Pass,
    Phase,
    ResultKind,
    Source,
    TakeUpcard,
    new_match,
)
from server.rules.cards import DECK, VALUES, Card

from .marjj import MarjjStyle

PLAYERS = (*DIFFICULTIES, "simple", "marjj")
"""Who can play: the difficulties, OpenSpiel's simple bot and the MARJJ-style benchmark player
(:mod:`.marjj`; not a difficulty)."""


def make_player(name: str, seed: str, hard_options: dict[str, int]) -> Any:
    """A bot for one seat (not the OpenSpiel bot, which plays from the full hand)."""
    if name == "marjj":
        return MarjjStyle(seed)
    return make_bot(name, seed, **(hard_options if name == "hard" else {}))


# OpenSpiel's card index: suit-major in suit order s c d h; ours: c d h s.
_OS_SUIT = {0: 1, 1: 2, 2: 3, 3: 0}
OS_INDEX = tuple(_OS_SUIT[c.suit] * 13 + c.rank - 1 for c in DECK)
FROM_OS = {v: i for i, v in enumerate(OS_INDEX)}
OS_DRAW_UPCARD, OS_DRAW_STOCK, OS_PASS, OS_KNOCK = 52, 53, 54, 55


class OpenSpielSimple:
    """OpenSpiel's simple bot, playing one seat of our hands through a mirrored pyspiel state."""

    def __init__(self) -> None:
        import pyspiel  # test-only dependency, imported only when this baseline plays

        self._pyspiel = pyspiel
        self.game = pyspiel.load_game("gin_rummy")
        self.deviations = 0
        self.seat = 0
        self.state: Any = None
        self.bot: Any = None

    def new_hand(self, hand: HandState, seat: int) -> None:
        self.seat = seat
        player = 0 if seat == hand.starter else 1
        self.bot = self._pyspiel.make_simple_gin_rummy_bot(self.game.get_parameters(), player)
        st = self.game.new_initial_state()
        for s in (hand.starter, hand.dealer):
            for c in hand.hand(s):
                st.apply_action(OS_INDEX[c.index])
        st.apply_action(OS_INDEX[hand.upcard.index])
        self.state = st

    def mirror(self, action: Action, drawn: int | None) -> None:
        """Apply to the pyspiel state an action just applied to ours (either seat's)."""
        st = self.state
        if st is None or st.is_terminal():
            return
        match action:
            case TakeUpcard():
                st.apply_action(OS_DRAW_UPCARD)
            case Pass():
                st.apply_action(OS_PASS)
            case Draw(source=Source.DISCARD):
                st.apply_action(OS_DRAW_UPCARD)
            case Draw():
                assert drawn is not None
                st.apply_action(OS_DRAW_STOCK)
                st.apply_action(OS_INDEX[drawn])
            case Discard(card=card):
                st.apply_action(OS_INDEX[card.index])
            case Knock():
                self.state = None  # the hand is over

    def choose(self, hand: HandState) -> Action:
        st = self.state
        legal = hand.legal_actions()
        a = self.bot.step(st)
        if hand.phase is Phase.UPCARD:
            return TakeUpcard() if a == OS_DRAW_UPCARD else Pass()
        if hand.phase is Phase.DRAW:
            return Draw(Source.DISCARD) if a == OS_DRAW_UPCARD else Draw(Source.STOCK)
        options = hand.knock_options()
        if a == OS_KNOCK:
            probe = st.clone()
            probe.apply_action(OS_KNOCK)
            card = DECK[FROM_OS[self.bot.step(probe)]]
            if Knock(card) in legal:
                return Knock(card)
            self.deviations += 1
            self.bot.restart()  # forget the knock it planned; the state was not touched
            knocks = [x for x in legal if isinstance(x, Knock)]
            if knocks:
                return min(knocks, key=lambda k: (options[k.card], -VALUES[k.card.index], -k.card.rank))
            return _highest_useless(options)
        card = DECK[FROM_OS[a]]
        if Discard(card) in legal:
            return Discard(card)
        self.deviations += 1
        return _highest_useless(options)


def _highest_useless(options: dict[Card, int]) -> Discard:
    card = min(options, key=lambda c: (options[c], -VALUES[c.index], -c.rank))
    return Discard(card)


@dataclass
class MatchResult:
    winner_is_a: bool
    hands: int
    net_points_a: int
    a_times: list[float] = field(default_factory=list)
    b_times: list[float] = field(default_factory=list)
    a_cpu: list[float] = field(default_factory=list)
    b_cpu: list[float] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    """Hand outcomes from A's side: gin/knock/undercut won or lost, dead."""
    deviations: int = 0


def play_match(args: tuple[str, str, str, str, int, int, dict[str, int]]) -> MatchResult:
    """One match; A sits in ``a_seat``. Runs in a worker process."""
    a_name, b_name, rules, seed, first_starter, a_seat, hard_options = args
    names = {a_seat: a_name, 1 - a_seat: b_name}
    players: dict[int, Any] = {}
    for owner, name in names.items():
        if name == "simple":
            players[owner] = OpenSpielSimple()
        else:
            players[owner] = make_player(name, f"{seed}:{owner}:{name}", hard_options)
    simple = [p for p in players.values() if isinstance(p, OpenSpielSimple)]
    match = new_match(RULES[rules], seed, first_starter)
    times: dict[int, list[float]] = {0: [], 1: []}
    cpu: dict[int, list[float]] = {0: [], 1: []}
    kinds: dict[str, int] = {}
    hand_no = 0
    while not match.is_over:
        if match.hand_number != hand_no:
            hand_no = match.hand_number
            for owner, p in players.items():
                if isinstance(p, OpenSpielSimple):
                    p.new_hand(match.hand, owner)
        hand = match.hand
        seat = hand.to_act
        assert seat is not None  # the match, so its hand, is not over
        p = players[seat]
        view = None if isinstance(p, OpenSpielSimple) else hand.view(seat)
        t, c = time.perf_counter(), time.thread_time()
        action = p.choose(hand) if view is None else p.choose(view)
        times[seat].append(time.perf_counter() - t)
        cpu[seat].append(time.thread_time() - c)
        before = hand.hands[seat]
        results = len(match.results)
        match.apply(action, seat)
        drawn = None
        if isinstance(action, Draw) and action.source is Source.STOCK:
            drawn = (hand.hands[seat] & ~before).bit_length() - 1
        for s in simple:
            s.mirror(action, drawn)
        if len(match.results) > results:
            r = match.results[-1]
            if r.kind is ResultKind.DEAD:
                key = "dead"
            else:
                side = "won" if r.winner == a_seat else "lost"
                key = f"{r.kind.value} {side}"
            kinds[key] = kinds.get(key, 0) + 1
    assert match.outcome is not None
    net = match.scores[a_seat] - match.scores[1 - a_seat]
    return MatchResult(
        winner_is_a=match.outcome.winner == a_seat,
        hands=len(match.results),
        net_points_a=net,
        a_times=times[a_seat],
        b_times=times[1 - a_seat],
        a_cpu=cpu[a_seat],
        b_cpu=cpu[1 - a_seat],
        kinds=kinds,
        deviations=sum(s.deviations for s in simple),
    )


def play_deal(args: tuple[str, str, str, str, int, dict[str, int]]) -> tuple[int, int, list[float]]:
    """One deal played twice, seats swapped: A's net points over both (hand-level duplicate)."""
    a_name, b_name, rules, seed, starter, hard_options = args
    from server.rules import deal

    total = 0
    a_times: list[float] = []
    for a_seat in (0, 1):
        hand = deal(RULES[rules], starter, seed)
        names = {a_seat: a_name, 1 - a_seat: b_name}
        players: dict[int, Any] = {}
        for owner, name in names.items():
            if name == "simple":
                players[owner] = OpenSpielSimple()
                players[owner].new_hand(hand, owner)
            else:
                players[owner] = make_player(name, f"{seed}:{owner}:{name}", hard_options)
        simple = [p for p in players.values() if isinstance(p, OpenSpielSimple)]
        while not hand.is_over:
            seat = hand.to_act
            assert seat is not None  # the hand is not over
            p = players[seat]
            view = None if isinstance(p, OpenSpielSimple) else hand.view(seat)
            t = time.perf_counter()
            action = p.choose(hand) if view is None else p.choose(view)
            if seat == a_seat:
                a_times.append(time.perf_counter() - t)
            before = hand.hands[seat]
            hand.apply(action, seat)
            drawn = None
            if isinstance(action, Draw) and action.source is Source.STOCK:
                drawn = (hand.hands[seat] & ~before).bit_length() - 1
            for sp in simple:
                sp.mirror(action, drawn)
        r = hand.result
        assert r is not None
        total += r.points_for(a_seat)
    return total, 2, a_times


def run_deals(ns: argparse.Namespace, hard_options: dict[str, int], workers: int) -> None:
    for rules in presets_of(ns.rules):
        _run_deals(ns, rules, hard_options, workers)


def presets_of(choice: str) -> tuple[str, ...]:
    """The presets ``--rules`` names: one, ``both`` (house and classic) or ``all``."""
    if choice == "both":
        return ("house", "classic")
    return tuple(RULES) if choice == "all" else (choice,)


def _run_deals(ns: argparse.Namespace, rules: str, hard_options: dict[str, int], workers: int) -> None:
    jobs = [(ns.a, ns.b, rules, f"{ns.seed}:deal:{i}", i % 2, hard_options) for i in range(ns.deals)]
    started = time.perf_counter()
    nets: list[int] = []
    times: list[float] = []
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for net, _, ts in pool.imap_unordered(play_deal, jobs):
            nets.append(net)
            times.extend(ts)
    mean = statistics.fmean(nets) / 2
    se = statistics.stdev(nets) / 2 / math.sqrt(len(nets)) if len(nets) > 1 else float("nan")
    print(
        f"[{rules}] {len(nets)} deals x 2 seats: {ns.a} net points per hand {mean:+.2f} "
        f"(standard error {se:.2f}), {time.perf_counter() - started:.1f} s; "
        f"{ns.a} decision p50 {statistics.median(times) * 1e3:.2f} ms p99 {percentile(times, 0.99) * 1e3:.2f} ms"
    )


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(q * len(xs)) - 1)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m server.bench tournament", description=__doc__.split("\n")[0])
    ap.add_argument("a", choices=PLAYERS, help="player A (its win rate is reported)")
    ap.add_argument("b", choices=PLAYERS, help="player B")
    ap.add_argument(
        "--matches", type=int, default=100, help="matches per rules variant (rounded up to pairs)"
    )
    ap.add_argument("--rules", choices=(*RULES, "both", "all"), default="house")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (at most 2)")
    ap.add_argument("--seed", default="tournament", help="base seed of the deals")
    ap.add_argument("--max-seconds", type=float, default=None, help="stop starting matches after this")
    ap.add_argument("--hard-worlds", type=int, default=None, help="Hard's sampled worlds per decision")
    ap.add_argument("--hard-candidates", type=int, default=None, help="Hard's simulated candidates")
    ap.add_argument(
        "--deals",
        type=int,
        default=0,
        help="instead of matches, play this many single deals twice (seats swapped) and report "
        "net points per hand with its standard error (a quicker, lower-variance strength check)",
    )
    ap.add_argument(
        "--hard-option", action="append", default=[], metavar="NAME=INT", help="other Hard option"
    )
    ns = ap.parse_args(argv)
    workers = max(1, min(2, ns.workers))
    hard_options = {}
    if ns.hard_worlds is not None:
        hard_options["worlds"] = ns.hard_worlds
    if ns.hard_candidates is not None:
        hard_options["candidates"] = ns.hard_candidates
    for item in ns.hard_option:
        name, _, value = item.partition("=")
        hard_options[name] = int(value)
    if ns.deals:
        run_deals(ns, hard_options, workers)
        return 0
    variants = presets_of(ns.rules)
    pairs = (ns.matches + 1) // 2
    print(
        f"{ns.a} vs {ns.b}: {pairs * 2} matches per variant ({pairs} deal sequences, seats swapped), "
        f"{workers} worker(s), seed {ns.seed!r}, hard options {hard_options or 'default'}"
    )
    exit_code = 0
    for rules in variants:
        jobs = []
        for i in range(pairs):
            seed = f"{ns.seed}:{rules}:{i}"
            for a_seat in (0, 1):
                jobs.append((ns.a, ns.b, rules, seed, i % 2, a_seat, hard_options))
        started = time.perf_counter()
        results: list[MatchResult] = []
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for r in pool.imap_unordered(play_match, jobs):
                results.append(r)
                if ns.max_seconds is not None and time.perf_counter() - started > ns.max_seconds:
                    pool.terminate()
                    break
        elapsed = time.perf_counter() - started
        report(ns.a, ns.b, rules, results, elapsed)
    return exit_code


def report(a: str, b: str, rules: str, results: list[MatchResult], elapsed: float) -> None:
    n = len(results)
    wins = sum(r.winner_is_a for r in results)
    lo, hi = wilson(wins, n)
    hands = sum(r.hands for r in results)
    net = sum(r.net_points_a for r in results)
    kinds: dict[str, int] = {}
    for r in results:
        for k, v in r.kinds.items():
            kinds[k] = kinds.get(k, 0) + v
    a_times = [t for r in results for t in r.a_times]
    b_times = [t for r in results for t in r.b_times]
    print(f"\n[{rules}] {n} matches, {hands} hands, {elapsed:.1f} s")
    if n:
        print(f"  {a} match win rate: {wins / n:.1%}  (95% CI {lo:.1%} .. {hi:.1%}; {wins}/{n})")
        print(f"  {a} net points per hand: {net / max(hands, 1):+.2f}")
    print("  hands (from A's side): " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    a_cpu = [t for r in results for t in r.a_cpu]
    b_cpu = [t for r in results for t in r.b_cpu]
    # Wall time includes waiting for a core (other processes share the machine); CPU time is
    # what the decision itself costs.
    for name, ts, cs in ((a, a_times, a_cpu), (b, b_times, b_cpu)):
        if ts:
            print(
                f"  {name} decision time ({len(ts)} decisions): wall p50 {statistics.median(ts) * 1e3:.2f} ms, "
                f"p99 {percentile(ts, 0.99) * 1e3:.2f} ms, max {max(ts) * 1e3:.2f} ms; "
                f"CPU p50 {statistics.median(cs) * 1e3:.2f} ms, p99 {percentile(cs, 0.99) * 1e3:.2f} ms"
            )
    dev = sum(r.deviations for r in results)
    if "simple" in (a, b):
        print(f"  OpenSpiel adapter deviations (its choice illegal under our rules): {dev}")
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
