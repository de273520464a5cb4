"""The text notation of an exported match (``docs/notation.md``): :func:`format_match` writes an
:class:`~server.wire.export.ExportedMatch` as text, one line per tag or action, and
:func:`parse_match` reads it back. Pure: no I/O, no game logic (the parser checks the notation's
shape and the wire types, not whether the actions were legal; replaying them is the rules' job).

The two are inverses: ``parse_match(format_match(m)) == m`` for every export ``m`` whose discards
and knocks carry no ``drawn`` card (an export never does), and ``format_match(parse_match(t)) ==
t`` for every text the formatter writes (its canonical form: tags in order, one blank line
before each hand, no comments).

>>> text = format_match(EXAMPLE)
>>> parse_match(text) == EXAMPLE
True
>>> print(text.splitlines()[21])
1. 0 pass
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from server.rules import ResultKind, Source

from . import messages as w
from .export import ExportedAction, ExportedHand, ExportedMatch

GAME = "Gin Rummy"

_TAG = re.compile(r'\[([a-z][a-z0-9_]*) ("(?:[^"\\]|\\.)*")\]')
_ACTION = re.compile(r"(\d+)\. ([01]) (take|pass|stock|pile|discard|knock)(?: ([A2-9TJQK][cdhs]))?")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NONE = "-"

_MATCH_TAGS = (
    "game",
    "match_id",
    "status",
    "seat",
    "rules",
    "deal",
    "seed",
    "first_starter",
    "player0",
    "player0_kind",
    "player1",
    "player1_kind",
    "created_at",
    "updated_at",
    "scores",
    "outcome",
    "totals0",
    "totals1",
)
_DEAL_TAGS = ("hand", "starter", "seed", "deal_commitment", "hand0", "hand1", "upcard", "stock")
_RESULT_TAGS = (
    "result",
    "winner",
    "knocker",
    "points",
    "deadwood",
    "final0",
    "final1",
    "melds0",
    "melds1",
    "unmatched0",
    "unmatched1",
    "layoffs",
    "breakdown",
)


class NotationError(ValueError):
    """The text is not the notation: says which line and why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


# --- formatting ----------------------------------------------------------------------------------


def _tag(name: str, value: str) -> str:
    return f"[{name} {json.dumps(value, ensure_ascii=False)}]"


def _cards(cards: list[str]) -> str:
    return " ".join(cards)


def _seat_or_none(seat: int | None) -> str:
    return _NONE if seat is None else str(seat)


def _action_line(n: int, a: ExportedAction) -> str:
    act = a.action
    card: str | None
    if isinstance(act, w.TakeUpcard):
        verb, card = "take", a.drawn
    elif isinstance(act, w.Pass):
        verb, card = "pass", None
    elif isinstance(act, w.Draw):
        verb, card = ("stock" if act.source == "stock" else "pile"), a.drawn
    elif isinstance(act, w.Discard):
        verb, card = "discard", act.card
    else:
        verb, card = "knock", act.card
    return f"{n}. {a.seat} {verb}" + (f" {card}" if card is not None else "")


def _result_lines(r: w.HandResult) -> list[str]:
    return [
        _tag("result", r.kind),
        _tag("winner", _seat_or_none(r.winner)),
        _tag("knocker", _seat_or_none(r.knocker)),
        _tag("points", str(r.points)),
        _tag("deadwood", " ".join(map(str, r.deadwood))),
        *(_tag(f"final{s}", _cards(r.hands[s])) for s in (0, 1)),
        *(_tag(f"melds{s}", " ".join("-".join(m) for m in r.melds[s])) for s in (0, 1)),
        *(_tag(f"unmatched{s}", _cards(r.unmatched[s])) for s in (0, 1)),
        _tag("layoffs", " ".join(f"{lo.card}>{lo.meld}" for lo in r.layoffs)),
        _tag("breakdown", r.breakdown),
    ]


