"""Fuzzing a real server process with bad input: thousands of malformed, oversized, out-of-turn,
stale, duplicated and illegal WebSocket messages and REST bodies. Every one is answered with its
own error (or, for a repeated action id with the same action, with the original ack), nothing
changes (same views, versions and database rows before and after), and the server logs no
traceback.

The messages come from a seeded generator (``GINRUMMY_FUZZ_SEED`` to replay another seed); every
case is built so that its right answer is known without asking the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import string
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from server.bench import load

pytestmark = pytest.mark.slow

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


class Wire:
    """A raw socket: send one message, read its one answer (keeping any state in between)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.states: list[dict[str, Any]] = []

    async def send(self, payload: str | bytes) -> None:
        if isinstance(payload, bytes):
            await self.ws.send_bytes(payload)
        else:
            await self.ws.send_str(payload)

    async def answer(self, timeout: float = 10) -> dict[str, Any]:
        while True:
            msg = await self.ws.receive(timeout=timeout)
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"socket closed: {msg.type.name} {self.ws.close_code}")
            data = json.loads(msg.data)
            if data["type"] == "state":
                self.states.append(data)
                continue
            return data

    async def next(self, timeout: float = 10) -> dict[str, Any]:
        msg = await self.ws.receive(timeout=timeout)
        assert msg.type == aiohttp.WSMsgType.TEXT, (msg.type.name, self.ws.close_code)
        return json.loads(msg.data)

    async def drain(self, quiet: float = 0.3) -> None:
        while True:
            try:
                msg = await self.ws.receive(timeout=quiet)
            except TimeoutError:
                return
            if msg.type == aiohttp.WSMsgType.TEXT:
                data = json.loads(msg.data)
                if data["type"] == "state":
                    self.states.append(data)


async def hello(session: aiohttp.ClientSession, url: str, match_id: str, token: str) -> Wire:
    wire = Wire(await session.ws_connect(url.replace("http", "ws", 1) + "/ws"))
    await wire.send(json.dumps({"type": "hello", "match": match_id, "token": token}))
    msg = await wire.ws.receive(timeout=10)
    data = json.loads(msg.data)
    assert data["type"] == "state", data
    wire.states.append(data)
    return wire


def comparable(view: dict[str, Any]) -> dict[str, Any]:
    """A view without who is connected (fuzzing sockets come and go)."""
    return {**view, "players": [{k: v for k, v in p.items() if k != "connected"} for p in view["players"]]}


async def snapshot(session, url, match_id, tokens) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for token in tokens:
        wire = await hello(session, url, match_id, token)
        state = wire.states[0]
        out.append((state["version"], comparable(state["view"])))
        await wire.ws.close()
    return out


def table_rows(db: Path) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out: dict[str, Any] = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
        out["versions"] = sorted(conn.execute("SELECT id, version, status FROM matches").fetchall())
    return out


async def post(session, url, path, body=None, token=None) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with session.post(url + path, json=body, headers=headers) as r:
        return r.status, await r.json()


