"""Test helpers that speak only the public protocol: REST calls, a WebSocket seat that records
every message it receives, a player that picks from ``legal_actions`` only, and the hidden-card
check that replays a finished match's record to know the truth behind every message."""

from __future__ import annotations

import asyncio
import itertools
import random
import re
from typing import Any

import msgspec
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient

from server.bench.load import hidden_card_leaks
from server.rules import deadwood
from server.wire.messages import ServerMessage

# A card code standing alone ("5h"), not inside a random id or token ("m_x-5h-q" is no card).
CARD_CODE = re.compile(r"(?<![\w-])[A2-9TJQK][cdhs](?![\w-])")

_strict = msgspec.json.Decoder(ServerMessage)


def check_server_message(text: str | bytes) -> Any:
    """Decode a server message strictly: raises ``msgspec.ValidationError`` unless it is exactly
    as documented."""
    return _strict.decode(text)


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


def check_no_leaks(record: dict[str, Any], messages: list[dict[str, Any]], seat: int | None) -> int:
    """Check that no state message names a card hidden from ``seat`` (None: a watcher) at that
    point (see :func:`server.bench.load.hidden_card_leaks`). Returns how many were checked."""
    problems = hidden_card_leaks(record, messages, seat)
    assert problems == [], problems[:5]
    return sum(1 for m in messages if m["type"] == "state")
