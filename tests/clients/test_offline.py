"""The client's parsing, meld arithmetic, commands, rendering and strategies, checked offline
against views the rules engine produces in the wire shape (no server, no network)."""

from __future__ import annotations

import dataclasses
import random
import time

import msgspec
import pytest
from ginrummy_client import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    TAKE_UPCARD,
    Action,
    BadRequest,
    Conflict,
    ConnectionLost,
    HandResult,
    IllegalAction,
    MatchConnection,
    MatchView,
    NotFound,
    NotYourTurn,
    ProtocolError,
    RateLimited,
    ServerError,
    StaleVersion,
    TooLarge,
    Unauthorized,
    Unavailable,
    best_melds,
    deadwood,
    discard,
    knock,
    parse_invite,
)
from ginrummy_client.cards import RANKS, SUITS, normalize
from ginrummy_client.errors import server_error
from ginrummy_client.strategies import make_random, quick
from ginrummy_client.terminal import CommandError, parse_command, render_outcome, render_result, render_table
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules import RULES, Card, Pass, new_hand, new_match
from server.rules import Action as EngineAction
from server.rules import deadwood as engine_deadwood
from server.wire import convert
from tests.live_server import free_port

from .engine_views import wire_view

ALL_CODES = [r + s for r in RANKS for s in SUITS]


# --- meld arithmetic ------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ALL_CODES), min_size=0, max_size=11, unique=True))
def test_client_deadwood_equals_the_rules_engines(codes):
    assert deadwood(codes) == engine_deadwood([Card.parse(c) for c in codes])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALL_CODES), min_size=0, max_size=11, unique=True))
def test_best_melds_are_disjoint_valid_melds_leaving_the_deadwood(codes):
    melds, left = best_melds(codes)
    used = [c for m in melds for c in m]
    assert len(used) == len(set(used)) and set(used) <= set(codes)
    for m in melds:
        ranks = [RANKS.index(c[0]) for c in m]
        is_set = len({c[0] for c in m}) == 1 and 3 <= len(m) <= 4
        is_run = (
            len({c[1] for c in m}) == 1 and len(m) >= 3 and ranks == list(range(ranks[0], ranks[0] + len(m)))
        )
        assert is_set or is_run, m
    assert left == sum(min(RANKS.index(c[0]) + 1, 10) for c in codes if c not in used)


def test_aces_are_low_only():
    assert deadwood(["Qh", "Kh", "Ah"]) == 21
    assert deadwood(["Ah", "2h", "3h"]) == 0


def test_typed_card_codes_are_normalised_and_bad_ones_explained():
    assert [normalize(t) for t in ("7H", "10h", "td", "as")] == ["7h", "Th", "Td", "As"]
    with pytest.raises(ValueError, match="not a card"):
        normalize("1x")


# --- actions and errors ---------------------------------------------------------------------------


def test_actions_have_the_protocols_wire_form():
    assert TAKE_UPCARD.to_wire() == {"kind": "take_upcard"}
    assert PASS.to_wire() == {"kind": "pass"}
    assert DRAW_STOCK.to_wire() == {"kind": "draw", "source": "stock"}
    assert DRAW_DISCARD.to_wire() == {"kind": "draw", "source": "discard"}
    assert discard("7h").to_wire() == {"kind": "discard", "card": "7h"}
    assert knock("7h").to_wire() == {"kind": "knock", "card": "7h"}
    for a in (TAKE_UPCARD, PASS, DRAW_STOCK, DRAW_DISCARD, discard("Td"), knock("As")):
        assert Action.from_wire(a.to_wire()) == a
        assert EngineAction.from_wire(a.to_wire()).to_wire() == a.to_wire()


