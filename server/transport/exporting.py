"""Exports over REST: ``GET /api/matches/{id}/export?format=json|text`` (one match, for one of
its players, as the export Struct or the text notation) and ``GET /api/players/{id}/export``
(all of the player's finished matches, streamed as NDJSON, one export a line, read from the
store a page at a time).

What an export shows is decided here, in :func:`exported`: a hand's hidden cards (the other
dealt hand, the stock, the seed, the cards drawn from the stock) only once the hand and the
match are over.
"""

from __future__ import annotations

import logging

import msgspec
from aiohttp import web

from server.rules import DRAW_STOCK, TAKE_UPCARD, Card, Draw, deal_named
from server.rules.match import HandLog
from server.rules.settle import HandResult
from server.service.errors import BadRequest
from server.service.ports import MatchRecord
from server.wire import convert
from server.wire.export import EXPORT_FORMATS, ExportedAction, ExportedHand, ExportedMatch
from server.wire.notation import format_match

from . import present
from .app import json_response
from .keys import SERVICE
from .rest import _match_id, _player

routes = web.RouteTableDef()
log = logging.getLogger(__name__)

NDJSON = "application/x-ndjson"
_encoder = msgspec.json.Encoder()


def _hand(log_: HandLog, result: HandResult | None, seat: int, revealed: bool) -> ExportedHand:
    """One hand for ``seat``: everything when ``revealed``, else only what the seat has seen."""
    discard: list[Card] = [log_.upcard]
    stock = iter(log_.stock)
    actions = []
    for s, a in log_.actions:
        drawn: str | None = None
        if a == TAKE_UPCARD:
            drawn = discard.pop().code
        elif isinstance(a, Draw):
            card = next(stock) if a == DRAW_STOCK else discard.pop()
            drawn = card.code if revealed or a != DRAW_STOCK else None
        elif hasattr(a, "card"):
            discard.append(a.card)
        actions.append(ExportedAction(s, convert.action(a), drawn))
    return ExportedHand(
        number=log_.number,
        starter=log_.starter,
        seed=log_.seed if revealed else None,
        deal_commitment=log_.commitment,
        hands=[[c.code for c in h] if revealed or s == seat else None for s, h in enumerate(log_.hands)],
        upcard=log_.upcard.code,
        stock=[c.code for c in log_.stock] if revealed else None,
        actions=actions,
        result=convert.hand_result(result) if result is not None else None,
    )


def exported(rec: MatchRecord) -> ExportedMatch:
    """The export of ``rec`` for its seat."""
    meta, state = rec.meta, rec.state
    over = meta.status == "finished"
    results = state.results
    hands = []
    if meta.status != "waiting":
        for i, log_ in enumerate(state.log):
            result = results[i] if i < len(results) else None
            hands.append(_hand(log_, result, rec.seat, over and result is not None))
    return ExportedMatch(
        match_id=meta.match_id,
        status=meta.status,  # type: ignore[arg-type]
        seat=rec.seat,
        rules=meta.rules,
        deal=meta.deal,
        # A verifiable scheme's match seed stays secret for ever; a legacy one once it is over.
        seed=meta.seed if over and not deal_named(meta.deal).verifiable else None,
        first_starter=meta.first_starter,
        players=present.seat_players(meta),
        created_at=present.iso(meta.created_at),
        updated_at=present.iso(meta.updated_at),
        scores=list(meta.scores),
        outcome=convert.outcome(meta.outcome) if over else None,
        hands=hands,
    )


def _only(request: web.Request, allowed: set[str]) -> None:
    unknown = set(request.query) - allowed
    if unknown:
        raise BadRequest(f"unknown query parameter(s) {sorted(unknown)}")


@routes.get("/api/matches/{match_id}/export")
async def export_match(request: web.Request) -> web.StreamResponse:
    player = await _player(request)
    _only(request, {"format"})
    fmt = request.query.get("format", "json")
    if fmt not in EXPORT_FORMATS:
        raise BadRequest(f"format must be one of {list(EXPORT_FORMATS)}")
    match_id = _match_id(request)
    export = exported(await request.app[SERVICE].exports.export(player, match_id))
    if fmt == "json":
        return json_response(export)
    return web.Response(
        text=format_match(export),
        content_type="text/plain",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="{match_id}.txt"'},
    )


@routes.get("/api/players/{player_id}/export")
async def export_player(request: web.Request) -> web.StreamResponse:
    player = await _player(request)
    _only(request, set())
    player_id = request.match_info["player_id"]
    if player_id == "me":
        player_id = player.player_id
    records = request.app[SERVICE].exports.export_all(player, player_id)
    # The first export is read before the response starts, so a refusal is still an error body.
    first = await anext(records, None)
    response = web.StreamResponse(
        headers={
            "Content-Type": NDJSON,
            "Content-Disposition": f'attachment; filename="{player_id}.ndjson"',
        }
    )
    await response.prepare(request)
    count = 0
    try:
        if first is not None:
            await response.write(_encoder.encode(exported(first)) + b"\n")
            count += 1
            async for rec in records:
                await response.write(_encoder.encode(exported(rec)) + b"\n")
                count += 1
    except Exception:
        # The status is sent: the stream ends short, and the client sees an unfinished last line.
        log.exception("export of a player's matches stopped", extra={"exported": count})
        raise
    await response.write_eof()
    return response


def setup(app: web.Application) -> None:
    app.router.add_routes(routes)