async def test_thousands_of_bad_messages_and_bodies_are_each_answered_and_change_nothing(tmp_path):
    db = tmp_path / "fuzz.db"
    server = load.start_server(
        f"sqlite+aiosqlite:///{db}", tmp_path, {"GINRUMMY_BOT_DELAY": "0", "GINRUMMY_LOG_LEVEL": "info"}
    )
    rng = random.Random(SEED)
    try:
        await load.wait_healthy(server.url, server.process)
        url = server.url
        async with load.client_sessions(25 * load.CLIENTS_PER_ADDRESS, url) as sessions:
            s0 = sessions[0]
            people = {}
            for name in ("Ada", "Bob", "Carol", "Dan"):
                status, people[name] = await post(s0, url, "/api/players", {"name": name})
                assert status == 201
            tok = {n: p["token"] for n, p in people.items()}
            status, human = await post(s0, url, "/api/matches", {"opponent": "human"}, tok["Ada"])
            assert status == 201
            mid = human["match_id"]
            status, _ = await post(
                s0, url, f"/api/matches/{mid}/join", {"invite": human["invite"]["code"]}, tok["Bob"]
            )
            assert status == 200
            status, computer = await post(s0, url, "/api/matches", {}, tok["Dan"])
            assert status == 201

            # One real action, so that a repeated id has something to repeat.
            sockets = {
                "ada": await hello(s0, url, mid, tok["Ada"]),
                "ada2": await hello(s0, url, mid, tok["Ada"]),
                "bob": await hello(s0, url, mid, tok["Bob"]),
                "bob2": await hello(s0, url, mid, tok["Bob"]),
                "watcher": await hello(s0, url, mid, human["watch_token"]),
            }
            for w in sockets.values():
                await w.drain()
            view = sockets["ada"].states[-1]["view"]
            to_act = view["hand"]["to_act"]
            actor = sockets["ada" if to_act == 0 else "bob"]
            version = actor.states[-1]["version"]
            legal_action = actor.states[-1]["view"]["hand"]["legal_actions"][0]
            legit_msg = act("legit-1", version, legal_action)
            await actor.send(legit_msg)
            ack = await actor.answer()
            assert ack == {"type": "ack", "id": "legit-1", "version": version + 1}
            for w in sockets.values():
                await w.drain()
            now = sockets["ada"].states[-1]
            ctx_base = {
                "version": now["version"],
                "legit": ("legit-1", version + 1, legit_msg),
            }
            seat_to_act = now["view"]["hand"]["to_act"]
            legal = {
                0: sockets["ada"].states[-1]["view"]["hand"]["legal_actions"],
                1: sockets["bob"].states[-1]["view"]["hand"]["legal_actions"],
            }
            before_views = await snapshot(s0, url, mid, [tok["Ada"], tok["Bob"], human["watch_token"]])
            before_rows = table_rows(db)

            counts: dict[str, int] = {}

            async def fuzz_socket(name: str, wire: Wire, seat: int | None, seed: int) -> None:
                srng = random.Random(seed)
                role = "watcher" if seat is None else ("to_act" if seat == seat_to_act else "waiting")
                ctx = {**ctx_base, "legal": legal.get(seat, [])}
                if seat != to_act:
                    ctx["legit"] = None  # another seat's id is not this seat's
                started = time.monotonic()
                for i in range(WS_MESSAGES_PER_SOCKET):
                    # Stay under the per-socket rate (100/s) and the 50-errors-in-a-row close.
                    case = (
                        Case(json.dumps({"type": "ping"}), "pong")
                        if i % 25 == 24
                        else ws_case(srng, role, ctx)
                    )
                    await asyncio.sleep(max(0.0, started + i / 80 - time.monotonic()))
                    states_before = len(wire.states)
                    await wire.send(case.payload)
                    answer = await wire.answer()
                    where = f"seed {SEED}, socket {name}, message {i}: sent {str(case.payload)[:200]!r}"
                    if case.expect == "pong":
                        assert answer == {"type": "pong"}, where
                    elif case.expect == "ack":
                        assert answer == {"type": "ack", "id": case.id, "version": case.ack_version}, where
                    else:
                        assert answer["type"] == "error", (where, answer)
                        assert answer["code"] == case.expect, (where, answer)
                        assert answer["message"], where
                        if case.id is not None:
                            assert answer["id"] == case.id, (where, answer)
                    if case.resync:
                        resync = await wire.next()
                        assert resync["type"] == "state" and resync["version"] == ctx["version"], where
                    counts[case.expect] = counts.get(case.expect, 0) + 1
                    new_states = wire.states[states_before:]
                    # The only state a bad message earns is the resync after stale_version, and
                    # it shows the unchanged version.
                    assert all(s["version"] == ctx["version"] for s in new_states), where

            seats = {"ada": 0, "ada2": 0, "bob": 1, "bob2": 1, "watcher": None}
            seen = {n: len(w.states) for n, w in sockets.items()}
            await asyncio.gather(
                *(fuzz_socket(n, w, seats[n], SEED + k) for k, (n, w) in enumerate(sockets.items()))
            )
            for n, w in sockets.items():
                await w.drain()
                assert all(s["version"] == ctx_base["version"] for s in w.states[seen[n] :]), n
            ws_total = sum(counts.values())
            assert ws_total == WS_MESSAGES_PER_SOCKET * len(sockets)
            for code in (
                "bad_request",
                "too_large",
                "stale_version",
                "not_your_turn",
                "illegal_action",
                "unauthorized",
                "ack",
                "pong",
            ):
                assert counts.get(code, 0) > 20, counts

            # Sockets that must be closed: a bad hello, an unknown match, a frame over 64 KiB.
            closes = await fuzz_closing_sockets(sessions, url, mid, rng)

            rest_total = await fuzz_rest(sessions, url, tok, mid, computer["match_id"], rng)

            after_views = await snapshot(s0, url, mid, [tok["Ada"], tok["Bob"], human["watch_token"]])
            assert after_views == before_views
            assert table_rows(db) == before_rows
            for w in sockets.values():
                await w.ws.close()
        assert ws_total + closes + rest_total >= 5000
        # The figures (shown with pytest -s).
        print(
            f"\nfuzz: {ws_total} WebSocket messages answered {dict(sorted(counts.items()))}, "
            f"{closes} sockets closed with their code, {rest_total} REST requests refused; "
            "views, versions and rows unchanged"
        )
    finally:
        load.stop_server(server)
    logs = server.log_path.read_text(errors="replace")
    assert "Traceback" not in logs, logs[-4000:]
    assert '"level":"error"' not in logs.replace(" ", ""), logs[-4000:]
    assert '"level":"critical"' not in logs.replace(" ", "")


