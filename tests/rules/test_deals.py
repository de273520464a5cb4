"""The deal schemes: docs/deals.md's test vectors are what the server deals, new matches deal
verifiably, and legacy matches deal exactly as they always did."""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from server.rules import DEALS, DECK, MatchState, deal, deal_named, new_match
from server.rules.deals import LEGACY, SHA256, byte_stream, sha256_deck

DOC = Path(__file__).resolve().parents[2] / "docs" / "deals.md"


def doc_vectors() -> list[dict[str, str]]:
    """The test vectors of docs/deals.md (its ```text blocks of ``key: value`` lines)."""
    blocks = re.findall(r"```text\n(.*?)```", DOC.read_text(), re.S)
    return [dict(line.split(": ", 1) for line in b.strip().splitlines()) for b in blocks]


def codes(deck: list[int]) -> str:
    return " ".join(DECK[i].code for i in deck)


def test_the_documented_vectors_are_what_the_server_deals():
    vectors = doc_vectors()
    assert len(vectors) == 2
    for v in vectors:
        seed = SHA256.hand_seed(v["match_seed"], int(v["hand"]))
        assert seed == v["hand_seed"]
        assert SHA256.commitment(seed) == v["commitment"]
        stream = byte_stream(seed)
        assert [next(stream) for _ in v["first_bytes"].split()] == [int(b) for b in v["first_bytes"].split()]
        assert codes(SHA256.deck(seed)) == v["deck"]


def test_the_second_vector_starts_with_a_rejected_byte():
    v = doc_vectors()[1]
    first, second = (int(b) for b in v["first_bytes"].split()[:2])
    assert first >= 256 - 256 % 52 > second
    assert v["deck"].split()[-1] == DECK[second % 52].code  # deck[51] swapped with deck[17]


def test_a_hand_seed_is_a_one_way_hash_that_does_not_contain_the_match_seed():
    seed = SHA256.hand_seed("the match seed", 3)
    assert seed == hashlib.sha256(b"the match seed:3").hexdigest()
    assert "the match seed" not in seed
    assert SHA256.commitment(seed) == hashlib.sha256(seed.encode()).hexdigest()
    assert LEGACY.hand_seed("the match seed", 3) == "the match seed:3"
    assert LEGACY.commitment("the match seed:3") is None


def test_every_sha256_deck_is_a_permutation_and_positions_look_uniform():
    # 3,000 decks: where the ace of clubs lands, and the top card; each of 52 places expects
    # about 58. A modulo-biased draw (b % m without rejection) would also pass this loosely,
    # so the exact rejection is checked below on a stream of chosen bytes.
    places: Counter[int] = Counter()
    tops: Counter[int] = Counter()
    for n in range(3000):
        deck = sha256_deck(f"uniform:{n}")
        assert sorted(deck) == list(range(52))
        places[deck.index(0)] += 1
        tops[deck[0]] += 1
    for counts in (places, tops):
        assert len(counts) == 52
        assert min(counts.values()) > 25 and max(counts.values()) < 100


def test_the_shuffle_rejects_bytes_at_or_above_the_limit(monkeypatch):
    # Feed the shuffle 208 (rejected for m = 52: 256 - 256 % 52 = 208), then 0s: the first swap
    # must use the 0, so deck[51] is card 0; with modulo (208 % 52 = 0) it would be too, so
    # use 209 (209 % 52 = 1) to tell them apart.
    import server.rules.deals as deals

    def fake_stream(_seed: str):
        yield 209
        while True:
            yield 0

    monkeypatch.setattr(deals, "byte_stream", fake_stream)
    deck = deals.sha256_deck("any")
    assert deck[51] == 0  # 209 rejected, then j = 0 % 52 = 0


def test_new_matches_deal_by_sha256_and_each_hand_from_its_own_seed():
    m = new_match("house", seed="verifiable")
    assert m.deal == "sha256"
    log = m.log[0]
    assert log.seed == SHA256.hand_seed("verifiable", 1)
    assert log.commitment == hashlib.sha256(log.seed.encode()).hexdigest()
    deck = SHA256.deck(log.seed)
    assert [c.index for c in log.hands[0]] == sorted(deck[0:10])
    assert [c.index for c in log.hands[1]] == sorted(deck[10:20])
    assert log.upcard.index == deck[20]
    assert [c.index for c in log.stock] == deck[21:]


def test_every_seat_and_watcher_sees_the_same_commitment_and_it_changes_each_hand():
    m = new_match("house", seed="commit", first_starter=0)
    rng = random.Random(1)
    seen: list[str | None] = []
    while not m.is_over and m.hand_number <= 3:
        views = [m.view(s) for s in (0, 1, None)]
        assert len({v.deal_commitment for v in views}) == 1
        if not seen or seen[-1] != views[0].deal_commitment:
            seen.append(views[0].deal_commitment)
        m.apply(rng.choice(m.legal_actions()))
    assert len(seen) == len(set(seen)) >= 3
    assert all(c == log.commitment for c, log in zip(seen, m.log, strict=False))


def test_a_legacy_match_deals_exactly_as_before():
    # Before deal schemes, hand n was deal(rules, starter, f"{seed}:{n}").
    m = new_match("classic", seed="old match", first_starter=1, deal="legacy")
    before = deal(m.rules, 1, "old match:1")
    assert m.hand.hand(0) == before.hand(0) and m.hand.stock_order() == before.stock_order()
    assert m.view(0).deal_commitment is None and m.log[0].commitment is None


def test_the_record_carries_the_scheme_and_a_record_without_one_replays_as_legacy():
    rng = random.Random(3)
    for scheme in DEALS:
        m = new_match("house", seed="rec", deal=scheme)
        for _ in range(120):
            m.apply(rng.choice(m.legal_actions()))
        record = m.record()
        assert record["deal"] == scheme
        again = MatchState.replay(record)
        assert again.deal == scheme and again.view(0) == m.view(0)
    old = new_match("house", seed="rec", deal="legacy").record()
    del old["deal"]  # a record written before deal schemes
    assert MatchState.replay(old).log[0].seed == "rec:1"


def test_an_unknown_scheme_is_refused():
    with pytest.raises(ValueError, match="unknown deal scheme"):
        deal_named("rot13")
    with pytest.raises(ValueError):
        new_match("house", seed=1, deal="rot13")
