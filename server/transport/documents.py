"""The generated documents in ``docs/``: ``protocol.schema.json``, ``asyncapi.json`` and the
examples in ``protocol.md``, which come from a real (seeded) match played by the rules engine
and the computer, and framed by the same functions that frame what the server sends.

Regenerate them all with ``python -m server.transport.documents`` (the tests say so when one
is out of date).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from server.bots import make_bot
from server.rules import MatchState, new_match
from server.service.ports import MatchMeta, SeatUpdate
from server.wire import convert
from server.wire import messages as w
from server.wire.schema import client_message_schema, protocol_schema

from .asyncapi import asyncapi_document
from .present import state_message

DOCS = Path(__file__).resolve().parents[2] / "docs"

JSON_DOCUMENTS: dict[str, Callable[[], dict[str, Any]]] = {
    "protocol.schema.json": protocol_schema,
    "asyncapi.json": asyncapi_document,
}

_SEED = "protocol-example"
_WHEN = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)


def dumps(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def compact(value: Any, width: int = 96, indent: int = 0) -> str:
    """JSON, one line per container that does not fit in ``width`` (readable examples)."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(flat) + indent <= width or not isinstance(value, dict | list) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {compact(v, width, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + compact(v, width, indent + 2) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def _meta(state: MatchState, version: int) -> MatchMeta:
    return MatchMeta(
        "m_Xq3k9sPz0aBcDeFg", "house", "computer", "normal", state.seed, 0, "active", version,
        ["p_1f0c9e2a7b3d4c5e", None], ["Ada", None], "", None, state.hand_number,
        list(state.scores), list(state.hands_won), None, None, None, _WHEN, _WHEN,
    )  # fmt: skip


def _state(state: MatchState, version: int, seat: int | None = 0) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(
        state_message(SeatUpdate(_meta(state, version), state.view(seat), (True, True)))
    )
    return out


def example_session() -> list[tuple[str, dict[str, Any]]]:
    """A real opening against the computer, seat 0's socket: ``(direction, message)`` pairs."""
    state = new_match("house", _SEED, 0)
    bot = make_bot("normal", _SEED)
    token = "K8m2Qf0…"
    out: list[tuple[str, dict[str, Any]]] = []
    version = 1  # the match was created at 0 and the computer took its seat
    hello = msgspec.to_builtins(w.Hello("m_Xq3k9sPz0aBcDeFg", token))
    del hello["version"]  # optional: a first hello has seen no version
    out.append(("→", hello))
    out.append(("←", _state(state, version)))
    passing = next(a for a in state.view(0).hand.legal_actions if a.kind == "pass")
    out.append(("→", msgspec.to_builtins(w.Act("c1", version, convert.action(passing)))))
    state.apply(passing, 0)
    version += 1
    out.append(("←", msgspec.to_builtins(w.Ack("c1", version))))
    out.append(("←", _state(state, version)))
    while state.to_act == 1:  # the computer's turn: its action reaches seat 0 as a state
        state.apply(bot.choose(state.view(1).hand), 1)
        version += 1
        out.append(("←", _state(state, version)))
    out.append(("→", msgspec.to_builtins(w.Hello("m_Xq3k9sPz0aBcDeFg", token, version))))
    out.append(("←", _state(state, version)))
    return out


def example_view() -> dict[str, Any]:
    """Seat 0's view in the middle of a hand, when it must discard (knocking allowed or not)."""
    state = new_match("house", _SEED, 0)
    bot, version = make_bot("normal", _SEED), 1
    while True:
        if state.to_act == 1:
            state.apply(bot.choose(state.view(1).hand), 1)
        else:
            view = state.view(0).hand
            if view.phase.value == "discard" and len(view.history) >= 7:
                seen: dict[str, Any] = _state(state, version)["view"]
                return seen
            state.apply(make_bot("easy", _SEED).choose(view), 0)
        version += 1


def _brief(message: dict[str, Any]) -> dict[str, Any]:
    """A state message with its view cut to a few fields (the whole view is shown below)."""
    if message["type"] != "state":
        return message
    v, h = message["view"], message["view"]["hand"]
    hand = {k: h[k] for k in ("phase", "to_act", "discard_pile", "history", "legal_actions")}
    view = {"version": v["version"], "hand": hand, "status_line": v["status_line"]}
    return {**message, "view": view}


def _session_block() -> str:
    return "\n".join(f"{d} {json.dumps(_brief(m), ensure_ascii=False)}" for d, m in example_session())


GENERATED_BLOCKS: dict[str, Callable[[], str]] = {
    "session": _session_block,
    "view": lambda: compact(example_view()),
    "client-schema": lambda: dumps(client_message_schema()).rstrip("\n"),
}
"""The blocks of protocol.md between ``<!-- generated: NAME -->`` and ``<!-- end -->``."""

_BLOCK = re.compile(
    r"(<!-- generated: (?P<name>[\w-]+) -->\n```(?P<lang>\w*)\n)(?P<body>(?:(?!<!-- ).)*?)(\n```\n<!-- end -->)",
    re.S,
)


def protocol_md(text: str) -> str:
    """``text`` (protocol.md) with every generated block regenerated."""

    def fill(m: re.Match[str]) -> str:
        return m.group(1) + GENERATED_BLOCKS[m.group("name")]() + m.group(5)

    return _BLOCK.sub(fill, text)


def generated_block_names(text: str) -> list[str]:
    return [m.group("name") for m in _BLOCK.finditer(text)]


def write_all(docs: Path = DOCS) -> list[Path]:
    written = []
    for name, build in JSON_DOCUMENTS.items():
        path = docs / name
        path.write_text(dumps(build()), encoding="utf-8")
        written.append(path)
    md = docs / "protocol.md"
    md.write_text(protocol_md(md.read_text(encoding="utf-8")), encoding="utf-8")
    written.append(md)
    return written


if __name__ == "__main__":
    for path in write_all():
        print(f"wrote {path}", file=sys.stderr)
