"""Test helpers that speak only the public protocol: REST calls, a WebSocket seat that records
every message it receives, a player that picks from ``legal_actions`` only, and the hidden-card
check that replays a finished match's record to know the truth behind every message."""

from __future__ import annotations

import asyncio
import itertools
import random
import re
from typing import Any

from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient

from server.rules import RULES, Action, deadwood, new_hand
from server.transport.messages import check_server_message

CARD = re.compile(r"\b[A2-9TJQK][cdhs]\b")


async def new_player(client: TestClient, name: str = "Ada") -> dict[str, Any]:
    r = await client.post("/api/players", json={"name": name})
    assert r.status == 201, await r.text()
    return await r.json()


def auth(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


async def new_match(client: TestClient, player: dict[str, Any], **body: Any) -> dict[str, Any]:
    r = await client.post("/api/matches", json=body, headers=auth(player))
    assert r.status == 201, await r.text()
    return await r.json()


class Socket:
    """One WebSocket client; ``messages`` keeps everything received, in order."""

    _ids = itertools.count(1)

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None

    @classmethod
    async def connect(cls, client: TestClient, **kwargs: Any) -> Socket:
        return cls(await client.ws_connect("/ws", **kwargs))

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send_json(message)

    async def recv(self, timeout: float = 10) -> dict[str, Any]:
        msg = await self.ws.receive(timeout=timeout)
        if msg.type != WSMsgType.TEXT:
            raise ConnectionError(f"socket closed: {msg.type} {msg.data} {msg.extra}")
        check_server_message(msg.data)  # exactly as documented, or this raises
        data = msg.json()
        self.messages.append(data)
        if data["type"] == "state":
            self.state = data
        return data

    async def recv_until(self, type_: str, timeout: float = 10) -> dict[str, Any]:
        while True:
            data = await self.recv(timeout)
            if data["type"] == type_:
                return data

    async def hello(self, match_id: str, token: str, **extra: Any) -> dict[str, Any]:
        await self.send({"type": "hello", "match": match_id, "token": token, **extra})
        return await self.recv()

    async def act(self, action: dict[str, Any], version: int | None = None, id: str | None = None) -> str:
        assert self.state is not None
        msg_id = id or f"c{next(self._ids)}"
        await self.send(
            {
                "type": "act",
                "id": msg_id,
                "version": self.state["version"] if version is None else version,
                "action": action,
            }
        )
        return msg_id

    async def closed(self, timeout: float = 10) -> int | None:
        """Read until the server closes; the close code."""
        while True:
            msg = await self.ws.receive(timeout=timeout)
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING):
                return self.ws.close_code
            if msg.type == WSMsgType.TEXT:
                self.messages.append(msg.json())


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A plain but purposeful choice among ``legal_actions`` only: knock when allowed, discard
    to the least deadwood, take the face-up card when it lowers the deadwood (now and then at
    random), otherwise draw from the stock or pass."""
    hand = view["hand"]
    legal = hand["legal_actions"]
    assert legal, "asked to choose with no legal action"
    knocks = [a for a in legal if a["kind"] == "knock"]
    dd = hand["discard_deadwood"]
    if knocks:
        return min(knocks, key=lambda a: dd[a["card"]])
    discards = [a for a in legal if a["kind"] == "discard"]
    if discards:
        best = min(dd[a["card"]] for a in discards)
        return rng.choice([a for a in discards if dd[a["card"]] == best])
    take = [a for a in legal if a["kind"] == "take_upcard" or a.get("source") == "discard"]
    if take and hand["discard_pile"]:
        top = hand["discard_pile"][-1]
        with_top = [*hand["hand"], top]
        after = min(deadwood([c for c in with_top if c != d]) for d in hand["hand"])
        if after < hand["deadwood"] or rng.random() < 0.1:
            return take[0]
    plain = [a for a in legal if a not in take]
    return plain[0] if plain else rng.choice(legal)


async def play_seat(sock: Socket, rng: random.Random, max_messages: int = 20_000) -> dict[str, Any]:
    """Play a seat to the end of the match; the final state message."""
    acted_on = -1
    msg = sock.state  # the state that answered hello, if it was already read
    for _ in range(max_messages):
        if msg is None:
            msg = await sock.recv()
        if msg["type"] == "error":
            recent = [
                (m["type"], m.get("version"), m.get("view", {}).get("status_line"))
                for m in sock.messages[-6:]
            ]
            raise AssertionError(f"unexpected error {msg} after {recent}")
        if msg["type"] != "state":
            msg = None
            continue
        view = msg["view"]
        if view["status"] == "finished":
            return msg
        if view["hand"]["legal_actions"] and msg["version"] != acted_on:
            acted_on = msg["version"]
            await sock.act(choose(view, rng))
        msg = None
    raise AssertionError("the match did not end")


async def play_match(client: TestClient, sockets: list[Socket], seed: int = 0) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return list(await asyncio.gather(*(play_seat(s, random.Random(rng.random())) for s in sockets)))


# --- hidden information ------------------------------------------------------------------------


def _codes(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        found.update(CARD.findall(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            found.update(_codes(k))
            found.update(_codes(v))
    elif isinstance(value, list):
        for v in value:
            found.update(_codes(v))
    return found


def check_no_leaks(record: dict[str, Any], messages: list[dict[str, Any]], seat: int | None) -> int:
    """Replay each hand of ``record`` to the point of every state message and check that the
    message names no card hidden from ``seat`` (None: a watcher) at that point: the other hand
    (bar cards it took face up this hand) and the stock, and for a watcher both hands. Returns
    how many messages were checked."""
    rules = RULES[record["rules"]]
    checked = 0
    replayed: dict[int, tuple[Any, int]] = {}  # hand number -> (truth so far, actions applied)
    for msg in messages:
        if msg["type"] != "state":
            continue
        view = msg["view"]
        assert view["seat"] == seat
        if view["status"] == "waiting" and seat is None:
            continue
        hand_view = view["hand"]
        number = view["hand_number"]
        deal = record["hands"][number - 1]
        history = hand_view["history"]
        truth, applied = replayed.get(number, (None, 0))
        if truth is None or applied > len(history):
            truth, applied = (
                new_hand(rules, deal["starter"], tuple(deal["hands"]), deal["upcard"], deal["stock"]),
                0,
            )
        for entry in deal["actions"][applied : len(history)]:
            truth.apply(Action.from_wire(entry["action"]), entry["seat"])
        replayed[number] = (truth, len(history))
        public = {e["card"] for e in history if "card" in e}
        hidden = {c.code for c in truth.stock_order()}
        if truth.result is None:
            for s in (0, 1):
                if s != seat:
                    hidden |= {c.code for c in truth.hand(s)} - public
        if seat is not None:
            own = {c.code for c in truth.hand(seat)}
            assert set(hand_view["hand"]) == own, "a seat's view shows the wrong hand"
            hidden -= own
        else:
            assert hand_view["hand"] == [], "a watcher was shown a hand"
            assert hand_view["legal_actions"] == []
        # Everything except results (which reveal hands only once over) and static rule text.
        visible = _codes({k: v for k, v in hand_view.items() if k != "result"})
        # (The match id is random text: "m_…-Td" names no card.)
        visible |= _codes(
            {k: v for k, v in view.items() if k not in ("hand", "last_result", "rules", "match_id")}
        )
        leaked = visible & hidden
        assert not leaked, f"seat {seat} saw hidden cards {sorted(leaked)} at version {msg['version']}"
        if hand_view["result"] is not None:
            assert not (_codes(hand_view["result"]) & {c.code for c in truth.stock_order()})
        checked += 1
    return checked