@pytest.mark.parametrize(
    "wire",
    [
        {},
        {"kind": "fold"},
        {"kind": "draw"},
        {"kind": "draw", "source": "deck"},
        {"kind": "discard", "card": "1z"},
    ],
)
def test_malformed_actions_are_refused_before_sending(wire):
    with pytest.raises(ValueError):
        Action.from_wire(wire)


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        ("bad_request", BadRequest),
        ("bad_message", BadRequest),
        ("unauthorized", Unauthorized),
        ("unknown_match", NotFound),
        ("not_found", NotFound),
        ("not_your_turn", NotYourTurn),
        ("illegal_action", IllegalAction),
        ("stale_version", StaleVersion),
        ("match_not_over", Conflict),
        ("already_joined", Conflict),
        ("match_full", Conflict),
        ("match_over", Conflict),
        ("conflict", Conflict),
        ("rate_limited", RateLimited),
        ("too_large", TooLarge),
        ("unavailable", Unavailable),
    ],
)
def test_every_documented_error_code_has_its_exception(code, cls):
    err = server_error(code, "words", status=409)
    assert type(err) is cls and err.code == code and err.message == "words" and err.status == 409


def test_rate_limited_carries_which_limit_and_when_it_resets():
    err = server_error("rate_limited", "slow down", details={"limit": "actions", "reset_in": "2.5"})
    assert isinstance(err, RateLimited) and err.limit == "actions" and err.reset_in == 2.5


def test_an_unknown_error_code_is_still_a_server_error():
    err = server_error("brand_new", "x")
    assert type(err) is ServerError and err.code == "brand_new"


def test_a_view_without_its_match_id_is_a_protocol_error():
    with pytest.raises(ProtocolError):
        MatchView.from_wire({"seat": 0})
    with pytest.raises(ProtocolError):
        MatchView.from_wire({"match_id": "m", "hand": {"phase": "draw", "legal_actions": [{"kind": "fly"}]}})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://h:1/join/m_42?invite=XYZ", ("m_42", "XYZ")),
        ("http://h:1/?match=m_42&invite=XYZ", ("m_42", "XYZ")),
        ("http://h:1/#/join/m_42/XYZ", ("m_42", "XYZ")),
        ("https://h/matches/m_42/join/XYZ", ("m_42", "XYZ")),
        ("m_42:XYZ", ("m_42", "XYZ")),
        ("XYZ", (None, "XYZ")),
    ],
)
def test_invites_are_read_in_every_form_a_person_may_paste(text, expected):
    assert parse_invite(text) == expected


# --- views from the rules engine ------------------------------------------------------------------


def _self_play_views(seed: int, rules: str = "house", limit: int = 400):
    """Seeded random self-play through the engine, yielding (engine match, seat, parsed view)."""
    rng = random.Random(seed)
    match = new_match(rules, seed)
    version = 0
    while not match.is_over and version < limit:
        version += 1
        seat = match.to_act
        view = MatchView.from_wire(wire_view(match, seat, version=version))
        yield match, seat, view
        legal = match.legal_actions(seat)
        # Mostly sensible play (so hands end by knocking), sometimes anything legal.
        choice = quick(view) if rng.random() < 0.8 else Action.from_wire(rng.choice(legal).to_wire())
        match.apply(EngineAction.from_wire(choice.to_wire()), seat)
    version += 1
    yield match, None, MatchView.from_wire(wire_view(match, 0, version=version))


@pytest.mark.parametrize("seed", range(6))
def test_parsed_views_match_what_the_engine_shows(seed):
    for match, seat, view in _self_play_views(seed, "classic" if seed % 2 else "house"):
        if seat is None:
            continue
        engine_view = match.view(seat).hand
        hand = view.hand
        assert hand is not None and view.my_turn
        assert list(hand.hand) == [c.code for c in engine_view.hand]
        assert [a.to_wire() for a in hand.legal_actions] == [a.to_wire() for a in engine_view.legal_actions]
        assert hand.deadwood == deadwood(hand.hand) or hand.phase == "discard"
        assert hand.unmatched == tuple(c.code for c in engine_view.arrangement.unmatched)


