"""The fuzzer's cases (``test_fuzz.py``): seeded generators of malformed, oversized,
out-of-turn, stale, duplicated and illegal WebSocket messages and REST bodies, each built so that
its right answer is known without asking the server."""

from __future__ import annotations

import json
import os
import random
import string
from dataclasses import dataclass
from typing import Any

SEED = int(os.environ.get("GINRUMMY_FUZZ_SEED", "20261129"))
WS_MESSAGES_PER_SOCKET = 900  # five sockets: 4,500 messages
MAX_MESSAGE = 4096
CARDS = [r + s for r in "A23456789TJQK" for s in "cdhs"]
ALL_ACTIONS = (
    [{"kind": "take_upcard"}, {"kind": "pass"}, {"kind": "draw", "source": "stock"}]
    + [{"kind": "draw", "source": "discard"}]
    + [{"kind": "discard", "card": c} for c in CARDS]
    + [{"kind": "knock", "card": c} for c in CARDS]
)


@dataclass
class Case:
    payload: str | bytes
    expect: str  # an error code, "ack" or "pong"
    id: str | None = None
    ack_version: int | None = None
    resync: bool = False  # stale_version is followed by a fresh state


def junk(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.printable) for _ in range(n))


def act(id_: Any, version: Any, action: Any, **extra: Any) -> str:
    return json.dumps({"type": "act", "id": id_, "version": version, "action": action, **extra})


def malformed_message(rng: random.Random, version: int) -> Case:
    """Anything that is not a well-formed client message: always ``bad_request``."""
    good = act("x1", version, {"kind": "pass"})
    choices = [
        lambda: good[: rng.randrange(1, len(good) - 1)],  # truncated JSON
        lambda: "\x01" + junk(rng, rng.randrange(0, 80)),
        lambda: rng.choice(["", " ", "null", "true", "42", '"act"', "[]", "[1,2]", "{}", "{{}", "}{"]),
        lambda: json.dumps({"type": rng.choice(["move", "ACT", "Hello", "", None, 3, "pong", "state"])}),
        lambda: json.dumps({"type": "act"}),
        lambda: json.dumps({"type": "act", "id": "x2", "version": version}),
        lambda: json.dumps({"type": "act", "id": "x3", "action": {"kind": "pass"}}),
        lambda: act(rng.choice(["", "x" * 65, 7, None, ["a"]]), version, {"kind": "pass"}),
        lambda: act("x4", rng.choice([-1, "3", 1.5, None, True, [version]]), {"kind": "pass"}),
        lambda: act("x5", version, rng.choice([[], "pass", 3, None, [{"kind": "pass"}]])),
        lambda: act("x6", version, {"kind": "pass"}, extra=rng.randrange(100)),
        lambda: json.dumps({"type": "ping", "id": "p"}),
        lambda: json.dumps({"type": "hello", "match": "m_x", "token": "t", "spy": True}),
        lambda: json.dumps({"type": "hello", "match": "", "token": "t"}),
        lambda: json.dumps({"type": "hello", "match": "m_x"}),
    ]
    return Case(rng.choice(choices)(), "bad_request")


def malformed_action(rng: random.Random, version: int) -> Case:
    """A well-formed ``act`` whose action is not an action: ``bad_request``, named by id."""
    action = rng.choice(
        [
            {},
            {"kind": "fly"},
            {"kind": 5},
            {"kind": "discard"},
            {"kind": "knock"},
            {"kind": "discard", "card": rng.choice(["Zz", "10h", "7H", "", "As ", 7, None])},
            {"kind": "draw"},
            {"kind": "draw", "source": rng.choice(["sky", "Stock", "", None, 1])},
            {"kind": "pass", "card": "7h"},
            {"kind": "take_upcard", "source": "stock"},
            {"kind": "discard", "card": "7h", "also": "8h"},
        ]
    )
    msg_id = f"m{rng.randrange(10**9)}"
    return Case(act(msg_id, version, action), "bad_request", id=msg_id)


