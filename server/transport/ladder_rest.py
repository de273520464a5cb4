"""REST handlers for bot accounts and the bot ladder: the standings and an entrant's pairs
(public, rate limited per client address), and for a bot (its token): enrolling and its ladder
matches to play. No game logic here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from aiohttp import web

from server.service.errors import BadRequest
from server.service.ladder_ports import BotRecord, LadderEntry, LadderPair
from server.wire import ladder as lw

from . import present
from .app import json_response
from .keys import SERVICE
from .rest import _int_query, _limit, _player, _ws_url

routes = web.RouteTableDef()


def bot_info(bot: BotRecord | None) -> lw.BotInfo | None:
    return None if bot is None else lw.BotInfo(bot.owner, bot.description)


def standing(e: LadderEntry, rank: int) -> lw.LadderStanding:
    kind: Literal["bot", "reference"] = "reference" if e.reference else "bot"
    return lw.LadderStanding(
        rank,
        e.player_id,
        e.name,
        kind,
        round(e.rating, 1),
        round(e.deviation, 1),
        e.games,
        present.iso(e.updated_at),
    )


def _iso(at: datetime | None) -> str | None:
    return None if at is None else present.iso(at)


def _pair(p: LadderPair, names: dict[str, str]) -> lw.LadderPairView:
    return lw.LadderPairView(
        p.pair_id,
        p.a,
        names.get(p.a, ""),
        p.b,
        names.get(p.b, ""),
        p.rules,
        list(p.match_ids),
        p.status,  # type: ignore[arg-type]
        present.iso(p.created_at),
        _iso(p.finished_at),
        p.wins,
        p.points,
        p.score,
    )


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None else round(x, digits)


@routes.get("/api/ladder")
async def ladder(request: web.Request) -> web.Response:
    await _limit(request)
    service = request.app[SERVICE]
    standings = await service.ladder.standings()
    return json_response(lw.Ladder(service.ladder.on, [standing(s.entry, s.rank) for s in standings]))


@routes.get("/api/ladder/pairs")
async def ladder_pairs(request: web.Request) -> web.Response:
    await _limit(request)
    player_id = request.query.get("player")
    if not player_id or len(player_id) > 32:
        raise BadRequest("player must name a ladder entrant: GET /api/ladder/pairs?player=PLAYER_ID")
    service = request.app[SERVICE]
    pairs, pairings = await service.ladder.pairs(player_id, limit=_int_query(request, "limit", 20))
    names = {s.entry.player_id: s.entry.name for s in await service.ladder.standings()}
    return json_response(
        lw.LadderPairs(
            player_id,
            [_pair(p, names) for p in pairs],
            [
                lw.Pairing(
                    p.opponent_id,
                    names.get(p.opponent_id, ""),
                    p.pairs,
                    round(p.score, 3),
                    round(p.score_low, 3),
                    round(p.score_high, 3),
                    round(p.points, 1),
                    _round(p.points_low, 1),
                    _round(p.points_high, 1),
                )
                for p in pairings
            ],
        )
    )


@routes.post("/api/ladder/entries")
async def enroll(request: web.Request) -> web.Response:
    player = await _player(request)
    entry = await request.app[SERVICE].ladder.enroll(player)
    standings = await request.app[SERVICE].ladder.standings()
    rank = next((s.rank for s in standings if s.entry.player_id == entry.player_id), len(standings))
    return json_response(lw.LadderEnrolled(standing(entry, rank)))


@routes.get("/api/ladder/matches")
async def ladder_matches(request: web.Request) -> web.Response:
    player = await _player(request)
    found = await request.app[SERVICE].ladder.matches_for(player)
    url = _ws_url(request)
    return json_response(
        lw.LadderMatches([lw.LadderMatch(m.match_id, m.pair.pair_id, m.seat, url) for m in found])
    )


def setup(app: web.Application) -> None:
    app.router.add_routes(routes)