@pytest.mark.parametrize("seed", range(4))
def test_every_legal_action_can_be_typed_and_nothing_else_is_accepted(seed):
    for _match, seat, view in _self_play_views(seed):
        if seat is None:
            continue
        legal = set(view.legal_actions)
        for a in legal:
            assert parse_command(str(a), view).action == a
        candidates = [TAKE_UPCARD, PASS, DRAW_STOCK, DRAW_DISCARD]
        candidates += [discard(c) for c in ALL_CODES[::7]] + [knock(c) for c in view.hand.hand]
        for a in candidates:
            if a not in legal:
                with pytest.raises(CommandError):
                    parse_command(str(a), view)


def test_the_strategies_always_choose_a_legal_action():
    chooser = make_random(3)
    for seed in range(3):
        for _match, seat, view in _self_play_views(seed):
            if seat is not None:
                assert quick(view) in view.legal_actions
                assert chooser(view) in view.legal_actions


def test_quick_play_finishes_matches_in_both_variants():
    for seed, rules in ((11, "house"), (12, "classic")):
        *_, (match, _, final) = _self_play_views(seed, rules, limit=5000)
        assert match.is_over and final.is_over and final.outcome is not None
        assert max(final.scores) >= 100
        assert "wins the match" in render_outcome(final) or "You win the match!" in render_outcome(final)


def test_a_forfeit_says_why_the_match_ended():
    *_, (_match, _, final) = _self_play_views(11, "house", limit=5000)
    assert final.outcome is not None and final.seat is not None
    lost = dataclasses.replace(final.outcome, winner=1 - final.seat)
    for reason, words in (
        ("resign", "(You resigned)"),
        ("timeout", "(You ran out of time)"),
        ("abandoned", "(You left the match)"),
    ):
        view = dataclasses.replace(final, outcome=dataclasses.replace(lost, reason=reason))
        assert words in render_outcome(view).splitlines()[0]
    target = dataclasses.replace(final, outcome=dataclasses.replace(lost, reason="target"))
    assert render_outcome(target).splitlines()[0].endswith("wins the match. ===")


def test_the_table_shows_hand_melds_deadwood_and_the_opponents_moves():
    match = new_match("house", 5, first_starter=1)
    match.apply(Pass(), 1)  # the opponent passes the upcard
    view = MatchView.from_wire(wire_view(match, 0, version=2))
    text = render_table(view)
    assert "=== Hand 1 · house rules · first to 100 · You deal ===" in text
    assert "Computer (Hard): 10 cards" in text and "Stock: 31" in text
    assert f"Discard pile: {view.hand.top_discard}" in text
    assert "Computer (Hard) passed the upcard." in text
    assert f"deadwood {view.hand.deadwood}" in text
    for meld in view.hand.melds:
        assert "[" + " ".join(meld) + "]" in text


# --- hand results ---------------------------------------------------------------------------------


def _worked_example_view() -> MatchView:
    """The guide's worked example: the knocker has 8, the defender 5 after layoffs."""
    h = new_hand(
        RULES["house"],
        starter=0,
        hands=("2c 3c 4c 5h 5d 5s 7c 8c 9c Kh", "Qs Qd Qc Jh Th 9h 4s As 5c Tc"),
        upcard="Kd",
        stock="8d 2h 3h",
    )
    h.apply(Pass()).apply(Pass())
    h.apply(EngineAction.from_wire({"kind": "draw", "source": "stock"}))
    h.apply(EngineAction.from_wire({"kind": "knock", "card": "Kh"}))
    wire = {"match_id": "m_x", "seat": 1, "players": [], "hand_number": 2, "scores": [0, 28]}
    wire["last_result"] = msgspec.to_builtins(convert.hand_result(h.result))
    return MatchView.from_wire(wire)


def test_a_hand_result_is_worded_like_the_browsers():
    view = _worked_example_view()
    result = view.last_result
    assert isinstance(result, HandResult)
    assert result.summary == "Undercut: 25 + 8 - 5 = 28"
    text = render_result(view, 1, result)
    assert "Hand 1: Undercut: 25 + 8 - 5 = 28" in text
    assert "You score 28 points." in text
    assert "(knocked)" in text and "(defended)" in text and "laid off:" in text


