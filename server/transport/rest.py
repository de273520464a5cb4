"""REST handlers (``/api/...``, ``/healthz``, ``/metrics``): decode and validate the request,
call the service, encode its answer. No game logic and no storage access here.

Every ``/api`` call except creating a player and reading public documents needs
``Authorization: Bearer TOKEN``; all are rate limited per token (or per client address).
"""

from __future__ import annotations

import asyncio
import hashlib
import re

import msgspec
from aiohttp import web

from server.bots import DIFFICULTIES
from server.rules import RULES
from server.service import PlayerRecord
from server.service.clocks import parse_time_control
from server.service.commands import MatchCaps
from server.service.errors import BadRequest, NotFound, Unauthorized
from server.storage import reachable
from server.wire import convert
from server.wire import messages as w
from server.wire.schema import protocol_schema

from . import present
from .app import json_response
from .asyncapi import asyncapi_document
from .devices import device_label
from .keys import COMMITS, ENGINE, LIMITER, METRICS, SERVICE, SETTINGS
from .openapi import docs_page, openapi_document
from .published import computer_ratings
from .wire import decode_body
from .ws import close_match_sockets

routes = web.RouteTableDef()


def _client_key(request: web.Request) -> str:
    return request.remote or "unknown"


async def _read_body(request: web.Request) -> bytes:
    """The request's body, if it arrives within ``Limits.http_body_seconds``: a client sending
    a byte now and then must not hold a connection open for ever."""
    seconds = request.app[SETTINGS].limits.http_body_seconds
    try:
        async with asyncio.timeout(seconds):
            return await request.read()
    except TimeoutError:
        raise BadRequest(f"the request body did not arrive within {seconds:g} s") from None


def _bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


async def _limit(request: web.Request, token: str | None = None) -> None:
    """Count a request against its player's token (only a token known to be a player's) or,
    without one, against the client address."""
    key = "t:" + hashlib.sha256(token.encode()).hexdigest()[:32] if token else _client_key(request)
    await request.app[LIMITER].hit("requests", key)


async def _player(request: web.Request) -> PlayerRecord:
    """The request's player. A missing or unknown token counts against the client address, so
    random tokens cannot dodge the limit; a player's token counts against itself."""
    token = _bearer(request)
    if token is None:
        await _limit(request)
        raise Unauthorized("missing token: send Authorization: Bearer TOKEN")
    try:
        player = await request.app[SERVICE].authenticate(token)
    except Unauthorized:
        await _limit(request)
        raise
    await _limit(request, token)
    return player


def _caps(request: web.Request) -> MatchCaps:
    limits = request.app[SETTINGS].limits
    return MatchCaps(waiting=limits.max_waiting_matches, active=limits.max_active_matches)


def _ws_url(request: web.Request) -> str:
    scheme = "wss" if request.secure else "ws"
    return f"{scheme}://{request.host}/ws"


def _base_url(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}"


_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _match_id(request: web.Request) -> str:
    """The path's match id; one no match can have (a NUL, a surrogate, an undecodable escape,
    any character outside a match id's alphabet) is ``not_found`` without asking the store."""
    match_id = request.match_info["match_id"]
    if not _MATCH_ID.fullmatch(match_id):
        raise NotFound(f"no match {match_id!r}")
    return match_id


_QUERY_RANGE = {"limit": (1, 100), "offset": (0, 2**31 - 1)}
"""The values each integer query parameter may take (anything else is ``bad_request``)."""


def _int_query(request: web.Request, name: str, default: int) -> int:
    raw = request.query.get(name)
    if raw is None:
        return default
    low, high = _QUERY_RANGE[name]
    wrong = BadRequest(f"{name} must be a whole number between {low} and {high}")
    if not raw.strip().lstrip("+-").isdigit() or len(raw) > 12:
        raise wrong
    value = int(raw)
    if not low <= value <= high:
        raise wrong
    return value


@routes.post("/api/players")
async def create_player(request: web.Request) -> web.Response:
    await request.app[LIMITER].hit("players", _client_key(request))
    body: w.CreatePlayer = decode_body(await _read_body(request), w.CreatePlayer)
    device = device_label(request.headers.get("User-Agent"))
    service = request.app[SERVICE]
    if body.bot is not None:
        player, token, bot = await service.bots.create(
            body.name, body.bot.owner, body.bot.description, device
        )
        info = w.BotInfo(bot.owner, bot.description)
        return json_response(w.NewPlayer(player.player_id, player.name, token, info), status=201)
    player, token = await service.create_player(body.name, device)
    return json_response(w.NewPlayer(player.player_id, player.name, token), status=201)


@routes.get("/api/players/me")
async def me(request: web.Request) -> web.Response:
    player = await _player(request)
    bot = await request.app[SERVICE].bots.bot(player.player_id)
    info = None if bot is None else w.BotInfo(bot.owner, bot.description)
    return json_response(w.Me(player.player_id, player.name, info))


@routes.get("/api/players/me/stats")
async def stats(request: web.Request) -> web.Response:
    player = await _player(request)
    return json_response(msgspec.convert(await request.app[SERVICE].stats(player), w.Stats))


@routes.post("/api/matches")
async def create_match(request: web.Request) -> web.Response:
    player = await _player(request)
    body: w.CreateMatch = decode_body(await _read_body(request), w.CreateMatch)
    tc = body.time_control
    created = await request.app[SERVICE].create_match(
        player,
        opponent=body.opponent,
        difficulty=body.difficulty,
        rules=body.rules,
        caps=_caps(request),
        time_control=None if tc is None else parse_time_control(tc.kind, tc.move_seconds, tc.bank_seconds),
        rated=body.rated,
        public=body.public,
    )
    meta = created.meta
    invite = None
    if created.invite is not None:
        invite = w.Invite(created.invite, f"{_base_url(request)}/#/join/{meta.match_id}/{created.invite}")
    body_out = present.created(
        meta, player.player_id, ws_url=_ws_url(request), watch_token=created.watch_token, invite=invite
    )
    return json_response(body_out, status=201)


