"""What every HTTP answer carries and what no request can provoke: security headers on files,
API answers and errors; a documented 4xx (never a 500) for NUL bytes in a path; ``Allow`` on
405; no human named like the computer; and no secret in the log, even at debug level."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from server.service.logs import JsonFormatter, configure
from server.transport.keys import SERVICE

from .helpers import Socket, auth, new_match, new_player
from .test_rest import error_of

STRICT = {
    "default-src 'self'",
    "script-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
}


def directives(response) -> set[str]:
    return {d.strip() for d in response.headers["Content-Security-Policy"].split(";")}


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/js/main.js",
        "/style.css",
        "/v/0123456789abcdef/app.css",
        "/api/rules",
        "/api/nothing",
        "/healthz",
    ],
)
async def test_every_answer_carries_the_security_headers(make_client, path):
    client = await make_client()
    r = await client.get(path)
    assert directives(r) >= STRICT, r.headers["Content-Security-Policy"]
    assert "'unsafe-inline'" not in r.headers["Content-Security-Policy"]
    assert r.headers["Referrer-Policy"] == "no-referrer"  # watch and invite links carry secrets
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Frame-Options"] == "DENY"


async def test_the_api_docs_page_allows_only_its_own_inline_style(make_client):
    client = await make_client()
    r = await client.get("/api/docs")
    style = next(d for d in directives(r) if d.startswith("style-src"))
    assert style.startswith("style-src 'sha256-") and "unsafe" not in style
    assert {"script-src 'self'", "frame-ancestors 'none'"} <= directives(r)


@pytest.mark.parametrize("path", ["/%00", "/js/%00main.js", "/js/main.js%00"])
async def test_a_nul_byte_in_a_path_is_not_found_not_a_server_error(make_client, path):
    client = await make_client()
    await error_of(await client.get(path), 404, "not_found")


async def test_a_wrong_method_answers_405_with_allow(make_client):
    client = await make_client()
    r = await client.delete("/api/players")
    await error_of(r, 405, "bad_request")
    assert "POST" in r.headers["Allow"]


@pytest.mark.parametrize("name", ["Computer (Hard)", "computer", "COMPUTER  easy!"])
async def test_a_human_cannot_take_a_name_that_reads_as_the_computer(make_client, name):
    client = await make_client()
    error = await error_of(await client.post("/api/players", json={"name": name}), 400, "bad_request")
    assert "computer" in error["message"]


async def test_at_debug_level_no_log_line_holds_a_seed_a_token_or_an_invite(make_client, settings):
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(JsonFormatter().format(record))

    root = logging.getLogger()
    saved = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in ("sqlalchemy", "aiosqlite", "asyncpg")}
    configure("debug")
    root.addHandler(Keep())
    try:
        client = await make_client()
        ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
        vs_computer = await new_match(client, ada, difficulty="easy")
        friendly = await new_match(client, ada, opponent="human")
        r = await client.post(
            f"/api/matches/{friendly['match_id']}/join",
            json={"invite": friendly["invite"]["code"]},
            headers=auth(bob),
        )
        assert r.status == 200
        sock = await Socket.connect(client)
        assert (await sock.hello(vs_computer["match_id"], ada["token"]))["type"] == "state"
        await sock.ws.close()
        await client.post(f"/api/matches/{vs_computer['match_id']}/resign", headers=auth(ada))
        record = await (
            await client.get(f"/api/matches/{vs_computer['match_id']}/record", headers=auth(ada))
        ).json()
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
    assert any("sqlalchemy" in line or "match created" in line for line in lines), "the log was captured"
    meta = await client.app[SERVICE].store.load_meta(vs_computer["match_id"])
    assert meta is not None and record["seed"] is None  # a sha256 record never shows the match seed
    secrets = [
        meta.seed,
        ada["token"],
        bob["token"],
        vs_computer["watch_token"],
        friendly["invite"]["code"],
    ]
    for line in lines:
        for secret in secrets:
            assert secret not in line, line


async def test_with_the_sqlite_file_locked_a_rest_write_answers_unavailable_promptly(
    make_client, settings, monkeypatch
):
    import sqlite3
    import time

    from server.storage import engine as storage_engine

    monkeypatch.setattr(storage_engine, "SQLITE_BUSY_SECONDS", 0.3)
    client = await make_client()
    await new_player(client, "Ada")  # the app works, and its connections are open
    path = storage_engine.sqlite_path(settings.database_url)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the file
    try:
        started = time.monotonic()
        r = await client.post("/api/players", json={"name": "Bob"})
        await error_of(r, 503, "unavailable")
        assert time.monotonic() - started < 5
    finally:
        other.execute("ROLLBACK")
        other.close()
    await new_player(client, "Bob")  # and once the lock is gone, it works again


async def test_with_the_sqlite_file_locked_joining_and_resigning_answer_unavailable_promptly(
    make_client, settings, monkeypatch
):
    import sqlite3
    import time

    from server.storage import engine as storage_engine

    monkeypatch.setattr(storage_engine, "SQLITE_BUSY_SECONDS", 0.3)
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    friendly = await new_match(client, ada, opponent="human")
    vs_computer = await new_match(client, ada, difficulty="easy")
    other = sqlite3.connect(storage_engine.sqlite_path(settings.database_url), isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the file
    try:
        started = time.monotonic()
        join = f"/api/matches/{friendly['match_id']}/join"
        await error_of(
            await client.post(join, json={"invite": friendly["invite"]["code"]}, headers=auth(bob)),
            503,
            "unavailable",
        )
        resign = f"/api/matches/{vs_computer['match_id']}/resign"
        await error_of(await client.post(resign, headers=auth(ada)), 503, "unavailable")
        assert time.monotonic() - started < 10
    finally:
        other.execute("ROLLBACK")
        other.close()
    r = await client.post(join, json={"invite": friendly["invite"]["code"]}, headers=auth(bob))
    assert r.status == 200, await r.text()  # and once the lock is gone, the same call works


async def test_with_every_pooled_connection_busy_a_request_answers_unavailable(make_client):
    """A burst of thousands of requests at once (a restart's players all asking for their
    records) waits for the pool's connections; one that waits past the pool's timeout is told
    to try again (503 unavailable), not answered with an internal error."""
    from server.transport.keys import ENGINE

    client = await make_client()
    ada = await new_player(client, "Ada")
    pool = client.server.app[ENGINE].sync_engine.pool
    pool._timeout = 0.2  # the pool's wait for a connection (30 s by default)
    held = [await client.server.app[ENGINE].connect() for _ in range(pool.size() + pool._max_overflow)]
    try:
        await error_of(await client.get("/api/players/me", headers=auth(ada)), 503, "unavailable")
    finally:
        for conn in held:
            await conn.close()
    assert (await client.get("/api/players/me", headers=auth(ada))).status == 200


async def test_healthz_says_not_ready_while_the_database_is_unreachable(make_client, monkeypatch):
    from server.transport import rest

    client = await make_client()
    assert (await client.get("/healthz")).status == 200
    monkeypatch.setattr(rest, "reachable", _unreachable)
    r = await client.get("/healthz")
    assert r.status == 503 and (await r.json()) == {"status": "database_unavailable"}


async def _unreachable(engine, timeout):
    return False


async def test_a_database_that_refuses_connections_is_not_reachable(tmp_path):
    from server.storage import create_engine, reachable

    refused = create_engine("postgresql+asyncpg://postgres@127.0.0.1:1/nowhere")
    working = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'ok.db'}")
    try:
        assert not await reachable(refused, timeout=2.0)
        assert await reachable(working, timeout=2.0)
    finally:
        await refused.dispose()
        await working.dispose()


async def test_a_body_that_does_not_arrive_in_time_is_refused_and_the_connection_freed(make_client, settings):
    import asyncio

    client = await make_client(limits=dataclasses.replace(settings.limits, http_body_seconds=0.3))
    reader, writer = await asyncio.open_connection(client.host, client.port)
    writer.write(
        b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 40\r\n\r\n{"  # one byte of forty, then nothing
    )
    await writer.drain()
    status_line = await asyncio.wait_for(reader.readline(), timeout=5)
    assert status_line.startswith(b"HTTP/1.1 400"), status_line
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
    assert b"application/json" in head
    writer.close()


async def test_healthz_answers_from_a_recent_commit_while_every_pooled_connection_is_busy(make_client):
    """A reconnecting crowd can hold every pooled connection (loading matches) while moves still
    commit: the health check believes a commit of the last two seconds instead of queueing a
    probe behind the crowd, and probes again once commits stop."""
    from server.transport.keys import COMMITS, ENGINE
    from server.transport.rest import HEALTH_FRESH_SECONDS

    from .test_ws import human_match, to_act

    client = await make_client()
    _m, _ada, _bob, a, b = await human_match(client)
    commits = client.server.app[COMMITS]
    now = [100.0]
    commits._monotonic = lambda: now[0]
    mover, _ = to_act(a, a, b)
    await mover.act({"kind": "pass"})
    assert (await mover.recv())["type"] == "ack"
    assert commits.committed_at == 100.0
    engine = client.server.app[ENGINE]
    pool = engine.sync_engine.pool
    pool._timeout = 0.2  # the pool's wait for a connection (30 s by default)
    held = [await engine.connect() for _ in range(pool.size() + pool._max_overflow)]
    try:
        assert (await client.get("/healthz")).status == 200  # the commit vouches
        now[0] += HEALTH_FRESH_SECONDS + 0.1
        r = await client.get("/healthz")  # too old: the probe waits for the pool, in vain
        assert r.status == 503 and (await r.json()) == {"status": "database_unavailable"}
    finally:
        for conn in held:
            await conn.close()
    assert (await client.get("/healthz")).status == 200


@pytest.mark.parametrize(
    ("path", "allow"),
    [
        ("/api/players", "POST"),
        ("/api/matches/m_x/resign", "POST"),
        ("/api/sessions/revoke-others", "DELETE, POST"),  # DELETE /api/sessions/{session_id} too
        ("/api/sessions/s_x", "DELETE"),
    ],
)
async def test_a_get_of_a_path_that_takes_other_methods_is_405_with_allow_not_404(make_client, path, allow):
    client = await make_client()
    r = await client.get(path)
    await error_of(r, 405, "bad_request")
    assert r.headers["Allow"] == allow
    head = await client.head(path)
    assert head.status == 405 and head.headers["Allow"] == allow


async def test_an_unknown_api_path_stays_404(make_client):
    client = await make_client()
    for path in ("/api/nothing", "/api/matches/m_x/nothing", "/ws/nothing"):
        await error_of(await client.get(path), 404, "not_found")
