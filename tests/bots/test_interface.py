"""The bots' contract with the service: the factory, views only, legal actions, determinism."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from server.bots import DIFFICULTIES, make_bot
from server.bots.base import view_key
from server.rules import RULES, Card, Event, HandState, Phase, SeatView, deal
from server.rules.cards import DECK
from tests.wire_forms import wire

SMALL_HARD = {"worlds": 2, "candidates": 2, "lookahead": 0}


def bot(difficulty: str, seed: int | str = 0):
    return make_bot(difficulty, seed, **(SMALL_HARD if difficulty == "hard" else {}))


def test_make_bot_builds_every_difficulty_and_rejects_unknown_ones() -> None:
    for difficulty in DIFFICULTIES:
        assert make_bot(difficulty, 1).difficulty == difficulty
    with pytest.raises(ValueError, match="unknown difficulty"):
        make_bot("expert", 1)
    with pytest.raises(TypeError):
        make_bot("easy", 1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_a_bot_refuses_anything_but_a_seat_view(difficulty: str) -> None:
    hand = deal(RULES["house"], starter=0, seed=1)
    with pytest.raises(TypeError, match="SeatView"):
        bot(difficulty).choose(hand)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        bot(difficulty).choose(wire(hand.view(0)))  # type: ignore[arg-type]


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_a_bot_refuses_to_act_out_of_turn_or_as_a_watcher(difficulty: str) -> None:
    hand = deal(RULES["house"], starter=0, seed=1)
    with pytest.raises(ValueError, match="no legal action"):
        bot(difficulty).choose(hand.view(1))
    with pytest.raises(ValueError, match="no legal action"):
        bot(difficulty).choose(hand.view(None))


def _cards_in(value: object) -> set[Card]:
    """Every card reachable from a view's fields (recursively through tuples and dataclasses)."""
    out: set[Card] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Card):
            out.add(v)
        elif isinstance(v, tuple | list):
            stack.extend(v)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        elif isinstance(v, HandState):
            raise AssertionError("a hand state reached a bot")
    return out


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_bots_receive_only_a_seat_view_holding_no_hidden_card(difficulty: str) -> None:
    """Spy on every call: the argument is exactly a SeatView, and every card it holds is the
    bot's own or public (the discard pile and cards named in the public history)."""
    for seed in range(30):
        hand = deal(RULES["house"], starter=seed % 2, seed=f"spy:{seed}")
        bots = [bot(difficulty, seed), bot("normal", seed)]
        while not hand.is_over:
            seat = hand.to_act
            view = hand.view(seat)
            if seat == 0:
                assert type(view) is SeatView
                opponent = set(hand.hand(1))
                stock = set(hand.stock_order())
                public = set(view.discard_pile) | {e.card for e in view.history if e.card is not None}
                own = set(view.hand)
                cards = _cards_in(view)
                assert cards <= own | public
                # what the opponent holds is visible only if it was public (taken from the pile)
                assert not (cards & opponent) - public
                assert not cards & stock
            hand.apply(bots[seat].choose(view), seat)


def _turns(rules: str, prefix: str, hands: int, seeds: tuple[int, int]) -> Iterator[HandState]:
    """Each turn of ``hands`` seeded hands Normal (seeded ``seeds[0]``) and Easy play against
    each other, the hand as it stands before the seat to act chooses."""
    for seed in range(hands):
        hand = deal(RULES[rules], starter=seed % 2, seed=f"{prefix}:{seed}")
        players = [bot("normal", seeds[0]), bot("easy", seeds[1])]
        while not hand.is_over:
            yield hand
            hand.apply(players[hand.to_act].choose(hand.view(hand.to_act)))


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_same_seed_and_view_give_the_same_action_in_any_order(difficulty: str) -> None:
    views = [hand.view(hand.to_act) for hand in _turns("classic", "det", 12, (7, 8))]
    first = [bot(difficulty, 42).choose(v) for v in views]
    again = bot(difficulty, 42)
    shuffled = list(range(len(views)))
    random.Random(3).shuffle(shuffled)
    by_index = {i: again.choose(views[i]) for i in shuffled}
    assert [by_index[i] for i in range(len(views))] == first
    for v, a in zip(views, first, strict=True):
        assert a in v.legal_actions


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_a_bot_chooses_the_same_without_the_arrangement_the_computer_is_not_given(difficulty: str) -> None:
    # The service hands the computer ``view(seat, arranged=False)``: its cards in card order, no
    # layout. Every choice must be the one the arranged view gets.
    pairs = [
        (h.view(h.to_act), h.view(h.to_act, arranged=False)) for h in _turns("house", "plain", 8, (3, 4))
    ]
    chosen = [(bot(difficulty, 9).choose(full), bot(difficulty, 9).choose(plain)) for full, plain in pairs]
    assert all(a == b for a, b in chosen)
    assert any(full.hand != plain.hand for full, plain in pairs)  # the order did differ


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_a_bot_holds_no_generator_between_its_decisions(difficulty: str) -> None:
    # A bot is kept for every live match against the computer: a generator's 2.5 KB each.
    hand = deal(RULES["house"], starter=0, seed="idle")
    player = bot(difficulty, 5)
    player.choose(hand.view(hand.to_act))
    assert player._rng is None


def test_a_generator_is_made_only_for_a_decision_that_draws_from_it_and_seeded_as_before(monkeypatch) -> None:
    # Seeding from the view's text costs more than most decisions: Normal's draws never draw,
    # its discards only to break a tie (two cards of a rank, say).
    made: list[tuple[object, ...]] = []

    class Counting(random.Random):
        def __init__(self, *args: object) -> None:
            made.append(args)
            super().__init__(*args)

    monkeypatch.setattr(random, "Random", Counting)
    seeded = {"discard": 0, "plain discard": 0}
    for seed in range(40):
        hand = deal(RULES["house"], starter=seed % 2, seed=f"ties:{seed}")
        players = [bot("normal", "a"), bot("normal", "b")]
        while not hand.is_over:
            view, before = hand.view(hand.to_act), len(made)
            hand.apply(players[hand.to_act].choose(view))
            if view.phase is not Phase.DISCARD:
                assert len(made) == before
            elif len(made) == before:
                seeded["plain discard"] += 1
            else:
                assert made[before:] == [(f"normal:{'ab'[view.seat]}:{view_key(view)}",)]
                seeded["discard"] += 1
    assert seeded["discard"] and seeded["plain discard"] > seeded["discard"], seeded


def test_different_seeds_may_differ_but_never_leave_the_legal_actions() -> None:
    hand = deal(RULES["house"], starter=0, seed="seeds")
    hand.apply(hand.legal_actions()[1])  # pass
    hand.apply(hand.legal_actions()[1])
    hand.apply(hand.legal_actions()[0])  # draw from the stock
    view = hand.view(0)
    for difficulty in DIFFICULTIES:
        for seed in range(10):
            assert bot(difficulty, seed).choose(view) in view.legal_actions


def test_a_view_event_names_a_card_only_when_it_was_public() -> None:
    # A draw from the stock never names its card, so history cannot leak the stock.
    hand = deal(RULES["house"], starter=0, seed=3)
    hand.apply(hand.legal_actions()[1]).apply(hand.legal_actions()[1]).apply(hand.legal_actions()[0])
    draws = [e for e in hand.view(1).history if e.kind == "draw"]
    assert draws == [Event(0, "draw", None, draws[0].source)]
    assert len(DECK) == 52
