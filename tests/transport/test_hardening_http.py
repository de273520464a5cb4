"""What every HTTP answer carries and what no request can provoke: security headers on files,
API answers and errors; a documented 4xx (never a 500) for NUL bytes in a path; ``Allow`` on
405; no human named like the computer; and no secret in the log, even at debug level."""

from __future__ import annotations

import logging

import pytest

from server.service.logs import JsonFormatter, configure

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


@pytest.mark.parametrize("path", ["/", "/js/main.js", "/style.css", "/api/rules", "/api/nothing", "/healthz"])
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
    secrets = [
        record["seed"],
        ada["token"],
        bob["token"],
        vs_computer["watch_token"],
        friendly["invite"]["code"],
    ]
    for line in lines:
        for secret in secrets:
            assert secret not in line, line
