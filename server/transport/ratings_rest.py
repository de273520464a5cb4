"""REST handlers for ratings and the lobby: a player's rating, its history and public page, the
leaderboard, the open challenges (list and accept) and the live counts. Reads are public (rate
limited per client address); accepting needs the player's token. No game logic here.
"""

from __future__ import annotations

import re

import msgspec
from aiohttp import web

from server.service.errors import NotFound
from server.service.rating_ports import RatingRecord
from server.wire import messages as w

from . import present
from .app import json_response
from .keys import SERVICE
from .ladder_rest import bot_info
from .rest import _caps, _int_query, _limit, _match_id, _player, _ws_url

routes = web.RouteTableDef()

_PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
RECENT = 10
"""Finished matches on a player's page."""


def _player_id(request: web.Request) -> str:
    player_id = request.match_info["player_id"]
    if not _PLAYER_ID.fullmatch(player_id):
        raise NotFound(f"no player {player_id!r}")
    return player_id


def _rating(request: web.Request, r: RatingRecord | None) -> w.Rating | None:
    if r is None:
        return None
    return w.Rating(
        round(r.rating, 1),
        round(r.deviation, 1),
        round(r.volatility, 6),
        r.games,
        present.iso(r.updated_at),
        request.app[SERVICE].ratings.provisional(r),
    )


@routes.get("/api/players/{player_id}/rating")
async def player_rating(request: web.Request) -> web.Response:
    await _limit(request)
    pr = await request.app[SERVICE].ratings.rating(_player_id(request))
    return json_response(w.PlayerRating(pr.player_id, pr.name, _rating(request, pr.rating)))


@routes.get("/api/players/{player_id}/rating/history")
async def rating_history(request: web.Request) -> web.Response:
    await _limit(request)
    player_id = _player_id(request)
    limit, offset = _int_query(request, "limit", 50), _int_query(request, "offset", 0)
    changes, total = await request.app[SERVICE].ratings.history(player_id, limit=limit, offset=offset)
    points = [
        w.RatingPoint(c.match_id, round(c.rating, 1), round(c.deviation, 1), c.games, present.iso(c.rated_at))
        for c in changes
    ]
    return json_response(w.RatingHistory(player_id, points, total, limit, offset))


@routes.get("/api/players/{player_id}/profile")
async def player_page(request: web.Request) -> web.Response:
    await _limit(request)
    service = request.app[SERVICE]
    pr = await service.ratings.rating(_player_id(request))
    stats = await service.store.stats(pr.player_id)
    recent, _ = await service.store.list_matches(
        pr.player_id, status="finished", rules=None, opponent=None, limit=RECENT, offset=0
    )
    return json_response(
        w.PlayerPage(
            pr.player_id,
            pr.name,
            _rating(request, pr.rating),
            msgspec.convert(stats, w.Stats),
            [present.summary(m, pr.player_id) for m in recent],
            bot_info(await service.bots.bot(pr.player_id)),
        )
    )


@routes.get("/api/leaderboard")
async def leaderboard(request: web.Request) -> web.Response:
    await _limit(request)
    limit, offset = _int_query(request, "limit", 20), _int_query(request, "offset", 0)
    ratings = request.app[SERVICE].ratings
    ranked, total = await ratings.leaderboard(limit=limit, offset=offset)
    bots = await request.app[SERVICE].bots.bots([p.rating.player_id for p in ranked])
    rows = [
        w.LeaderboardEntry(
            offset + i + 1,
            p.rating.player_id,
            p.name,
            round(p.rating.rating, 1),
            round(p.rating.deviation, 1),
            p.rating.games,
            bot_info(bots.get(p.rating.player_id)),
        )
        for i, p in enumerate(ranked)
    ]
    return json_response(w.Leaderboard(rows, total, limit, offset, ratings.min_games, ratings.max_deviation))


@routes.get("/api/challenges")
async def challenges(request: web.Request) -> web.Response:
    await _limit(request)
    limit, offset = _int_query(request, "limit", 20), _int_query(request, "offset", 0)
    found, total = await request.app[SERVICE].lobby.challenges(limit=limit, offset=offset)
    rows = [
        w.OpenChallenge(
            match_id=c.meta.match_id,
            rules=c.meta.rules,
            rated=c.meta.rated,
            creator_id=c.meta.seat_ids[0] or "",
            creator=c.meta.seat_names[0] or "",
            rating=None if c.rating is None else round(c.rating.rating, 1),
            deviation=None if c.rating is None else round(c.rating.deviation, 1),
            created_at=present.iso(c.meta.created_at),
            provisional=c.rating is None or request.app[SERVICE].ratings.provisional(c.rating),
        )
        for c in found
    ]
    return json_response(w.ChallengeList(rows, total, limit, offset))


@routes.post("/api/challenges/{match_id}/accept")
async def accept_challenge(request: web.Request) -> web.Response:
    player = await _player(request)
    meta, _seat = await request.app[SERVICE].accept(player, _match_id(request), _caps(request))
    return json_response(present.joined(meta, player.player_id, ws_url=_ws_url(request)))


@routes.get("/api/lobby")
async def lobby(request: web.Request) -> web.Response:
    await _limit(request)
    counts = await request.app[SERVICE].lobby.counts()
    return json_response(w.Lobby(counts.waiting, counts.playing, counts.seeking))


def setup(app: web.Application) -> None:
    app.router.add_routes(routes)