def test_typing_a_card_just_taken_from_the_discard_pile_is_explained():
    match = new_match("house", 8, first_starter=0)
    match.apply(EngineAction.from_wire({"kind": "take_upcard"}), 0)
    view = MatchView.from_wire(wire_view(match, 0))
    taken = view.hand.just_taken
    assert taken is not None
    with pytest.raises(CommandError, match="just took"):
        parse_command(f"x {taken}", view)
    with pytest.raises(CommandError, match="don't hold"):
        parse_command("x " + next(c for c in ALL_CODES if c not in view.hand.hand), view)
    assert "*" in render_table(view)


async def test_connecting_where_no_server_listens_fails_fast_with_connection_lost():
    conn = MatchConnection(f"ws://127.0.0.1:{free_port()}/ws", "m_nowhere", "token")
    started = time.monotonic()
    with pytest.raises(ConnectionLost, match="cannot reach"):
        await conn.open()
    assert time.monotonic() - started < 5
    with pytest.raises(ConnectionLost):
        await conn.next_state()


def test_reconnect_pauses_are_spread_between_half_and_all_of_each_delay():
    """Bots a restart disconnected together do not all come back in the same instant."""
    conn = MatchConnection("ws://127.0.0.1:1/ws", "m_x", "token", reconnect_delays=(0.2, 1.0))
    firsts = [conn._delay(1) for _ in range(200)]
    laters = [conn._delay(attempt) for attempt in (2, 3, 9) for _ in range(100)]
    assert all(0.1 <= d <= 0.2 for d in firsts) and all(0.5 <= d <= 1.0 for d in laters)
    assert max(firsts) - min(firsts) > 0.05 and max(laters) - min(laters) > 0.25


@pytest.mark.parametrize("limit, words", [(4, "the limit this hand is 4"), (0, "this hand is gin only")])
def test_a_refused_knock_names_this_hands_knock_limit_not_the_presets(limit, words):
    cards = ["2c", "3c", "4c", "7d", "7h", "9s", "Ts", "Jd", "Qh", "Kd", "Kc"]
    view = MatchView.from_wire(
        {
            "match_id": "m_1",
            "seat": 0,
            "rules": {"name": "oklahoma", "knock_limit": 10},
            "hand": {
                "seat": 0,
                "phase": "discard",
                "to_act": 0,
                "cards": cards,
                "discard_pile": ["4h"],
                "knock_limit": limit,
                "legal_actions": [{"kind": "discard", "card": c} for c in cards],
                "discard_deadwood": {c: 50 for c in cards},
            },
        }
    )
    with pytest.raises(CommandError, match=words):
        parse_command("k Kd", view)


def test_every_error_code_the_server_documents_has_a_class_of_its_own():
    import json
    from pathlib import Path

    doc = json.loads((Path(__file__).parents[2] / "docs" / "protocol.schema.json").read_text())
    codes = {
        c for d in doc["$defs"].values() for c in d.get("properties", {}).get("code", {}).get("enum", [])
    }
    assert {"bad_request", "id_reused", "too_many_matches"} <= codes or {"bad_request", "id_reused"} <= codes
    for code in codes - {"internal"}:
        assert type(server_error(code, "x")) is not ServerError, code


def test_a_move_the_server_played_on_a_timeout_says_so():
    from ginrummy_client.models import Event
    from ginrummy_client.rendering import describe_event

    e = Event.from_wire({"seat": 1, "kind": "draw", "source": "stock", "timed_out": True})
    assert e.timed_out
    assert describe_event(None, e) == "drew from the stock (out of time)"  # type: ignore[arg-type]
    assert describe_event(None, Event.from_wire({"seat": 1, "kind": "pass"})) == "passed the upcard"  # type: ignore[arg-type]