async def fuzz_closing_sockets(sessions, url: str, match_id: str, rng: random.Random) -> int:
    """Hellos that must be refused and close the socket with their code, acts before any hello,
    undecodable binary frames and frames over the 64 KiB limit."""
    ws_url = url.replace("http", "ws", 1) + "/ws"
    count = 0

    async def expect_close(session, first: str | bytes, code: str | None, close: int) -> None:
        async with session.ws_connect(ws_url) as ws:
            if isinstance(first, bytes):
                await ws.send_bytes(first)
            else:
                await ws.send_str(first)
            if code is not None:
                msg = await ws.receive(timeout=10)
                data = json.loads(msg.data)
                assert data["type"] == "error" and data["code"] == code, (first[:100], data)
            msg = await ws.receive(timeout=10)
            assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), msg
            assert ws.close_code == close, (first[:100], ws.close_code)

    async def expect_error(session, first: str | bytes, code: str) -> None:
        async with session.ws_connect(ws_url) as ws:
            if isinstance(first, bytes):
                await ws.send_bytes(first)
            else:
                await ws.send_str(first)
            data = json.loads((await ws.receive(timeout=10)).data)
            assert data["type"] == "error" and data["code"] == code, (first[:100], data)

    jobs = []
    for i in range(40):
        session = sessions[i % len(sessions)]
        token = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randrange(1, 100)))
        jobs.append(
            expect_close(
                session,
                json.dumps({"type": "hello", "match": match_id, "token": token}),
                "unauthorized",
                4001,
            )
        )
        unknown = "m_" + "".join(rng.choice(string.ascii_letters) for _ in range(rng.randrange(1, 60)))
        jobs.append(
            expect_close(
                session, json.dumps({"type": "hello", "match": unknown, "token": "t"}), "not_found", 4004
            )
        )
        jobs.append(expect_error(session, act(f"early{i}", 0, {"kind": "pass"}), "unauthorized"))
        jobs.append(expect_error(session, bytes([0xFF, 0xFE, rng.randrange(256)]), "bad_request"))
    for i in range(5):
        jobs.append(expect_close(sessions[i], "x" * (65 * 1024 + i), None, 1009))
    await load.gather_limited(jobs, 16)
    count += len(jobs)
    return count


def _rest_cases(tok: dict[str, str], mid: str, computer: str, rng: random.Random) -> list[tuple]:
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


async def fuzz_rest(
    sessions, url: str, tok: dict[str, str], mid: str, computer: str, rng: random.Random
) -> int:
    cases = _rest_cases(tok, mid, computer, rng)

    async def one(case: tuple) -> None:
        group, method, path, token, body, status, code = case
        if isinstance(token, tuple):
            headers = (
                {}
                if token[1] is None
                else {"Authorization": token[1] if token[1].startswith("Bearer") else f"Bearer {token[1]}"}
            )
        else:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
        if body is not None:
            headers["Content-Type"] = "application/json"
        async with sessions[group].request(method, url + path, data=body, headers=headers) as r:
            text = await r.text()
            where = f"seed {SEED}: {method} {path} {body!r:.120} -> {r.status} {text[:200]}"
            assert r.status == status, where
            data = json.loads(text)
            assert set(data) == {"error"} and data["error"]["code"] == code and data["error"]["message"], (
                where
            )

    await load.gather_limited([one(c) for c in cases], 12)
    return len(cases)
