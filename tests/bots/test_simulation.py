"""The Hard difficulty's machinery: card tracking, sampling of hidden cards, fast settlement."""

from __future__ import annotations

import random

from server.bots.knowledge import Knowledge, meld_partners
from server.bots.rollout import UPCARD, PlayoutSettings, play_hand
from server.bots.sim import Memo, deadwood, live_connections, settle_points, thrown_card
from server.rules import RULES, Card, deal
from server.rules.cards import DECK, parse_cards, to_mask
from server.rules.melds import discard_deadwoods, min_deadwood
from server.rules.settle import settle_knock

from . import scenarios


def test_fast_settlement_scores_every_knock_as_the_rules_do() -> None:
    rng = random.Random(5)
    checked = 0
    while checked < 400:
        cards = rng.sample(range(52), 26)
        # a knocker's hand: the best ten of sixteen cards, thrown one by one as a player would
        knocker = to_mask(DECK[i] for i in cards[:10])
        for extra in cards[10:16]:
            knocker |= 1 << extra
            options = discard_deadwoods(knocker)
            knocker &= ~(1 << min(options, key=options.__getitem__))
        defender = to_mask(DECK[i] for i in cards[16:])
        if min_deadwood(knocker) > 10:
            continue
        result = settle_knock(RULES["house"], 0, (knocker, defender), 10)
        expected = result.points if result.winner == 0 else -result.points
        assert settle_points(knocker, defender, RULES["house"], 10, 1) == expected
        checked += 1


def test_guide_example_knocker_8_defender_5_after_layoffs_is_minus_28_for_the_knocker() -> None:
    knocker = to_mask(parse_cards("2c 3c 4c 5h 5d 5s 7c 8c 9c 8d"))
    defender = to_mask(parse_cards("Qs Qd Qc Jh Th 9h 4s As 5c Tc"))
    assert settle_points(knocker, defender, RULES["house"], 10, 1) == -28


def test_knowledge_tracks_the_opponents_pickups_and_discards() -> None:
    state = scenarios.undercut_risk()
    k = Knowledge.from_view(state.view(1))
    codes = lambda idx: {DECK[i].code for i in idx}  # noqa: E731
    assert codes(i for i in range(52) if k.opp_known >> i & 1) == {"5c", "9h", "Qd"}
    assert codes(k.opp_discards) == {"Kc", "Kh", "8h", "4h"}
    assert "3h" in codes(k.opp_declined)  # it passed the upcard
    assert k.opp_count == 10 and k.opp_unknown_count == 7
    assert k.unseen.bit_count() == k.stock_count + k.opp_unknown_count


def test_sampled_hidden_cards_are_consistent_with_the_view() -> None:
    rng = random.Random(1)
    for seed in range(20):
        hand = deal(RULES["house"], starter=seed % 2, seed=f"sample:{seed}")
        moves = rng.randrange(0, 20)
        for _ in range(moves):
            if hand.is_over:
                break
            hand.apply(rng.choice(hand.legal_actions()))
        if hand.is_over:
            continue
        seat = hand.to_act
        view = hand.view(seat)
        k = Knowledge.from_view(view)
        weights = k.weights()
        for _ in range(5):
            opp, stock = k.sample(rng, weights, view.knock_limit)
            assert opp & k.opp_known == k.opp_known
            assert opp.bit_count() == view.hand_counts[1 - seat]
            assert len(stock) == view.stock_count
            assert to_mask(DECK[i] for i in stock) | (opp & ~k.opp_known) == k.unseen
            assert not opp & (k.own | to_mask(view.discard_pile))


def test_sampled_opponent_hands_make_melds_of_the_cards_it_picked_up() -> None:
    state = scenarios.undercut_risk()
    k = Knowledge.from_view(state.view(1))
    rng = random.Random(0)
    weights = k.weights()
    melded = 0
    for _ in range(100):
        opp, _ = k.sample(rng, weights, 10)
        dw = min_deadwood(opp)
        melded += all(min_deadwood(opp & ~(1 << c)) + DECK[c].value > dw for c in k.opp_taken)
    assert melded >= 50


def test_a_guess_replays_fewer_draws_with_less_improve_and_is_weaker_for_it() -> None:
    """``improve`` is the share of the opponent's thrown cards replayed as draws: none leaves
    a plain weighted guess, all (Hard's own) the strongest; the analysis's values use half."""
    state = scenarios.undercut_risk()
    k = Knowledge.from_view(state.view(1))
    assert k.opp_passed_over >= 2
    weights = k.weights()

    def mean_deadwood(improve: float) -> float:
        rng = random.Random(3)
        return sum(min_deadwood(k.sample(rng, weights, 10, improve=improve)[0]) for _ in range(200)) / 200

    none, half, all_ = mean_deadwood(0.0), mean_deadwood(0.5), mean_deadwood(1.0)
    assert none > half > all_


def test_meld_partners_lists_sets_and_runs_around_a_card() -> None:
    seven = Card.parse("7h").index
    pool = to_mask(parse_cards("7c 7d 6h 8h 9h"))
    options = meld_partners(seven, 0, pool)
    as_codes = sorted(sorted(DECK[i].code for i in range(52) if m >> i & 1) for m in options)
    assert as_codes == [["6h", "8h"], ["7c", "7d"], ["8h", "9h"]]


def test_playouts_end_and_score_within_the_games_bounds() -> None:
    for seed in range(50):
        h = deal(RULES["house"], starter=0, seed=f"playout:{seed}")
        settings = PlayoutSettings(RULES["house"], 10, 1)
        _, pts = play_hand(
            list(h.hands), list(h.stock), list(h.discard_pile), 0, UPCARD, -1, (10, 10), settings, Memo()
        )
        assert -123 <= pts <= 123