def test_the_analysis_text_lists_both_players_mistakes():
    from ginrummy_client.analysis import format_analysis

    def mistake(step: int, played: str, best: str, loss: float) -> dict:
        return {
            "step": step,
            "played": {"kind": "discard", "card": played},
            "best": {"kind": "discard", "card": best},
            "loss": loss,
            "mistake": True,
            "explanation": "Keep the cards with more ways to make melds.",
        }

    hand = {
        "number": 1,
        "start_value": -1.5,
        "lost": 4.0,
        "opponent_lost": 3.2,
        "points": -23,
        "mistakes": [3],
        "decisions": [mistake(3, "Kh", "9s", 4.0)],
        "opponent_mistakes": [mistake(6, "Qc", "2d", 3.2)],
    }
    text = format_analysis({"summary": "Deals: -1.5 ...", "hands": [hand]}).splitlines()
    assert text == [
        "Deals: -1.5 ...",
        "Hand 1: deal worth -1.5, lost 4.0 (1 mistake), opponent lost 3.2, result -23",
        "  step 3: you discard Kh, Hard would discard 9s (-4.0). Keep the cards with more ways to make melds.",
        "  step 6, your opponent: discard Qc, Hard would discard 2d (-3.2). Keep the cards with more ways to"
        " make melds.",
    ]


async def test_the_analysis_waits_longer_than_an_ordinary_call(monkeypatch):
    # Hard works out every decision of a match: a busy server takes longer than the client's
    # ordinary timeout (15 s), which the analysis alone outwaits, up to ANALYSIS_TIMEOUT.
    from ginrummy_client.rest import ANALYSIS_TIMEOUT, GinRummyClient

    waited: dict[str, float | None] = {}

    def answer(method, path, body=None, timeout=None):
        waited[path.rsplit("/", 1)[-1]] = timeout
        return 200, {"hands": []}

    client = GinRummyClient("http://127.0.0.1:9", "a-token", timeout=15.0)
    monkeypatch.setattr(client, "_request_sync", answer)
    await client.analysis("m_1")
    await client.get_record("m_1")
    assert waited == {"analysis": ANALYSIS_TIMEOUT, "record": None}
    assert client.timeout < ANALYSIS_TIMEOUT
    slow = GinRummyClient("http://127.0.0.1:9", "a-token", timeout=600.0)
    monkeypatch.setattr(slow, "_request_sync", answer)
    await slow.analysis("m_1")
    assert waited["analysis"] == 600.0  # never shorter than the client's own


async def test_a_busy_servers_refusal_is_asked_again_after_its_retry_after(monkeypatch):
    # A busy server refuses a new match with 503 and Retry-After, having changed nothing: the
    # client waits that long and asks again. A 503 without it (a database failure, which may
    # have landed) is raised at once, as is one that would wait past max_retry_wait.
    from ginrummy_client import rest
    from ginrummy_client.errors import Unavailable

    answers: list[tuple[int, object, str | None]] = []
    asked: list[str] = []
    slept: list[float] = []

    def answer(method, path, body=None, timeout=None):
        asked.append(path)
        status, payload, retry_after = answers.pop(0)
        if status >= 400:
            raise rest._error_from(status, payload, retry_after)
        return status, payload

    async def sleep(seconds):
        slept.append(seconds)

    busy = {"error": {"code": "unavailable", "message": "the server is busy: try again in 5 seconds"}}
    client = rest.GinRummyClient("http://127.0.0.1:9", "a-token")
    monkeypatch.setattr(client, "_request_sync", answer)
    monkeypatch.setattr(rest.asyncio, "sleep", sleep)
    answers[:] = [(503, busy, "5"), (201, {"ok": True}, None)]
    assert await client.request("POST", "/api/matches", {}) == {"ok": True}
    assert slept == [5.0] and len(asked) == 2
    answers[:] = [(503, {"error": {"code": "unavailable", "message": "database down"}}, None)]
    with pytest.raises(Unavailable) as raised:
        await client.request("POST", "/api/matches", {})
    assert raised.value.retry_in is None and slept == [5.0]
    answers[:] = [(503, busy, "60")]
    with pytest.raises(Unavailable) as raised:
        await client.request("POST", "/api/matches", {})
    assert raised.value.retry_in == 60.0 and slept == [5.0]  # longer than max_retry_wait (10 s)
