"""One rule, one place: the Hard difficulty's fast simulation (:mod:`server.bots.rollout`) and the
rules engine play the same seeded hands, every preset, and must agree on every result.

Each deal is played twice: by :func:`~server.bots.rollout.play_hand` on masks, and on a real
:class:`~server.rules.HandState` driven by the same greedy policy (the sim's own helpers choose
the engine's actions, and the engine checks each is legal). Each seat knocks at a random
deadwood within the hand's own limit, so knocks, gins, undercuts and dead hands all occur.

Two greedy players can also swap a few cards through the discard pile without end; the engine
ends such a hand dead at its turn limit, and the simulation must find the same dead hands.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from server.bots.rollout import UPCARD, PlayoutSettings, play_hand
from server.bots.sim import Memo, deadwood, greedy_discard, greedy_take, settle_points
from server.rules import RULES, Discard, Draw, Knock, Pass, Phase, ResultKind, Source, TakeUpcard, deal
from server.rules.cards import DECK
from server.rules.hand import TURN_LIMIT
from server.rules.melds import discard_deadwoods, min_deadwood
from server.rules.settle import settle_knock

HANDS_PER_PRESET = 1000


def engine_result(h, knock_at: tuple[int, int]) -> tuple[ResultKind, int | None, int]:
    """Play ``h`` to its end with the simulation's greedy policy, through the engine."""
    limit = h.knock_limit
    memo = Memo()
    while not h.is_over:
        s = h.to_act
        mine = h.hands[s]
        if h.phase is Phase.UPCARD:
            action = TakeUpcard() if greedy_take(mine, h.discard_pile[-1], limit, memo) else Pass()
        elif h.phase is Phase.DRAW:
            take = not h.stock_only and greedy_take(mine, h.discard_pile[-1], limit, memo)
            action = Draw(Source.DISCARD if take else Source.STOCK)
        else:
            card, dw = greedy_discard(mine, h.taken, memo)
            action = (Knock if dw <= knock_at[s] or dw == 0 else Discard)(DECK[card])
        h.apply(action, s)  # raises if the policy's action is not legal in the engine
    r = h.result
    return r.kind, r.winner, r.points


def sim_result(h, knock_at: tuple[int, int]) -> tuple[ResultKind, int | None, int]:
    """Play the same deal on masks with the simulation; its result in the engine's terms."""
    hands = list(h.hands)
    knocker, net = play_hand(
        hands,
        list(h.stock),
        list(h.discard_pile),
        h.to_act,
        UPCARD,
        -1,
        knock_at,
        PlayoutSettings(h.rules, h.knock_limit, h.multiplier, starter=h.starter),
        Memo(),
    )
    if knocker < 0:
        return ResultKind.DEAD, None, 0
    if deadwood(hands[knocker]) == 0:
        return ResultKind.GIN, knocker, net
    if net > 0:
        return ResultKind.KNOCK, knocker, net
    return ResultKind.UNDERCUT, 1 - knocker, -net


def test_the_simulation_and_the_engine_agree_on_every_hand_of_every_preset() -> None:
    kinds: Counter = Counter()
    for name, rules in RULES.items():
        rng = random.Random(f"differential:{name}")
        for n in range(HANDS_PER_PRESET):
            h = deal(rules, starter=n % 2, seed=f"differential:{name}:{n}")
            limit = h.knock_limit
            knock_at = (rng.randint(0, limit), rng.randint(0, limit))
            expected = sim_result(h, knock_at)
            got = engine_result(h, knock_at)
            assert got == expected, (name, n, knock_at)
            kinds[name, expected[0], h.multiplier] += 1
            kinds["turn limit"] += h.turns >= TURN_LIMIT
    for name in RULES:
        assert all(kinds[name, kind, 1] for kind in ResultKind), kinds
    assert all(kinds["oklahoma", kind, 2] for kind in ResultKind), kinds
    assert kinds["turn limit"] > 0, "no hand reached the turn limit: that rule went untested"


@pytest.mark.parametrize("name", list(RULES))
def test_the_simulations_settlement_scores_every_knock_as_the_engine_does(name: str) -> None:
    rules = RULES[name]
    rng = random.Random(name)
    checked = 0
    while checked < 400:
        cards = rng.sample(range(52), 27)
        knocker = 0
        for i in cards[:10]:
            knocker |= 1 << i
        # a knocker's hand: the best ten of sixteen cards, thrown one by one as a player would
        for extra in cards[10:16]:
            knocker |= 1 << extra
            options = discard_deadwoods(knocker)
            knocker &= ~(1 << min(options, key=options.__getitem__))
        defender = 0
        for i in cards[16:26]:
            defender |= 1 << i
        upcard = DECK[cards[26]]
        limit, multiplier = rules.hand_knock_limit(upcard), rules.hand_multiplier(upcard)
        if min_deadwood(knocker) > limit:
            continue
        r = settle_knock(rules, 0, (knocker, defender), limit, multiplier)
        assert settle_points(knocker, defender, rules, limit, multiplier) == (
            r.points if r.winner == 0 else -r.points
        )
        checked += 1
