"""What clients are shown: match summaries, records, each seat's ``state`` message and its
status line, in English.

Every function here builds from a seat's own :class:`~server.rules.MatchView` (or the public
one) and the match row: it never reads the other hand or the stock, so nothing it returns can
leak a hidden card.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from server.rules import HandResult, MatchView, Phase
from server.service.ports import COMPUTER_SEAT, MatchMeta, MatchRecord, SeatUpdate


def computer_name(difficulty: str | None) -> str:
    return f"Computer ({(difficulty or 'normal').capitalize()})"


def iso(dt: datetime) -> str:
    """``2026-11-29T15:00:00Z``: UTC, second precision."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def players(meta: MatchMeta, connected: tuple[bool, bool] | None = None) -> list[dict[str, Any]]:
    out = []
    for seat in (0, 1):
        computer = meta.opponent == "computer" and seat == COMPUTER_SEAT
        entry: dict[str, Any] = {
            "seat": seat,
            "name": computer_name(meta.difficulty) if computer else meta.seat_names[seat],
            "kind": "computer" if computer else "human",
        }
        if connected is not None:
            entry["connected"] = True if computer else connected[seat]
        out.append(entry)
    return out


def summary(meta: MatchMeta, viewer: str | None = None) -> dict[str, Any]:
    """A match summary; for ``viewer`` (a player id) seated in the match it also says
    ``seat``, the viewer's seat."""
    out = {
        "match_id": meta.match_id,
        "rules": meta.rules,
        "opponent": meta.opponent,
        "difficulty": meta.difficulty,
        "status": meta.status,
        "players": players(meta),
        "scores": list(meta.scores),
        "hands_won": list(meta.hands_won),
        "hand_number": meta.hand_number,
        "winner": meta.winner,
        "outcome": meta.outcome,
        "created_at": iso(meta.created_at),
        "updated_at": iso(meta.updated_at),
        "version": meta.version,
    }
    if viewer is not None and viewer in meta.seat_ids:
        out["seat"] = meta.seat_ids.index(viewer)
    return out


def view_payload(update: SeatUpdate) -> dict[str, Any]:
    """The ``view`` of a ``state`` message: what ``update.seat`` (None: a watcher) sees."""
    meta, seat = update.meta, update.seat
    match_view = update.view.to_wire()
    if meta.status != "active":
        # Waiting for the second player, or over (a resignation leaves a hand unfinished):
        # nothing may be sent, so nothing is offered.
        match_view["hand"]["legal_actions"] = []
        match_view["hand"]["discard_deadwood"] = {}
    return {
        "match_id": meta.match_id,
        "status": meta.status,
        "seat": seat,
        "version": meta.version,
        "players": players(meta, update.connected),
        **{k: v for k, v in match_view.items() if k != "seat"},
        "status_line": status_line(meta, update.view),
    }


def state_message(update: SeatUpdate) -> str:
    """The ``state`` message for ``update``, framed once however many sockets it goes to."""
    if update.text is None:
        message = {"type": "state", "version": update.meta.version, "view": view_payload(update)}
        update.text = msgspec.json.encode(message).decode()
    return update.text


def record(rec: MatchRecord) -> dict[str, Any]:
    """The complete replay of a finished match, for the player in seat ``rec.seat``."""
    meta, state = rec.meta, rec.state
    hands = []
    for i, hand_log in enumerate(state.log):
        entry = hand_log.to_wire()
        entry["result"] = state.results[i].to_wire() if i < len(state.results) else None
        hands.append(entry)
    return {
        "match_id": meta.match_id,
        "seat": rec.seat,
        "rules": meta.rules,
        "seed": meta.seed,
        "first_starter": meta.first_starter,
        "players": players(meta),
        "outcome": meta.outcome,
        "hands": hands,
    }


def _name(meta: MatchMeta, seat: int, viewer: int | None) -> str:
    if seat == viewer:
        return "You"
    if meta.opponent == "computer" and seat == COMPUTER_SEAT:
        return computer_name(meta.difficulty)
    return meta.seat_names[seat] or f"Seat {seat}"


def describe_result(meta: MatchMeta, result: HandResult, viewer: int | None) -> str:
    """One sentence for a finished hand, e.g. ``"Ada knocked: Ada scores 12 (20 - 8 = 12)"``."""
    if result.winner is None:
        return "Dead hand: no score"
    knocker = _name(meta, result.knocker, viewer) if result.knocker is not None else ""
    winner = _name(meta, result.winner, viewer)
    scores = "score" if winner == "You" else "scores"
    match result.kind.value:
        case "gin":
            what = f"{knocker} went gin"
        case "undercut":
            what = f"{knocker} knocked and {'were' if knocker == 'You' else 'was'} undercut"
        case _:
            what = f"{knocker} knocked"
    return f"{what}: {winner} {scores} {result.points} ({result.breakdown})"


def status_line(meta: MatchMeta, view: MatchView) -> str:
    """A short sentence saying what is happening and what the viewer may do."""
    seat = view.seat
    if meta.status == "waiting":
        return "Waiting for an opponent to join"
    outcome = view.outcome
    if outcome is not None:
        winner = _name(meta, outcome.winner, seat)
        verb = "win" if winner == "You" else "wins"
        if outcome.reason == "resign":
            loser = _name(meta, 1 - outcome.winner, seat)
            return f"{loser} resigned: {winner} {verb} the match"
        totals = " to ".join(str(t.total) for t in sorted(outcome.totals, key=lambda t: -t.total))
        return f"{winner} {verb} the match, {totals}"
    hand = view.hand
    prefix = ""
    if view.results and not hand.history:
        prefix = describe_result(meta, view.results[-1], seat) + ". "
    to_act = hand.to_act
    if seat is not None and seat == to_act:
        match hand.phase:
            case Phase.UPCARD:
                doing = "take the upcard or pass"
            case Phase.DRAW:
                only_stock = len(hand.legal_actions) == 1  # both passed the upcard
                doing = "draw from the stock" if only_stock else "draw from the stock or the discard pile"
            case _:
                knocks = any(a.kind == "knock" for a in hand.legal_actions)
                doing = "discard a card, or knock" if knocks else "discard a card"
        return f"{prefix}Your turn: {doing}"
    who = _name(meta, to_act, seat)
    if meta.opponent == "computer" and to_act == COMPUTER_SEAT:
        return f"{prefix}{who} is thinking"
    doing = {Phase.UPCARD: "take the upcard or pass", Phase.DRAW: "draw", Phase.DISCARD: "discard"}.get(
        hand.phase, "play"
    )
    return f"{prefix}Waiting for {who} to {doing}"
