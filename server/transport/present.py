"""What clients are shown: match summaries, records, each seat's ``state`` message and its
status line, in English, as the wire Structs of :mod:`server.wire.messages`.

Every function here builds from a seat's own :class:`~server.rules.MatchView` (or the public
one) and the match row: it never reads the other hand or the stock, so nothing it returns can
leak a hidden card.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from server.rules import HandLog, HandResult, MatchView, Phase, deal_named
from server.service.ports import COMPUTER_SEAT, MatchMeta, MatchRecord, SeatUpdate
from server.wire import convert
from server.wire import messages as w

from . import clocks

_encoder = msgspec.json.Encoder()


def computer_name(difficulty: str | None) -> str:
    return f"Computer ({(difficulty or 'normal').capitalize()})"


def iso(dt: datetime) -> str:
    """``2026-11-29T15:00:00Z``: UTC, second precision."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _player_name(meta: MatchMeta, seat: int) -> tuple[str | None, Any]:
    if meta.opponent == "computer" and seat == COMPUTER_SEAT:
        return computer_name(meta.difficulty), "computer"
    return meta.seat_names[seat], "human"


def seat_players(meta: MatchMeta) -> list[w.SeatPlayer]:
    return [w.SeatPlayer(seat, *_player_name(meta, seat)) for seat in (0, 1)]


def players(
    meta: MatchMeta, connected: tuple[bool, bool], bots: tuple[bool, bool] = (False, False)
) -> list[w.Player]:
    """Both seats' players, whether each is connected (the computer always is) and is a bot."""
    names = meta.seat_names
    key = (meta.opponent, meta.difficulty, names[0], names[1], connected, bots)
    out = _PLAYERS.get(key)
    if out is None:
        out = []
        for seat in (0, 1):
            name, kind = _player_name(meta, seat)
            out.append(
                w.Player(seat, name, kind, True if kind == "computer" else connected[seat], bots[seat])
            )
        if len(_PLAYERS) >= _PLAYERS_KEPT:
            _PLAYERS.clear()
        _PLAYERS[key] = out
    return out


_PLAYERS: dict[tuple[object, ...], list[w.Player]] = {}
"""Every view of a match shows the same two players until a seat's connection changes: the list
is made once per (names, connections) and shared by the views (they are only encoded)."""
_PLAYERS_KEPT = 4096


def _summary_fields(meta: MatchMeta, viewer: str | None) -> dict[str, Any]:
    return {
        "match_id": meta.match_id,
        "rules": meta.rules,
        "opponent": meta.opponent,
        "difficulty": meta.difficulty,
        "status": meta.status,
        "players": seat_players(meta),
        "scores": list(meta.scores),
        "hands_won": list(meta.hands_won),
        "hand_number": meta.hand_number,
        "winner": meta.winner,
        "outcome": convert.outcome(meta.outcome),
        "created_at": iso(meta.created_at),
        "updated_at": iso(meta.updated_at),
        "version": meta.version,
        "time_control": clocks.time_control(meta),
        "rematch": clocks.rematch(meta),
        "seat": meta.seat_ids.index(viewer)
        if viewer is not None and viewer in meta.seat_ids
        else msgspec.UNSET,
        "rated": meta.rated,
        "public": meta.public,
    }


def summary(meta: MatchMeta, viewer: str | None = None) -> w.MatchSummary:
    """A match summary; for ``viewer`` (a player id) seated in the match it also says
    ``seat``, the viewer's seat."""
    return w.MatchSummary(**_summary_fields(meta, viewer))


def created(
    meta: MatchMeta, viewer: str, *, ws_url: str, watch_token: str, invite: w.Invite | None
) -> w.CreatedMatch:
    return w.CreatedMatch(
        **_summary_fields(meta, viewer), ws_url=ws_url, watch_token=watch_token, invite=invite
    )


def joined(meta: MatchMeta, viewer: str, *, ws_url: str) -> w.JoinedMatch:
    return w.JoinedMatch(**_summary_fields(meta, viewer), ws_url=ws_url)


def details(meta: MatchMeta, viewer: str, hands: list[Any]) -> w.MatchDetails:
    """A summary and every finished hand (the service's stored results, in order)."""
    finished = [convert.finished_hand(h.number, h.starter, h.result) for h in hands]
    return w.MatchDetails(**_summary_fields(meta, viewer), hands=finished)


def view(update: SeatUpdate, history: list[w.Event] | msgspec.Raw | None = None) -> w.View:
    """The ``view`` of a ``state`` message: what ``update.seat`` (None: a watcher) sees
    (``history``: the hand's events already converted, see :func:`state_message`)."""
    meta, mv = update.meta, update.view
    # Waiting for the second player, or over (a resignation leaves a hand unfinished):
    # nothing may be sent, so nothing is offered.
    last = mv.results[-1] if mv.results else None
    return w.View(
        match_id=meta.match_id,
        status=meta.status,  # type: ignore[arg-type]
        seat=update.seat,
        version=meta.version,
        players=players(meta, update.connected, update.bots),
        rules=convert.rules_view(mv.rules),
        hand_number=mv.hand_number,
        scores=list(mv.scores),
        hands_won=list(mv.hands_won),
        hand=convert.hand_view(
            mv.hand,
            playable=meta.status == "active",
            deal_commitment=mv.deal_commitment,
            timed_out=update.timed_out,
            history=history,
        ),
        last_result=convert.hand_result(last) if last is not None else None,
        outcome=convert.outcome(mv.outcome),
        status_line=status_line(meta, mv),
        **clocks.view_fields(update),  # type: ignore[arg-type]
        rated=meta.rated,
    )