def oversized(rng: random.Random, version: int) -> Case:
    size = rng.choice([MAX_MESSAGE + 1, MAX_MESSAGE + 100, 10_000, 60_000])
    head = act("big", version, {"kind": "pass"})
    return Case(head[:-1] + " " * (size - len(head)) + "}", "too_large")


def ws_case(rng: random.Random, role: str, ctx: dict[str, Any]) -> Case:
    """One message for a socket whose ``role`` is ``to_act``, ``waiting`` (the other seat) or
    ``watcher``, with the match at ``ctx['version']``."""
    version = ctx["version"]
    pick = rng.random()
    if pick < 0.30:
        return malformed_message(rng, version)
    if pick < 0.35:
        return oversized(rng, version)
    if pick < 0.40:
        return Case(json.dumps({"type": "ping"}), "pong")
    msg_id = f"f{rng.randrange(10**12)}"
    if role == "watcher":
        return Case(act(msg_id, version, rng.choice(ALL_ACTIONS)), "unauthorized", id=msg_id)
    if pick < 0.50:
        return malformed_action(rng, version)
    if pick < 0.62:
        stale = rng.choice([version - 1, version + 1, version + 1000, 0, 2**70])
        if stale == version:
            stale += 1
        return Case(act(msg_id, stale, rng.choice(ALL_ACTIONS)), "stale_version", id=msg_id, resync=True)
    if pick < 0.75 and ctx["legit"] is not None:
        # The action already applied, sent again by any socket of its seat, in turn or not:
        # answered with the original ack, not applied again. Another action under its id is
        # id_reused.
        legit_id, legit_version, legit_msg = ctx["legit"]
        other = legit_msg if rng.random() < 0.5 else act(legit_id, version, rng.choice(ALL_ACTIONS))
        if json.loads(other)["action"] == json.loads(legit_msg)["action"]:
            return Case(other, "ack", id=legit_id, ack_version=legit_version)
        return Case(other, "id_reused", id=legit_id)
    if role == "waiting":
        return Case(act(msg_id, version, rng.choice(ALL_ACTIONS)), "not_your_turn", id=msg_id)
    illegal = [a for a in ALL_ACTIONS if a not in ctx["legal"]]
    return Case(act(msg_id, version, rng.choice(illegal)), "illegal_action", id=msg_id)