def _hand_lines(hand: ExportedHand) -> list[str]:
    lines = ["", _tag("hand", str(hand.number)), _tag("starter", str(hand.starter))]
    if hand.seed is not None:
        lines.append(_tag("seed", hand.seed))
    if hand.deal_commitment is not None:
        lines.append(_tag("deal_commitment", hand.deal_commitment))
    for s, cards in enumerate(hand.hands):
        if cards is not None:
            lines.append(_tag(f"hand{s}", _cards(cards)))
    lines.append(_tag("upcard", hand.upcard))
    if hand.stock is not None:
        lines.append(_tag("stock", _cards(hand.stock)))
    lines.extend(_action_line(i, a) for i, a in enumerate(hand.actions, start=1))
    if hand.result is not None:
        lines.extend(_result_lines(hand.result))
    return lines


def format_match(match: ExportedMatch) -> str:
    """The notation of ``match``: header tags, then each hand; every line ends in a newline."""
    lines = [_tag("game", GAME)]
    for name in ("match_id", "status", "seat", "rules", "deal"):
        lines.append(_tag(name, str(getattr(match, name))))
    if match.seed is not None:
        lines.append(_tag("seed", match.seed))
    lines.append(_tag("first_starter", str(match.first_starter)))
    for p in match.players:
        if p.name is not None:
            lines.append(_tag(f"player{p.seat}", p.name))
        lines.append(_tag(f"player{p.seat}_kind", p.kind))
    lines.append(_tag("created_at", match.created_at))
    lines.append(_tag("updated_at", match.updated_at))
    lines.append(_tag("scores", " ".join(map(str, match.scores))))
    if match.outcome is not None:
        lines.append(_tag("outcome", f"{match.outcome.winner} {match.outcome.reason}"))
        for s, t in enumerate(match.outcome.totals):
            lines.append(_tag(f"totals{s}", f"{t.points} {t.box_bonus} {t.game_bonus} {t.total}"))
    for hand in match.hands:
        lines.extend(_hand_lines(hand))
    return "\n".join(lines) + "\n"


# --- parsing -------------------------------------------------------------------------------------


class _Section:
    def __init__(self, line: int) -> None:
        self.line = line
        self.tags: dict[str, str] = {}
        self.where: dict[str, int] = {}
        self.actions: list[dict[str, Any]] = []

    def at(self, name: str) -> int:
        """The line of tag ``name`` (of the section, when it is missing)."""
        return self.where.get(name, self.line)


def _ints(text: str, line: int, name: str) -> list[int]:
    parts = text.split(" ") if text else []
    if not all(_INT.fullmatch(p) for p in parts):
        raise NotationError(line, f"{name} must be integers separated by single spaces")
    return [int(p) for p in parts]


def _int(text: str, line: int, name: str) -> int:
    values = _ints(text, line, name)
    if len(values) != 1:
        raise NotationError(line, f"{name} must be one integer")
    return values[0]


def _seat_of(text: str, line: int, name: str) -> int | None:
    return None if text == _NONE else _int(text, line, name)


def _card_list(text: str) -> list[str]:
    return text.split(" ") if text else []