def view_payload(update: SeatUpdate) -> dict[str, Any]:
    """The view as plain JSON values (for tests and the load bench's scripted players)."""
    out: dict[str, Any] = msgspec.to_builtins(view(update))
    return out


def state_message(update: SeatUpdate) -> bytes:
    """The ``state`` message for ``update`` (UTF-8 JSON, the payload of a text frame), encoded
    once however many sockets it goes to."""
    if update.text is None:
        update.text = _encoder.encode(w.State(update.meta.version, view(update, _SHARED.history(update))))
    return update.text


class _SharedHistory:
    """The hand's history encoded once for all the ``state`` messages of one moment of a match
    (each seat's, each watcher's, built one after the other), not once per message: with the
    whole history in every message, its conversion and encoding were about a quarter of building
    and encoding a moment's messages (``python -m server.bench moves``). The history is public
    (every seat's view holds the same events). The rules give every view of one moment the same
    history tuple, a new one per event, so the tuple's identity says the encoding is the same
    (the one kept holds the tuple, so its identity cannot pass to another). A history with
    events marked as timed out (a view's own marking) is converted with its view, as before.

    From one moment of a match to its next, the history grows by one event: the encoding of
    each match's last history is kept (the ``KEPT`` most recently changed matches), and a
    history that is that one and one event more is encoded as the kept text and that event's
    (converting and encoding a hand's 40 events each move was 3% of a move's CPU)."""

    KEPT = 4096

    __slots__ = ("by_match", "encoded", "events", "rebuilt")

    def __init__(self) -> None:
        self.events: tuple[Any, ...] = ()
        self.encoded = msgspec.Raw(b"[]")
        self.by_match: dict[str, tuple[tuple[Any, ...], bytes]] = {}
        self.rebuilt = 0
        """Histories of more than one event encoded whole (no kept text to grow)."""

    def history(self, update: SeatUpdate) -> msgspec.Raw | None:
        if update.timed_out:
            return None
        events = update.view.hand.history
        if events is not self.events:
            self.encoded = msgspec.Raw(self._encode(update.meta.match_id, events))
            self.events = events
        # msgspec writes a Raw as the JSON it holds: the same bytes as the list of events.
        return self.encoded

    def _encode(self, match_id: str, events: tuple[Any, ...]) -> bytes:
        kept = self.by_match.pop(match_id, None)
        if kept is not None and kept[0] is events:
            text = kept[1]  # the match's last moment again (a resync, a watcher arriving)
        elif (
            kept is not None
            and len(events) > 1
            and len(kept[0]) == len(events) - 1
            and events[:-1] == kept[0]
        ):
            text = b"%s,%s]" % (kept[1][:-1], _encoder.encode(convert.event(events[-1])))
        else:
            text = _encoder.encode(convert.events(events))
            self.rebuilt += len(events) > 1
        self.by_match[match_id] = (events, text)  # the most recent last
        if len(self.by_match) > self.KEPT:
            del self.by_match[next(iter(self.by_match))]
        return text


_SHARED = _SharedHistory()


def encode(message: msgspec.Struct) -> bytes:
    """Any wire message as sent: UTF-8 JSON, the payload of a text frame (never decoded to a
    string on its way to the socket)."""
    return _encoder.encode(message)


def record(rec: MatchRecord) -> w.MatchRecord:
    """The complete replay of a finished match, for the player in seat ``rec.seat``."""
    meta, state = rec.meta, rec.state
    results = state.results
    return w.MatchRecord(
        match_id=meta.match_id,
        seat=rec.seat,
        rules=meta.rules,
        # A verifiable scheme's match seed stays secret (the hands' seeds are enough to check).
        seed=None if deal_named(meta.deal).verifiable else meta.seed,
        first_starter=meta.first_starter,
        players=seat_players(meta),
        outcome=convert.outcome(meta.outcome),
        hands=[
            convert.hand_record(
                log,
                results[i] if i < len(results) else None,
                _places(rec.timeouts, first),
                state.rules,
                rec.seat,
            )
            for i, (log, first) in enumerate(zip(state.log, _first_actions(state.log), strict=True))
        ],
        deal=meta.deal,
    )


def _first_actions(logs: list[HandLog]) -> list[int]:
    """The number (1 = the match's first) of each hand's first action."""
    firsts, n = [], 1
    for log in logs:
        firsts.append(n)
        n += len(log.actions)
    return firsts


def _places(numbers: frozenset[int], first: int) -> frozenset[int]:
    return frozenset(n - first for n in numbers if n >= first) if numbers else frozenset()


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


FORFEIT_WORDS = {"resign": "resigned", "timeout": "ran out of time", "abandoned": "left the match"}


def status_line(meta: MatchMeta, view: MatchView) -> str:
    """A short sentence saying what is happening and what the viewer may do."""
    seat = view.seat
    if meta.status == "waiting":
        return "Waiting for an opponent to join"
    outcome = view.outcome
    if outcome is not None:
        winner = _name(meta, outcome.winner, seat)
        verb = "win" if winner == "You" else "wins"
        if outcome.reason in FORFEIT_WORDS:
            loser = _name(meta, 1 - outcome.winner, seat)
            return f"{loser} {FORFEIT_WORDS[outcome.reason]}: {winner} {verb} the match"
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
    assert to_act is not None  # a match without an outcome always has a seat to act
    who = _name(meta, to_act, seat)
    if meta.opponent == "computer" and to_act == COMPUTER_SEAT:
        return f"{prefix}{who} is thinking"
    doing = {Phase.UPCARD: "take the upcard or pass", Phase.DRAW: "draw", Phase.DISCARD: "discard"}.get(
        hand.phase, "play"
    )
    return f"{prefix}Waiting for {who} to {doing}"
