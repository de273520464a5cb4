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
import random
import sqlite3
import string
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from server.bench import load

from .fuzz_cases import SEED, WS_MESSAGES_PER_SOCKET, Case, act, rest_cases, ws_case

pytestmark = pytest.mark.slow


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


async def fuzz_rest(
    sessions, url: str, tok: dict[str, str], mid: str, computer: str, rng: random.Random
) -> int:
    cases = rest_cases(tok, mid, computer, rng)

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