@routes.get("/api/matches")
async def list_matches(request: web.Request) -> web.Response:
    player = await _player(request)
    q = request.query
    unknown = set(q) - {"status", "rules", "opponent", "result", "since", "until", "limit", "offset"}
    if unknown:
        raise BadRequest(f"unknown query parameter(s) {sorted(unknown)}")
    limit = _int_query(request, "limit", 20)
    offset = _int_query(request, "offset", 0)
    metas, total = await request.app[SERVICE].list_matches(
        player,
        status=q.get("status") or None,
        rules=q.get("rules") or None,
        opponent=q.get("opponent") or None,
        limit=limit,
        offset=offset,
        result=q.get("result") or None,
        since=q.get("since") or None,
        until=q.get("until") or None,
    )
    return json_response(
        w.MatchList([present.summary(m, player.player_id) for m in metas], total, limit, offset)
    )


@routes.get("/api/matches/{match_id}")
async def match_details(request: web.Request) -> web.Response:
    player = await _player(request)
    meta, hands = await request.app[SERVICE].details(player, _match_id(request))
    return json_response(present.details(meta, player.player_id, hands))


@routes.get("/api/matches/{match_id}/record")
async def match_record(request: web.Request) -> web.Response:
    player = await _player(request)
    rec = await request.app[SERVICE].record(player, _match_id(request))
    return json_response(present.record(rec))


@routes.post("/api/matches/{match_id}/join")
async def join_match(request: web.Request) -> web.Response:
    player = await _player(request)
    body: w.JoinMatch = decode_body(await _read_body(request), w.JoinMatch)
    meta, _seat = await request.app[SERVICE].join(player, _match_id(request), body.invite, _caps(request))
    return json_response(present.joined(meta, player.player_id, ws_url=_ws_url(request)))


@routes.post("/api/matches/{match_id}/resign")
async def resign_match(request: web.Request) -> web.Response:
    player = await _player(request)
    meta = await request.app[SERVICE].resign(player, _match_id(request))
    return json_response(present.summary(meta, player.player_id))


@routes.post("/api/matches/{match_id}/cancel")
async def cancel_match(request: web.Request) -> web.Response:
    player = await _player(request)
    match_id = _match_id(request)
    await request.app[SERVICE].cancel(player, match_id)
    await close_match_sockets(request.app, match_id)
    return web.Response(status=204)


@routes.post("/api/matches/{match_id}/claim")
async def claim_match(request: web.Request) -> web.Response:
    player = await _player(request)
    meta = await request.app[SERVICE].claim(player, _match_id(request))
    return json_response(present.summary(meta, player.player_id))


@routes.post("/api/matches/{match_id}/rematch")
async def offer_rematch(request: web.Request) -> web.Response:
    player = await _player(request)
    meta = await request.app[SERVICE].offer_rematch(player, _match_id(request))
    return json_response(present.summary(meta, player.player_id))


@routes.post("/api/matches/{match_id}/rematch/decline")
async def decline_rematch(request: web.Request) -> web.Response:
    player = await _player(request)
    meta = await request.app[SERVICE].decline_rematch(player, _match_id(request))
    return json_response(present.summary(meta, player.player_id))


@routes.get("/api/rules")
async def rules(request: web.Request) -> web.Response:
    await _limit(request)
    return json_response(w.RulePresets([convert.rule_preset(r) for r in RULES.values()]))


@routes.get("/api/difficulties")
async def difficulties(request: web.Request) -> web.Response:
    await _limit(request)
    published = computer_ratings()
    return json_response(
        w.Difficulties(
            [
                w.DifficultyInfo(d.name, d.label, d.description, published.get(d.name))
                for d in DIFFICULTIES.values()
            ]
        )
    )


@routes.get("/api/openapi.json")
async def openapi(request: web.Request) -> web.Response:
    return json_response(openapi_document())


@routes.get("/api/protocol.schema.json")
async def protocol_schema_document(request: web.Request) -> web.Response:
    return json_response(protocol_schema())


@routes.get("/api/asyncapi.json")
async def asyncapi(request: web.Request) -> web.Response:
    return json_response(asyncapi_document())


@routes.get("/api/docs")
async def docs(request: web.Request) -> web.Response:
    return web.Response(text=docs_page(), content_type="text/html")


HEALTH_FRESH_SECONDS = 2.0
"""A batch committed this recently proves the database reachable (no probe needed)."""


@routes.get("/healthz")
async def healthz(request: web.Request) -> web.Response:
    if request.app[SERVICE].closing:
        return json_response(w.Health("shutting_down"), status=503)
    commits = request.app.get(COMMITS)
    if commits is not None and commits.answered_within(HEALTH_FRESH_SECONDS):
        # Under a reconnecting crowd every pooled connection may be busy loading matches: the
        # probe would wait its turn, and an orchestrator kill a busy but healthy server.
        return json_response(w.Health("ok"))
    if not await reachable(request.app[ENGINE], timeout=2.0):
        return json_response(w.Health("database_unavailable"), status=503)
    return json_response(w.Health("ok"))


@routes.get("/metrics")
async def metrics(request: web.Request) -> web.Response:
    m = request.app[METRICS]
    return web.Response(body=m.render(), headers={"Content-Type": m.content_type})


def setup(app: web.Application) -> None:
    app.router.add_routes(routes)
    _ = app[SETTINGS]  # settings must exist before routes are served