def _read_lines(text: str) -> tuple[_Section, list[_Section]]:
    header = _Section(1)
    hands: list[_Section] = []
    current = header
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith(";"):
            continue
        tag = _TAG.fullmatch(line)
        if tag is not None:
            name = tag.group(1)
            try:
                value = json.loads(tag.group(2))
            except ValueError:
                raise NotationError(number, "a tag's value must be a JSON string") from None
            if name == "hand":
                current = _Section(number)
                hands.append(current)
            allowed = _MATCH_TAGS if current is header else _DEAL_TAGS + _RESULT_TAGS
            if name not in allowed:
                raise NotationError(number, f"unknown tag {name!r} here")
            if current is not header and current.actions and name in _DEAL_TAGS:
                raise NotationError(number, f"tag {name!r} must come before the hand's actions")
            if name in current.tags:
                raise NotationError(number, f"tag {name!r} given twice")
            current.tags[name] = value
            current.where[name] = number
            continue
        act = _ACTION.fullmatch(line)
        if act is None:
            raise NotationError(number, f"neither a tag nor an action: {line[:60]!r}")
        if current is header:
            raise NotationError(number, 'an action before the first [hand "N"] tag')
        if set(current.tags) & set(_RESULT_TAGS):
            raise NotationError(number, "an action after the hand's result")
        n, seat, verb, card = act.groups()
        if int(n) != len(current.actions) + 1:
            raise NotationError(number, f"action number {n}, expected {len(current.actions) + 1}")
        current.actions.append(_action(number, int(seat), verb, card))
    if header.tags.get("game") != GAME:
        raise NotationError(1, f'the text must begin with [game "{GAME}"]')
    return header, hands


def _action(line: int, seat: int, verb: str, card: str | None) -> dict[str, Any]:
    needs_card = verb in ("discard", "knock", "pile")
    if needs_card and card is None:
        raise NotationError(line, f"{verb} must name its card")
    if verb == "pass" and card is not None:
        raise NotationError(line, "pass names no card")
    action: dict[str, Any]
    drawn = card
    match verb:
        case "take":
            action = {"kind": "take_upcard"}
        case "pass":
            action = {"kind": "pass"}
        case "stock" | "pile":
            action = {"kind": "draw", "source": "stock" if verb == "stock" else "discard"}
        case _:
            action = {"kind": verb, "card": card}
            drawn = None
    return {"seat": seat, "action": action, "drawn": drawn}


def _need(section: _Section, name: str) -> str:
    if name not in section.tags:
        raise NotationError(section.line, f"missing tag {name!r}")
    return section.tags[name]


def _result(section: _Section) -> dict[str, Any] | None:
    tags, at = section.tags, section.at
    if not set(tags) & set(_RESULT_TAGS):
        return None
    melds = [
        [m.split("-") for m in _need(section, f"melds{s}").split(" ")] if tags.get(f"melds{s}") else []
        for s in (0, 1)
    ]
    layoffs = []
    for item in _card_list(_need(section, "layoffs")):
        card, sep, meld = item.partition(">")
        if not sep:
            raise NotationError(at("layoffs"), "a layoff is CARD>MELD")
        layoffs.append({"card": card, "meld": _int(meld, at("layoffs"), "a layoff's meld")})
    return {
        "kind": _need(section, "result"),
        "winner": _seat_of(_need(section, "winner"), at("winner"), "winner"),
        "knocker": _seat_of(_need(section, "knocker"), at("knocker"), "knocker"),
        "points": _int(_need(section, "points"), at("points"), "points"),
        "deadwood": _ints(_need(section, "deadwood"), at("deadwood"), "deadwood"),
        "hands": [_card_list(_need(section, f"final{s}")) for s in (0, 1)],
        "melds": melds,
        "unmatched": [_card_list(_need(section, f"unmatched{s}")) for s in (0, 1)],
        "layoffs": layoffs,
        "breakdown": _need(section, "breakdown"),
    }


def _hand(section: _Section) -> dict[str, Any]:
    tags, at = section.tags, section.at
    return {
        "number": _int(_need(section, "hand"), at("hand"), "hand"),
        "starter": _int(_need(section, "starter"), at("starter"), "starter"),
        "seed": tags.get("seed"),
        "deal_commitment": tags.get("deal_commitment"),
        "hands": [_card_list(tags[f"hand{s}"]) if f"hand{s}" in tags else None for s in (0, 1)],
        "upcard": _need(section, "upcard"),
        "stock": _card_list(tags["stock"]) if "stock" in tags else None,
        "actions": section.actions,
        "result": _result(section),
    }


