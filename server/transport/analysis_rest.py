"""REST handlers of explained play: ``GET /api/matches/{id}/analysis`` and
``GET /api/matches/{id}/hint``, and their wording (a reason code in a few words, the
luck-versus-skill line). Each is rate limited per player (``Limits.analysis_rate``,
``Limits.hint_rate``) on top of the requests limit, and at most
``Limits.analysis_per_address`` are worked out at once for one client address (the workers'
share a crowd of throwaway players from one place can take). No game logic here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web

from server.bots import analysis as explain
from server.rules import Phase
from server.service.analysis import AnalysisResult, HintResult
from server.service.errors import RateLimited
from server.wire import analysis as wa
from server.wire import convert

from .app import json_response
from .keys import ANALYSING, LIMITER, SERVICE, SETTINGS
from .rest import _client_key, _match_id, _player
from .ws import SocketCounts

routes = web.RouteTableDef()

EXPLANATIONS: dict[str, str] = {
    "gin": "Gin: go down now, nothing scores more.",
    "knock": "Knock now: the opponent is unlikely to undercut.",
    "wait": "Play on rather than knock: an undercut is likely, or gin is near.",
    "melds": "Take it: it makes or extends a meld.",
    "knock_next": "Take it: it lets you knock.",
    "no_use": "Leave it: it does not help your hand.",
    "least_deadwood": "Throw the card that leaves the least deadwood.",
    "safer": "Throw a card the opponent is less likely to use.",
    "keeps_chances": "Keep the cards with more ways to make melds.",
}
"""A few words for each reason code of :data:`server.bots.analysis.REASONS`."""


def _choices(d: explain.Decision) -> list[wa.ValuedAction]:
    return [wa.ValuedAction(convert.action(c.action), c.value) for c in d.choices]


def _phase(phase: Phase) -> wa.DecisionPhase:
    return "upcard" if phase is Phase.UPCARD else "draw" if phase is Phase.DRAW else "discard"


def decision(d: explain.Decision) -> wa.AnalysedDecision:
    return wa.AnalysedDecision(
        step=d.step,
        phase=_phase(d.phase),
        played=convert.action(d.played),
        best=convert.action(d.best),
        reason=d.reason,  # type: ignore[arg-type]
        explanation=EXPLANATIONS[d.reason],
        loss=d.loss,
        mistake=d.mistake,
        choices=_choices(d),
    )


def summary(a: explain.MatchAnalysis) -> str:
    """The luck-versus-skill line."""
    n = len(a.hands)
    if not n:
        return "No hand is finished yet."
    mistakes = sum(len(h.mistakes) for h in a.hands)
    luck = "good" if a.luck > 2 * n else "poor" if a.luck < -2 * n else "average"
    return (
        f"Deals: {a.luck:+.1f} expected points over {n} hand{'s' if n != 1 else ''} ({luck} luck). "
        f"Play: {a.lost:.1f} points lost to decisions that differ from Hard's, "
        f"{mistakes} mistake{'s' if mistakes != 1 else ''}; your opponent lost {a.opponent_lost:.1f} "
        f"the same way. Result: {a.points:+d} point{'s' if abs(a.points) != 1 else ''}."
    )


def analysis(result: AnalysisResult) -> wa.MatchAnalysis:
    a = result.analysis
    return wa.MatchAnalysis(
        match_id=result.meta.match_id,
        seat=a.seat,
        status=result.meta.status,  # type: ignore[arg-type]
        hands=[
            wa.HandAnalysis(
                number=h.number,
                start_value=h.start_value,
                lost=round(h.lost, 1),
                opponent_lost=round(theirs.lost, 1),
                points=points,
                mistakes=[d.step for d in h.mistakes],
                decisions=[decision(d) for d in h.decisions],
                opponent_mistakes=[decision(d) for d in theirs.mistakes],
            )
            for h, theirs, points in zip(a.hands, a.opponent, a.hand_points, strict=True)
        ],
        luck=round(a.luck, 1),
        lost=round(a.lost, 1),
        opponent_lost=round(a.opponent_lost, 1),
        points=a.points,
        summary=summary(a),
        budget=wa.AnalysisBudget(
            worlds=result.worlds, recheck_worlds=result.worlds * explain.RECHECK, mistake=explain.MISTAKE
        ),
    )


def hint(result: HintResult) -> wa.Hint:
    d = result.decision
    return wa.Hint(
        match_id=result.meta.match_id,
        version=result.meta.version,
        phase=_phase(d.phase),
        best=convert.action(d.best),
        reason=d.reason,  # type: ignore[arg-type]
        explanation=EXPLANATIONS[d.reason],
        choices=_choices(d),
    )


@contextmanager
def _one_of_few(request: web.Request) -> Iterator[None]:
    """Count this request among its client address's analyses and hints under way."""
    busy, key = request.app[ANALYSING], _client_key(request)
    if busy[key] >= request.app[SETTINGS].limits.analysis_per_address:
        raise RateLimited(
            "too many analyses and hints under way from this address", limit="analysis_busy", reset_in=1.0
        )
    busy[key] += 1
    try:
        yield
    finally:
        SocketCounts.drop(busy, key)


@routes.get("/api/matches/{match_id}/analysis")
async def match_analysis(request: web.Request) -> web.Response:
    player = await _player(request)
    match_id = _match_id(request)
    await request.app[LIMITER].hit("analysis", player.player_id)
    with _one_of_few(request):
        return json_response(analysis(await request.app[SERVICE].analysis(player, match_id)))


@routes.get("/api/matches/{match_id}/hint")
async def match_hint(request: web.Request) -> web.Response:
    player = await _player(request)
    match_id = _match_id(request)
    await request.app[LIMITER].hit("hint", player.player_id)
    with _one_of_few(request):
        return json_response(hint(await request.app[SERVICE].hint(player, match_id)))


def setup(app: web.Application) -> None:
    app[ANALYSING] = Counter()
    app.router.add_routes(routes)
