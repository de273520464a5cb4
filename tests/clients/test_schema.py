"""The Python client's hand-written models against the generated schemas: each model's
``from_wire``, given real wire values, reads every field the schema says is always there (bar
deprecated ones), and no field the schema does not have (it may ask whether one is there).

The values are real: a seeded match played by the rules engine and framed by the server's own
presentation (the client package itself imports nothing from the server). Each object handed
to ``from_wire`` records which of its keys were read, per schema component."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
from ginrummy_client import models

from server.rules import new_match
from server.service.ports import FinishedHand, MatchMeta, MatchRecord, SeatUpdate
from server.service.writer import stored_outcome, stored_result
from server.transport import present
from server.transport.openapi import openapi_document
from server.wire import messages as w
from server.wire.schema import components

# A copy: the served document is cached. The view is not a REST body: its components too.
SCHEMAS = {
    **openapi_document()["components"]["schemas"],
    **components((w.View,), ref_template="#/components/schemas/{name}")[1],
}

READ: dict[str, set[str]] = defaultdict(set)


class Recorded(dict):
    """A wire object that notes each key read, under its schema component's name."""

    def __init__(self, component: str, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.component = component

    def __getitem__(self, key: str) -> Any:
        READ[self.component].add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        READ[self.component].add(key)
        return super().get(key, default)

    # ``key in d`` is a probe, not a read: a model may ask whether an optional field is there.


def _component(node: dict[str, Any], data: Any) -> str | None:
    if "$ref" in node:
        return node["$ref"].rsplit("/", 1)[-1]
    for alt in node.get("anyOf", []):
        name = _component(alt, data)
        if name is None:
            continue
        props = SCHEMAS[name].get("properties", {})
        tags = [k for k, v in props.items() if "enum" in v and len(v["enum"]) == 1 and k in ("type", "kind")]
        if all(data.get(t) == props[t]["enum"][0] for t in tags):
            return name
    return None


def wrap(data: Any, node: dict[str, Any]) -> Any:
    """``data`` with every object that the schema names a component of made :class:`Recorded`."""
    if isinstance(data, list):
        items = node.get("items", {})
        if not items and "anyOf" in node:
            items = next((a.get("items", {}) for a in node["anyOf"] if a.get("type") == "array"), {})
        return [wrap(x, items) for x in data]
    if isinstance(data, dict):
        name = _component(node, data)
        if name is None:
            return data
        props = SCHEMAS[name].get("properties", {})
        return Recorded(name, {k: wrap(v, props.get(k, {})) for k, v in data.items()})
    return data


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _samples() -> list[tuple[Any, str, Any]]:
    """``(model, component, wire value)``: real values of every component the client reads."""
    state = new_match("classic", "client-schema", 0)
    rng = random.Random(2)
    views = []
    while state.outcome is None:
        if (state.hand.history and rng.random() < 0.05) or (state.results and len(views) < 40):
            views.append(state.view(state.to_act))
        seat = state.to_act
        state.apply(rng.choice(state.view(seat).hand.legal_actions), seat)
    now = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)
    meta = MatchMeta(
        "m_x", "classic", "human", None, state.seed, 0, "finished", 99, ["p_a", "p_b"], ["Ada", "Bob"],
        "", None, state.hand_number, list(state.scores), list(state.hands_won), 0, None,
        stored_outcome(state.outcome), now, now,
    )  # fmt: skip
    views.append(state.view(0))
    out: list[tuple[Any, str, Any]] = []
    for v in views:
        out.append((models.MatchView, "View", present.view_payload(SeatUpdate(meta, v, (True, False)))))
    invite = w.Invite("abc", "http://x/?match=m_x&invite=abc")
    created = present.created(meta, "p_a", ws_url="ws://x/ws", watch_token="wt", invite=invite)
    out.append((models.MatchTicket, "CreatedMatch", msgspec.to_builtins(created)))
    out.append(
        (
            models.MatchTicket,
            "JoinedMatch",
            msgspec.to_builtins(present.joined(meta, "p_b", ws_url="ws://x/ws")),
        )
    )
    hands = [
        FinishedHand(
            i + 1,
            0,
            r.kind.value,
            r.winner,
            r.knocker,
            r.points,
            stored_result(r),
            now,
        )
        for i, r in enumerate(state.results)
    ]
    out.append(
        (models.MatchSummary, "MatchDetails", msgspec.to_builtins(present.details(meta, "p_a", hands)))
    )
    out.append((models.MatchSummary, "MatchSummary", msgspec.to_builtins(present.summary(meta, "p_a"))))
    out.append((models.PlayerIdentity, "NewPlayer", msgspec.to_builtins(w.NewPlayer("p_a", "Ada", "tok"))))
    assert msgspec.to_builtins(present.record(MatchRecord(meta, 0, state)))["hands"]
    return out


# The components each model reads, directly or through the models it builds.
READS = {
    "View": "View",
    "Player": "PlayerInfo",
    "RulesView": "RulesInfo",
    "HandView": "HandView",
    "Event": "Event",
    "HandResult": "HandResult",
    "Layoff": "HandResult (its layoffs)",
    "Outcome": "Outcome",
    "SeatTotal": "SeatTotal",
    "CreatedMatch": "MatchTicket",
    "JoinedMatch": "MatchTicket",
    "MatchDetails": "MatchSummary",
    "MatchSummary": "MatchSummary",
    "SeatPlayer": "PlayerInfo",
    "FinishedHand": "HandResult",
    "Invite": "Invite",
    "NewPlayer": "PlayerIdentity",
}


@pytest.fixture(scope="module")
def read() -> dict[str, set[str]]:
    READ.clear()
    for model, component, data in _samples():
        model.from_wire(wrap(data, _ref(component)))
    return dict(READ)


@pytest.mark.parametrize("component", sorted(READS))
def test_the_model_reads_every_field_the_schema_requires(read, component):
    props = SCHEMAS[component].get("properties", {})
    # A deprecated field need not be read (HandView.hand: a client reads cards, hand only from
    # an older server that has no cards).
    required = {f for f in SCHEMAS[component].get("required", []) if not props[f].get("deprecated")}
    missing = required - read.get(component, set())
    assert not missing, f"{READS[component]}.from_wire never reads {sorted(missing)} of {component}"


@pytest.mark.parametrize("component", sorted(READS))
def test_the_model_reads_no_field_the_schema_does_not_have(read, component):
    unknown = read.get(component, set()) - set(SCHEMAS[component].get("properties", {}))
    assert not unknown, f"{READS[component]}.from_wire reads {sorted(unknown)}, not in {component}"