def parse_match(text: str) -> ExportedMatch:
    """The export written as ``text``; :class:`NotationError` (with the line) if it is not the
    notation or a value has the wrong type."""
    header, hands = _read_lines(text)
    tags = header.tags
    players = [
        {"seat": s, "name": tags.get(f"player{s}"), "kind": _need(header, f"player{s}_kind")} for s in (0, 1)
    ]
    outcome = None
    if "outcome" in tags:
        winner, _, reason = tags["outcome"].partition(" ")
        totals = []
        for s in (0, 1):
            values = _ints(_need(header, f"totals{s}"), header.at(f"totals{s}"), f"totals{s}")
            if len(values) != 4:
                raise NotationError(
                    header.at(f"totals{s}"), f"totals{s} is POINTS BOX_BONUS GAME_BONUS TOTAL"
                )
            totals.append(dict(zip(("points", "box_bonus", "game_bonus", "total"), values, strict=True)))
        outcome = {
            "winner": _seat_of(winner, header.at("outcome"), "outcome"),
            "reason": reason,
            "totals": totals,
        }
    raw = {
        "match_id": _need(header, "match_id"),
        "status": _need(header, "status"),
        "seat": _int(_need(header, "seat"), header.at("seat"), "seat"),
        "rules": _need(header, "rules"),
        "deal": _need(header, "deal"),
        "seed": tags.get("seed"),
        "first_starter": _int(_need(header, "first_starter"), header.at("first_starter"), "first_starter"),
        "players": players,
        "created_at": _need(header, "created_at"),
        "updated_at": _need(header, "updated_at"),
        "scores": _ints(_need(header, "scores"), header.at("scores"), "scores"),
        "outcome": outcome,
        "hands": [_hand(h) for h in hands],
    }
    try:
        return msgspec.convert(raw, ExportedMatch)
    except msgspec.ValidationError as e:
        raise NotationError(0, f"a value has the wrong type: {e}") from None


EXAMPLE = ExportedMatch(
    match_id="m_example",
    status="finished",
    seat=0,
    rules="house",
    deal="sha256",
    seed=None,
    first_starter=0,
    players=[w.SeatPlayer(0, "Ada", "human"), w.SeatPlayer(1, "Hard", "computer")],
    created_at="2026-11-29T15:00:00Z",
    updated_at="2026-11-29T15:20:00Z",
    scores=[0, 28],
    outcome=None,
    hands=[
        ExportedHand(
            number=1,
            starter=0,
            seed=None,
            deal_commitment=None,
            hands=[
                ["2c", "3c", "4c", "5h", "5d", "5s", "7c", "8c", "9c", "8h"],
                ["Qs", "Qd", "Qc", "Jh", "Th", "9h", "4s", "As", "5c", "Tc"],
            ],
            upcard="Kd",
            stock=["Kh", "2h", "3h", "4h"],
            actions=[
                ExportedAction(0, w.Pass(), None),
                ExportedAction(1, w.Pass(), None),
                ExportedAction(0, w.Draw(Source.STOCK), "Kh"),
                ExportedAction(0, w.Knock("Kh"), None),
            ],
            result=w.HandResult(
                kind=ResultKind.UNDERCUT,
                winner=1,
                points=28,
                knocker=0,
                deadwood=[8, 5],
                hands=[
                    ["2c", "3c", "4c", "5h", "5d", "5s", "7c", "8c", "9c", "8h"],
                    ["Qs", "Qd", "Qc", "Jh", "Th", "9h", "4s", "As", "5c", "Tc"],
                ],
                melds=[[["2c", "3c", "4c"], ["5h", "5d", "5s"], ["7c", "8c", "9c"]], [["Qs", "Qd", "Qc"]]],
                unmatched=[["8h"], ["Jh", "Th", "9h", "4s", "As"]],
                layoffs=[w.Layoff("5c", 0), w.Layoff("Tc", 2)],
                breakdown="25 + 8 - 5 = 28",
            ),
        )
    ],
)
"""A short export for the doctest and docs/notation.md (its numbers are illustrative)."""
