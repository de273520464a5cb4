"""What docs/protocol.md (and the Python client's README) say in prose about the server is what
the server does: the rule presets and fields of a new match, the lobby's counts, the outcome
reasons, the view's notes printed once, the hand multiplier, the per-connection rate, and a
``ping`` before ``hello``."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import msgspec

from server.config import Limits
from server.rules import RULES
from server.rules.cards import parse_cards
from server.wire import bodies, ratings
from server.wire import views as wv

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
CLIENT_README = (ROOT / "clients" / "python" / "README.md").read_text(encoding="utf-8")


def _row(path: str) -> str:
    return next(line for line in PROTOCOL.splitlines() if line.startswith(f"| `{path}` |"))


def _fields(struct: type) -> set[str]:
    return {f.encode_name for f in msgspec.structs.fields(struct)}


def test_the_create_match_row_names_every_preset_and_every_field():
    row = _row("POST /api/matches")
    assert set(
        re.findall(r'rules: ((?:"\w+"\\\|)*"\w+")', row)[0].replace("\\|", " ").replace('"', "").split()
    ) == set(RULES)
    for field in _fields(bodies.CreateMatch):
        assert field in row, field


def test_the_lobby_row_names_every_count():
    counts = set(re.findall(r"\w+", _row("GET /api/lobby").split("|")[3].split("`")[1]))
    assert counts == _fields(ratings.Lobby)
    assert "`Lobby(waiting, playing, seeking)`" in CLIENT_README


def test_every_outcome_reason_is_listed_and_the_view_notes_are_printed_once():
    hint = typing.get_type_hints(wv.Outcome)["reason"]
    reasons = set(typing.get_args(hint))
    listed = re.findall(r'reason: ((?:"\w+"\|)*"\w+")', PROTOCOL)
    assert listed and all(set(found.replace('"', "").split("|")) == reasons for found in listed)
    for note in (
        "- `hand.cards` (and its deprecated",
        "- `hand.deal_commitment` is SHA-256",
        "- `outcome` once",
    ):
        assert PROTOCOL.count(note) == 1, note


def test_the_multiplier_note_says_when_it_is_not_1():
    note = PROTOCOL.split("`hand.multiplier` what the hand's score is multiplied by", 1)[1].split("\n-", 1)[0]
    assert "presets today" not in note and "2 in `oklahoma`" in note
    (spade,) = parse_cards("7s")
    assert RULES["oklahoma"].hand_multiplier(spade) == 2 and RULES["house"].hand_multiplier(spade) == 1


def test_the_client_readme_gives_the_servers_message_rate():
    per_second = int(Limits().ws_rate.split("/")[0])
    assert f"each connection may send {per_second} messages a second" in CLIENT_README


async def test_a_ping_before_hello_is_answered_and_an_act_before_hello_is_unauthorized(make_client):
    assert "A `ping` is answered at any time, before `hello` too" in PROTOCOL
    client = await make_client()
    ws = await client.ws_connect("/ws")
    await ws.send_json({"type": "ping"})
    assert await ws.receive_json() == {"type": "pong"}
    await ws.send_json({"type": "act", "id": "a1", "version": 0, "action": {"kind": "pass"}})
    error = await ws.receive_json()
    assert error["type"] == "error" and error["code"] == "unauthorized" and error["id"] == "a1"
    await ws.close()