def _meldy_hands(seed: int, count: int, size: int = 11) -> list[int]:
    """Random hands, most of them holding a run or a set (where the shortcuts could go wrong)."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        mask = 0
        for c in rng.sample(range(52), size):
            mask |= 1 << c
        if n % 2:
            suit, r = rng.randrange(4), rng.randrange(10)
            mask |= 0b111 << (suit * 13 + r)
        if n % 3:
            r = rng.randrange(13)
            for suit in rng.sample(range(4), 3):
                mask |= 1 << (suit * 13 + r)
        out.append(mask)
    return out


def test_shortcut_deadwood_equals_the_rules_search() -> None:
    for mask in _meldy_hands(1, 3000, 10):
        assert deadwood(mask) == min_deadwood(mask)


def test_greedy_discards_rank_as_a_full_search_does() -> None:
    memo = Memo()
    for mask in _meldy_hands(2, 3000):
        ranked = sorted(
            discard_deadwoods(mask).items(), key=lambda kv: (kv[1], -DECK[kv[0]].value, -DECK[kv[0]].rank)
        )
        assert Memo().discards(mask) == tuple(ranked[:2])
        drawn = (mask & -mask).bit_length() - 1
        assert memo.discards_after_draw(mask & ~(1 << drawn), drawn) == tuple(ranked[:2])


def test_the_sampled_opponent_throws_the_card_leaving_least_deadwood_keeping_known_cards() -> None:
    for mask in _meldy_hands(3, 2000):
        keep = mask & -mask  # its lowest card is one it is known to hold
        dd = discard_deadwoods(mask)
        expected = min((c for c in dd if not keep >> c & 1), key=lambda c: (dd[c], -DECK[c].value, -c))
        assert thrown_card(mask, keep) == expected


def test_a_gin_seat_in_a_playout_keeps_its_pair_and_still_knocks_when_it_can() -> None:
    from server.bots.rollout import DISCARD

    rules = RULES["house"]
    # Seat 0 holds 11 cards: Ac2c3c 4d5d6d melded, 7h8h a partial, Kh Ks a pair, Qd lone.
    hand = to_mask(parse_cards("Ac 2c 3c 4d 5d 6d 7h 8h Kh Ks Qd"))
    other = to_mask(parse_cards("9c 9d 9s Jc Jd Js 2h 3s 5s 7c 8d"))
    card = {name: Card.parse(name).index for name in ("Kh", "Ks", "Qd")}
    stock = [Card.parse("Tc").index, Card.parse("Td").index]

    def thrown(gin_seats: int) -> int:
        # Two stock cards left: the hand is dead right after seat 0's discard.
        pile: list[int] = []
        settings = PlayoutSettings(rules, 10, 1, gin_seats=gin_seats)
        knocker, _ = play_hand([hand, other], list(stock), pile, 0, DISCARD, -1, (10, 10), settings, Memo())
        assert knocker == -1
        return pile[-1]

    assert thrown(0) in {card["Kh"], card["Ks"]}  # least deadwood: a king
    assert thrown(1) == card["Qd"]  # a gin player: the lone queen, keeping the pair
    assert thrown(2) in {card["Kh"], card["Ks"]}  # seat 1 is the gin player, not seat 0
    # When the least-deadwood discard lets it knock, the gin seat knocks with it.
    low = to_mask(parse_cards("Ac 2c 3c 4d 5d 6d 7h 8h 9h Ks 2s"))
    settings = PlayoutSettings(rules, 10, 1, gin_seats=1)
    knocker, _ = play_hand([low, other], list(stock), [], 0, DISCARD, -1, (10, 10), settings, Memo())
    assert knocker == 0


def _live_connections_by_the_definition(hand: int, card: int, dead: int) -> int:
    """Normal's measure written out card by card, as it was first written (the bot's own is
    bit arithmetic)."""
    r, suit_base = card % 13, card - card % 13
    ranks = [s * 13 + r for s in range(4)]
    live_rank = sum(1 for i in ranks if not dead >> i & 1)
    n = sum(1 for i in ranks if i != card and hand >> i & 1 and live_rank >= 3)

    def live(x: int) -> bool:
        return 0 <= x < 13 and not dead >> (suit_base + x) & 1

    for x in (r - 2, r - 1, r + 1, r + 2):
        if 0 <= x < 13 and hand >> (suit_base + x) & 1:
            lo, hi = min(r, x), max(r, x)
            n += live(lo + 1) if hi - lo == 2 else (live(lo - 1) or live(hi + 1))
    return n


def test_live_connections_counts_what_its_definition_counts() -> None:
    rng = random.Random(11)
    for _ in range(20_000):
        cards = rng.sample(range(52), rng.randint(12, 40))
        hand_size = rng.randint(1, 11)
        hand = to_mask(DECK[i] for i in cards[:hand_size])
        dead = to_mask(DECK[i] for i in cards[hand_size:])
        card = cards[rng.randrange(hand_size)]
        assert live_connections(hand, card, dead) == _live_connections_by_the_definition(hand, card, dead)
    # Every card of a full suit, with nothing out of play and with every other card out of play.
    suit = to_mask(DECK[i] for i in range(13))
    for card in range(13):
        for dead in (0, suit & ~(1 << card), 1 << 5):
            hand = suit & ~dead
            assert live_connections(hand, card, dead) == _live_connections_by_the_definition(hand, card, dead)
