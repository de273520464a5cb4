"""A scripted match for the browser tests: the page's /ws is answered by the test (Playwright's
WebSocket routing) with views written here, so a test can put the table in an exact state (a
knock chance, a gin, layoffs at the low end of a run, a finished classic match) without playing
until chance brings it. The static client still comes from the real server.

The views follow server/wire/views.py's ``View``; the table must draw them as it draws the
server's own.
"""

from __future__ import annotations

import copy
import json
import re
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page, WebSocketRoute

MATCH = "m_scripted"
PLAYER = {"player_id": "p_ada", "name": "Ada", "token": "t_ada"}

RULES = {
    "name": "house",
    "label": "House rules",
    "description": "Fixed scoring",
    "target": 100,
    "knock_limit": 10,
    "gin_bonus": 25,
    "undercut_bonus": 25,
    "box_bonus": 0,
    "game_bonus": 0,
    "shutout_bonus": 0,
    "starter_rule": "alternate",
}
CLASSIC = {
    **RULES,
    "name": "classic",
    "label": "Classic rules",
    "box_bonus": 25,
    "game_bonus": 100,
    "shutout_bonus": 100,
}

# Melds 2c 3c 4c, 7d 7h 7s, 9h Th Jh; deadwood As Kd. Discarding the king leaves 1: a knock.
KNOCK_HAND = ["2c", "3c", "4c", "7d", "7h", "7s", "9h", "Th", "Jh", "As", "Kd"]
KNOCK_DEADWOOD = {
    "As": 10,
    "Kd": 1,
    "2c": 18,
    "3c": 18,
    "4c": 15,
    "7d": 11,
    "7h": 11,
    "7s": 11,
    "9h": 20,
    "Th": 21,
    "Jh": 21,
}


def view(**over: Any) -> dict[str, Any]:
    """Seat 0's view of an active hand, in the draw phase unless ``hand`` says otherwise."""
    hand: dict[str, Any] = {
        "seat": 0,
        "starter": 0,
        "dealer": 1,
        "phase": "draw",
        "to_act": 0,
        "cards": ["2c", "3c", "4c", "7d", "7h", "7s", "9h", "Th", "Jh", "As"],
        "melds": [["2c", "3c", "4c"], ["7d", "7h", "7s"], ["9h", "Th", "Jh"]],
        "deadwood": 1,
        "hand_counts": [10, 10],
        "stock_count": 31,
        "discard_pile": ["Qs"],
        "history": [],
        "legal_actions": [{"kind": "draw", "source": "stock"}, {"kind": "draw", "source": "discard"}],
        "result": None,
        "knock_limit": 10,
        "discard_deadwood": {},
        "multiplier": 1,
    }
    hand.update(over.pop("hand", {}))
    hand["hand"] = hand["cards"]
    v: dict[str, Any] = {
        "match_id": MATCH,
        "status": "active",
        "seat": 0,
        "version": 5,
        "players": [
            {"seat": 0, "name": "Ada", "kind": "human", "connected": True},
            {"seat": 1, "name": "Computer (Easy)", "kind": "computer", "connected": True},
        ],
        "rules": RULES,
        "hand_number": 1,
        "scores": [0, 0],
        "hands_won": [0, 0],
        "hand": hand,
        "last_result": None,
        "outcome": None,
        "status_line": "Your turn: draw from the stock or the discard pile",
    }
    v.update(over)
    return v


def knock_chance_view() -> dict[str, Any]:
    """Seat 0 has drawn the K♦: discarding it knocks with 1 (the ace)."""
    return view(
        status_line="Your turn: discard a card, or knock",
        hand={
            "phase": "discard",
            "cards": KNOCK_HAND,
            "deadwood": 11,
            "discard_deadwood": KNOCK_DEADWOOD,
            "legal_actions": [{"kind": "discard", "card": c} for c in KNOCK_HAND]
            + [{"kind": "knock", "card": "Kd"}],
            "history": [{"seat": 0, "kind": "draw", "source": "stock"}],
            "stock_count": 30,
        },
    )


@dataclass
class Script:
    """The views the fake server sends (the first in answer to hello; each act moves to the next,
    when there is one) and the messages the page sent."""

    views: list[dict[str, Any]]
    sent: list[dict[str, Any]] = field(default_factory=list)
    routes: list[WebSocketRoute] = field(default_factory=list)
    at: int = 0

    def state(self) -> str:
        v = self.views[self.at]
        v["version"] = 5 + self.at  # each answer is newer, so the table takes the action as done
        return json.dumps({"type": "state", "version": v["version"], "view": v})

    def push(self, v: dict[str, Any]) -> None:
        """Send a new view to every open socket."""
        self.views.append(v)
        self.at = len(self.views) - 1
        for ws in self.routes:
            ws.send(self.state())

    def acts(self) -> list[dict[str, Any]]:
        return [m["action"] for m in self.sent if m.get("type") == "act"]


def open_scripted(
    page: Page,
    base_url: str,
    *views: dict[str, Any],
    seat: int = 0,
    hands: list[dict[str, Any]] | None = None,
) -> Script:
    """Open the table of the scripted match in ``page``, fed ``views``; ``hands``: the finished
    hands its analysis gives (none unless given)."""
    script = Script([copy.deepcopy(v) for v in views])

    def route(ws: WebSocketRoute) -> None:
        script.routes.append(ws)

        def on_message(message: str | bytes) -> None:
            msg = json.loads(message)
            script.sent.append(msg)
            if msg.get("type") == "hello":
                ws.send(script.state())
            elif msg.get("type") == "act":
                if script.at + 1 < len(script.views):
                    script.at += 1
                ws.send(script.state())

        ws.on_message(on_message)

    page.route_web_socket(re.compile(r"/ws$"), route)
    # The result dialog asks for the hand's analysis: a scripted match has none to give.
    page.route(
        re.compile(rf"/api/matches/{MATCH}/analysis$"),
        lambda r: r.fulfill(json={"match_id": MATCH, "seat": seat, "status": "active", "hands": hands or []}),
    )
    info = json.dumps({"seat": seat})
    page.add_init_script(
        f"localStorage.setItem('ginrummy.player', {json.dumps(json.dumps(PLAYER))});"
        f"localStorage.setItem('ginrummy.match.{MATCH}', {json.dumps(info)});"
    )
    page.goto(f"{base_url}/#/play/{MATCH}")
    return script


def rest(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    """One call of the real server's REST API (to set up players and matches for a test)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def replayable_match(base: str, token: str) -> dict:
    """A finished match against Easy whose first hand was played to its end (least deadwood,
    knocking at once, through the Python client), then resigned: a hand the replay shows (one
    left unfinished keeps its hidden cards hidden, and is not replayed). Returns the match."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from ginrummy_client import GinRummyClient
    from ginrummy_client.errors import NotYourTurn, StaleVersion
    from ginrummy_client.strategies import quick

    m = rest(base, "POST", "/api/matches", {"opponent": "computer", "difficulty": "easy"}, token)

    async def first_hand() -> None:
        async with GinRummyClient(base, token).connect(m["match_id"]) as conn:
            while (v := await conn.turn()) is not None and v.hand_number == 1:
                try:
                    await conn.act(quick(v), version=v.version)
                except (StaleVersion, NotYourTurn):
                    continue

    with ThreadPoolExecutor(1) as pool:  # (a thread of its own: Playwright's loop runs in this one)
        pool.submit(asyncio.run, first_hand()).result(timeout=60)
    rest(base, "POST", f"/api/matches/{m['match_id']}/resign", {}, token)
    return m