def rest_cases(tok: dict[str, str], mid: str, computer: str, rng: random.Random) -> list[tuple]:
    """(session group, method, path, token, body, status, code); every one must fail."""
    cases: list[tuple] = []
    big = json.dumps({"name": "A" * 5000}).encode()

    def bad_json() -> bytes:
        return rng.choice([b"{", b"nope", b'{"name": }', b"\x01" + junk(rng, 30).encode(), b'{"name": "Ada"'])

    player_bodies = [
        bad_json,
        lambda: rng.choice([b"[]", b'"Ada"', b"42", b"null", b"true", b"{}"]),
        lambda: json.dumps({"name": "Ada", rng.choice(["admin", "token", "id"]): True}).encode(),
        lambda: json.dumps({"name": rng.choice([5, None, ["Ada"], {"x": 1}, 1.5, False])}).encode(),
        lambda: json.dumps({"name": rng.choice(["", "x" * rng.randrange(41, 200), "   ", "\t\n"])}).encode(),
        lambda: json.dumps({"name": rng.choice(["A\u0000da", "Ada\u200b", "\u0007", "Ad\u001ba"])}).encode(),
    ]
    # 19 groups of players from their own address, 25 each: under the 30 per minute per address.
    for group in range(1, 20):
        for _ in range(24):
            cases.append(
                (group, "POST", "/api/players", None, rng.choice(player_bodies)(), 400, "bad_request")
            )
        cases.append((group, "POST", "/api/players", None, big, 413, "too_large"))

    match_bodies = [
        bad_json,
        lambda: rng.choice([b"[]", b'"computer"', b"42", b"null"]),
        lambda: json.dumps({"opponent": "computer", rng.choice(["seed", "x", "seat"]): 1}).encode(),
        lambda: json.dumps({"opponent": rng.choice(["robot", "", "Computer", 1, None])}).encode(),
        lambda: json.dumps({"difficulty": rng.choice(["insane", "", 5, None, "Hard"])}).encode(),
        lambda: json.dumps({"rules": rng.choice(["vegas", "", None, ["house"], "House"])}).encode(),
    ]
    names = ["Ada", "Bob", "Carol", "Dan"]
    for i in range(400):
        name = names[i % 4]
        if i % 40 == 0:
            cases.append((0, "POST", "/api/matches", tok[name], big, 413, "too_large"))
        else:
            cases.append(
                (0, "POST", "/api/matches", tok[name], rng.choice(match_bodies)(), 400, "bad_request")
            )
    for i in range(100):
        bad = rng.choice(
            [
                None,
                "x",
                "Bearer",
                tok["Ada"][:-1],
                tok["Ada"] + "x",
                "".join(rng.choice(string.ascii_letters + string.punctuation) for _ in range(20)),
            ]
        )
        method, path = rng.choice(
            [
                ("GET", "/api/matches"),
                ("GET", "/api/players/me"),
                ("POST", "/api/matches"),
                ("GET", f"/api/matches/{mid}"),
                ("POST", f"/api/matches/{mid}/resign"),
            ]
        )
        cases.append(
            (20 + i % 5, method, path, ("RAW", bad), b"{}" if method == "POST" else None, 401, "unauthorized")
        )
    joins = [
        ("Carol", mid, {"invite": "whatever"}, 409, "match_full"),
        ("Ada", mid, {"invite": "whatever"}, 409, "already_joined"),
        ("Carol", computer, {"invite": "whatever"}, 409, "conflict"),
        ("Carol", "m_nothere", {"invite": "x"}, 404, "not_found"),
        ("Carol", mid, {"invite": ""}, 400, "bad_request"),
        ("Carol", mid, {"code": "x"}, 400, "bad_request"),
        ("Carol", mid, {"invite": 5}, 400, "bad_request"),
    ]
    for i in range(140):
        who, target, body, status, code = joins[i % len(joins)]
        cases.append(
            (0, "POST", f"/api/matches/{target}/join", tok[who], json.dumps(body).encode(), status, code)
        )
    queries = [
        "limit=abc",
        "limit=0",
        "limit=101",
        "limit=-5",
        "status=nope",
        "offset=-1",
        "foo=1",
        "rules=vegas",
        "opponent=robot",
        "limit=1.5",
        "status=ACTIVE",
    ]
    for i in range(110):
        cases.append(
            (
                0,
                "GET",
                f"/api/matches?{queries[i % len(queries)]}",
                tok[names[i % 4]],
                None,
                400,
                "bad_request",
            )
        )
    others = [
        ("GET", f"/api/matches/{mid}", "Carol", 403, "forbidden"),
        ("GET", f"/api/matches/{computer}", "Ada", 403, "forbidden"),
        ("GET", "/api/matches/m_nothere", "Ada", 404, "not_found"),
        ("GET", "/api/matches/" + "x" * 40, "Ada", 404, "not_found"),
        ("GET", f"/api/matches/{mid}/record", "Ada", 409, "match_not_over"),
        ("GET", f"/api/matches/{mid}/record", "Carol", 403, "forbidden"),
        ("POST", f"/api/matches/{mid}/resign", "Carol", 403, "forbidden"),
        ("POST", f"/api/matches/{computer}/resign", "Bob", 403, "forbidden"),
        ("POST", "/api/matches/m_nothere/resign", "Bob", 404, "not_found"),
        ("PUT", "/api/players", "Ada", 405, "bad_request"),
        ("DELETE", f"/api/matches/{mid}", "Ada", 405, "bad_request"),
        ("PATCH", "/api/rules", "Ada", 405, "bad_request"),
        ("GET", "/api/nothing", "Ada", 404, "not_found"),
    ]
    for i in range(130):
        method, path, who, status, code = others[i % len(others)]
        cases.append((0, method, path, tok[who], None, status, code))
    rng.shuffle(cases)
    return cases
