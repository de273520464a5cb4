"""The Python client's ``verify(record)``: a second implementation of docs/deals.md, given real
records (a seeded match played by the rules engine and framed by the server's presentation),
accepts honest deals and names every kind of tampering."""

from __future__ import annotations

import copy
import random
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
from ginrummy_client import verify
from ginrummy_client.verify import deal_deck

from server.rules import MatchState, new_match
from server.service.ports import MatchMeta, MatchRecord
from server.service.writer import stored_outcome
from server.transport import present
from tests.rules.test_deals import doc_vectors


def record_of(state: MatchState) -> dict[str, Any]:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    meta = MatchMeta(
        "m_v", state.rules.name, "human", None, state.seed, state.first_starter, "finished", 99,
        ["p_a", "p_b"], ["Ada", "Bob"], "", None, state.hand_number, list(state.scores),
        list(state.hands_won), state.outcome.winner if state.outcome else None, state.resigned,
        stored_outcome(state.outcome) if state.outcome else None, now, now, deal=state.deal,
    )  # fmt: skip
    out: dict[str, Any] = msgspec.to_builtins(present.record(MatchRecord(meta, 0, state)))
    return out


def played(deal: str, seed: str = "verify me", resign_after: int | None = None) -> MatchState:
    state = new_match("house", seed, 0, deal=deal)
    rng = random.Random(5)
    steps = 0
    while not state.is_over:
        if resign_after is not None and steps == resign_after:
            state.resign(0)
            break
        state.apply(rng.choice(state.legal_actions()))
        steps += 1
    return state


@pytest.fixture(scope="module")
def honest() -> dict[str, Any]:
    return record_of(played("sha256"))


def test_the_client_deals_the_documented_vectors():
    for v in doc_vectors():
        assert " ".join(deal_deck(v["hand_seed"])) == v["deck"]


def test_an_honest_record_verifies_every_hand(honest):
    report = verify(honest)
    assert report.ok, report.summary()
    assert len(report.hands) == len(honest["hands"]) > 1
    assert report.summary().startswith("Deal verified: ")
    assert honest["seed"] is None  # the match seed is never in a sha256 record


@pytest.mark.parametrize(
    "tamper, problem",
    [
        (lambda h: h.update(seed="0" * 64), "the seed does not match the commitment"),
        (lambda h: h.update(deal_commitment="f" * 64), "the seed does not match the commitment"),
        (lambda h: h["stock"].reverse(), "the stock is not the one dealt"),
        (lambda h: h.update(upcard=h["stock"][0]), "the upcard is not the one dealt"),
        (lambda h: h["hands"][1].__setitem__(0, h["stock"][0]), "seat 1's hand is not the one dealt"),
    ],
)
def test_a_tampered_hand_is_named(honest, tamper, problem):
    record = copy.deepcopy(honest)
    tamper(record["hands"][1])
    report = verify(record)
    assert not report.ok
    bad = [h for h in report.hands if not h.verified]
    assert [h.number for h in bad] == [2] and problem in bad[0].problems
    assert "hand 2: " in report.summary()


def test_commitments_seen_during_play_must_equal_the_records(honest):
    seen = {h["number"]: h["deal_commitment"] for h in honest["hands"]}
    assert verify(honest, seen).ok
    seen[1] = "a" * 64
    report = verify(honest, seen)
    assert (
        not report.ok and "the commitment differs from the one shown during play" in report.hands[0].problems
    )


def test_a_resigned_hand_is_skipped_and_its_seed_never_shown():
    state = played("sha256", resign_after=400)
    record = record_of(state)
    last = record["hands"][-1]
    assert last["result"] is None and last["seed"] is None
    assert last["deal_commitment"] == state.log[-1].commitment
    report = verify(record)
    assert report.hands[-1].skipped is not None
    assert report.ok == (len(record["hands"]) > 1)


def test_a_legacy_record_says_it_cannot_be_verified():
    record = record_of(played("legacy"))
    assert record["deal"] == "legacy" and record["seed"] == "verify me"
    report = verify(record)
    assert not report.ok and "legacy" in report.summary()


def test_the_command_line_verifies_a_match_by_id(honest, monkeypatch, capsys):
    from ginrummy_client import __main__ as cli
    from ginrummy_client.rest import GinRummyClient

    asked: list[tuple[str, str | None]] = []

    async def get_record(self, match_id):
        asked.append((match_id, self.token))
        return records[match_id]

    records = {"m_good": honest, "m_bad": copy.deepcopy(honest)}
    records["m_bad"]["hands"][0]["upcard"] = records["m_bad"]["hands"][0]["stock"][0]
    monkeypatch.setattr(GinRummyClient, "get_record", get_record)
    assert cli.main(["verify", "m_good", "--token", "tok"]) == 0
    assert capsys.readouterr().out.startswith("Deal verified: ")
    assert cli.main(["verify", "m_bad", "--token", "tok"]) == 2
    assert "hand 1: the upcard is not the one dealt" in capsys.readouterr().out
    assert asked == [("m_good", "tok"), ("m_bad", "tok")]
    monkeypatch.delenv("GINRUMMY_TOKEN", raising=False)
    assert cli.main(["verify", "m_good", "--token", ""]) == 1
    assert "verify needs --token" in capsys.readouterr().err


def test_a_match_resigned_before_any_hand_finished_has_nothing_to_verify_and_is_no_failure(
    monkeypatch, capsys
):
    from ginrummy_client import __main__ as cli
    from ginrummy_client.rest import GinRummyClient

    record = record_of(played("sha256", resign_after=3))
    assert len(record["hands"]) == 1 and record["hands"][0]["seed"] is None
    report = verify(record)
    assert report.nothing_to_check and not report.ok
    assert report.summary() == "Nothing to verify: no hand of this match finished, so no seed was revealed"

    async def get_record(self, match_id):
        return record

    monkeypatch.setattr(GinRummyClient, "get_record", get_record)
    assert cli.main(["verify", "m_resigned", "--token", "tok"]) == 0
    assert capsys.readouterr().out == report.summary() + "\n"


def test_an_unfinished_hand_whose_commitment_changed_is_still_a_failure():
    record = record_of(played("sha256", resign_after=3))
    report = verify(record, {1: "0" * 64})
    assert not report.ok and not report.nothing_to_check
    assert report.summary().startswith("DEAL NOT VERIFIED\nhand 1: the commitment differs")
