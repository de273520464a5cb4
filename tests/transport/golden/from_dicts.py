"""Write ``wire.json.gz`` from the rules' own ``to_wire()`` dicts, as present.py built the wire
before the Structs (run once, before those dicts were removed):
``python -m tests.transport.golden.from_dicts``."""

from __future__ import annotations

import json
from typing import Any

from server.service.ports import SeatUpdate
from server.transport import present
from tests.transport import test_wire as t


def dict_view(update: SeatUpdate) -> dict[str, Any]:
    meta, seat = update.meta, update.seat
    match_view = update.view.to_wire()
    if meta.status != "active":
        match_view["hand"]["legal_actions"] = []
        match_view["hand"]["discard_deadwood"] = {}
    players = [
        {
            "seat": s,
            "name": present.computer_name(meta.difficulty)
            if meta.opponent == "computer" and s == 1
            else meta.seat_names[s],
            "kind": "computer" if meta.opponent == "computer" and s == 1 else "human",
            "connected": True if meta.opponent == "computer" and s == 1 else update.connected[s],
        }
        for s in (0, 1)
    ]
    return {
        "match_id": meta.match_id,
        "status": meta.status,
        "seat": seat,
        "version": meta.version,
        "players": players,
        **{k: v for k, v in match_view.items() if k != "seat"},
        "status_line": present.status_line(meta, update.view),
    }


def from_dicts() -> dict[str, Any]:
    _, state = t.finished_match()
    hands = []
    for i, log in enumerate(state.log):
        entry = log.to_wire()
        entry["result"] = state.results[i].to_wire() if i < len(state.results) else None
        hands.append(entry)
    states = {
        seed: [
            [{"type": "state", "version": u.meta.version, "view": dict_view(u)} for u in group]
            for group in t.updates(seed)
        ]
        for seed in t.STATE_SEEDS
    }
    # Through a JSON round trip, as the test reads the Structs' output.
    return json.loads(json.dumps(t.golden_form(states, hands, state.outcome.to_wire())))


if __name__ == "__main__":
    t.write(from_dicts())
    print(f"wrote {t.GOLDEN} ({t.GOLDEN.stat().st_size} bytes)")
