"""The soak's hostile clients (:mod:`server.bench.soak`): each from its own loopback address,
sending one kind of bad input after another (:data:`KINDS`) and counting the answers. Loopback
only; the soak bounds them in count and time."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import secrets
from collections import Counter
from typing import Any

import aiohttp

KINDS = ("malformed", "nested", "oversized", "nul", "reused_id", "flood", "slow_reader", "idle", "rest_token")
WS = aiohttp.WSMsgType


def ws_url(base: str) -> str:
    return base.replace("http", "ws", 1) + "/ws"


async def rest(session: aiohttp.ClientSession, method: str, url: str, token: str = "", **body: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with session.request(method, url, json=body or None, headers=headers) as r:
        data = await r.json() if r.content_type == "application/json" else None
        if r.status >= 300:
            raise RuntimeError(f"{method} {url}: {r.status} {data}")
        return data


class Hostile:
    """One hostile client from its own loopback address: a player of its own and a match
    against the computer (for the attacks that need a bound socket), every kind in turn."""

    def __init__(
        self, index: int, urls: list[str], sent: Counter[str], answers: dict[str, Counter[str]]
    ) -> None:
        self.index, self.urls, self.sent, self.answers = index, urls, sent, answers
        self.rng = random.Random(index)
        self.token = self.match_id = ""
        self.held: list[tuple[str, aiohttp.ClientWebSocketResponse]] = []

    @property
    def url(self) -> str:
        return self.urls[self.rng.randrange(2)]

    def answer(self, kind: str, what: str) -> None:
        self.answers[kind][what] += 1

    async def run(self, session: aiohttp.ClientSession, stop: asyncio.Event) -> None:
        kinds = itertools.islice(itertools.cycle(KINDS), self.index % len(KINDS), None)
        for kind in kinds:
            if stop.is_set():
                break
            self.sent[kind] += 1
            try:
                if not self.match_id and kind in ("reused_id", "flood", "slow_reader"):
                    await self.new_match(session)
                await asyncio.wait_for(getattr(self, kind)(session), 15)
            except (aiohttp.ClientError, OSError, RuntimeError, TimeoutError, TypeError, ValueError) as e:
                self.answer(kind, f"client:{type(e).__name__}")
            await asyncio.sleep(0.05)
        # The slow readers and idle sockets: closed by the server yet? All looked at together,
        # two seconds at most (one after another, a hostile holding ten took twenty).
        await asyncio.gather(*(self.look_at_held(kind, ws) for kind, ws in self.held))

    async def look_at_held(self, kind: str, ws: aiohttp.ClientWebSocketResponse) -> None:
        with contextlib.suppress(TimeoutError, aiohttp.ClientError, ConnectionError):
            async with asyncio.timeout(2):
                while (await ws.receive()).type in (WS.TEXT, WS.BINARY):
                    pass
        self.answer(kind, f"at end: closed {ws.close_code}" if ws.closed else "at end: still open")
        await ws.close()

    async def new_match(self, session: aiohttp.ClientSession) -> None:
        base = self.url
        if not self.token:
            self.token = (await rest(session, "POST", f"{base}/api/players", name=f"Hostile {self.index}"))[
                "token"
            ]
        self.match_id = (await rest(session, "POST", f"{base}/api/matches", self.token))["match_id"]

    async def record(
        self,
        kind: str,
        session: aiohttp.ClientSession,
        frames: list[str],
        hello: bool = False,
        read: int = 1,
        ahead: int = 0,
    ) -> None:
        """Send ``frames`` (after a hello when asked), reading meanwhile, and count the answers to
        the first ``read`` non-state messages: an error code, ``ack``, ``pong`` or ``close CODE``;
        with ``ahead``, never more than that many frames unanswered."""
        out: Counter[str] = Counter()

        async def reader(ws: aiohttp.ClientWebSocketResponse) -> None:
            while out.total() < read:
                try:
                    msg = await ws.receive(timeout=5)
                except TimeoutError:
                    out["no answer in 5 s"] += 1
                    return
                if msg.type not in (WS.TEXT, WS.BINARY):
                    out[f"close {ws.close_code}"] += 1
                    return
                data = json.loads(msg.data)
                if data["type"] != "state":
                    out[data.get("code") or data["type"]] += 1

        async with session.ws_connect(ws_url(self.url), max_msg_size=0) as ws:
            task = asyncio.ensure_future(reader(ws))
            if hello:
                await ws.send_json({"type": "hello", "match": self.match_id, "token": self.token})
            with contextlib.suppress(ConnectionError):
                for i, f in enumerate(frames):
                    while ahead and i - out.total() > ahead and not task.done():
                        await asyncio.sleep(0.001)
                    await ws.send_str(f)
            await task
        for a, n in out.items():
            self.answers[kind][a + ("" if read == 1 else " (paced)" if ahead else " (burst)")] += n

    async def malformed(self, session: aiohttp.ClientSession) -> None:
        frame = self.rng.choice(
            ["{{", "\x01" + "junk" * 5, "[]", '{"type": "move"}', '{"type": "act", "id": "x', "null"]
        )
        await self.record("malformed", session, [frame])

    async def nested(self, session: aiohttp.ClientSession) -> None:
        depth = self.rng.choice([500, 1900])
        frame = self.rng.choice(
            ["[" * depth + "]" * depth, '{"type": "act", "action": ' + '{"a": ' * 500 + "1" + "}" * 501]
        )
        await self.record("nested", session, [frame])

    async def oversized(self, session: aiohttp.ClientSession) -> None:
        size = self.rng.choice([4097, 10_000, 70 * 1024])
        await self.record("oversized", session, ['{"type": "ping", "pad": "' + "x" * size + '"}'])

    async def nul(self, session: aiohttp.ClientSession) -> None:
        pick = self.rng.randrange(3)
        if pick == 0:
            hello = {"type": "hello", "match": "m_\u0000" + secrets.token_hex(4), "token": "t\u0000x"}
            await self.record("nul", session, [json.dumps(hello)])
        elif pick == 1:
            act = {"type": "act", "id": "a\u0000b", "version": 1, "action": {"kind": "pass"}}
            await self.record("nul", session, [json.dumps(act)])
        else:
            async with session.post(f"{self.url}/api/players", json={"name": "A\u0000da"}) as r:
                self.answer("nul", f"REST {r.status}")

    async def reused_id(self, session: aiohttp.ClientSession) -> None:
        """An action acknowledged, then the same id with another action."""
        async with session.ws_connect(ws_url(self.url)) as ws:
            await ws.send_json({"type": "hello", "match": self.match_id, "token": self.token})
            while (data := await ws.receive_json(timeout=10))["type"] != "state" or not (
                legal := data["view"]["hand"]["legal_actions"]
            ):
                if data["type"] == "error" or data["view"]["status"] == "finished":
                    self.match_id = "" if data["type"] == "state" else self.match_id  # over: a new one
                    return self.answer("reused_id", data.get("code") or "(match over)")
            v, mid = data["version"], f"r{secrets.token_hex(4)}"
            for n, action in enumerate([legal[0], legal[1] if len(legal) > 1 else {"kind": "pass"}]):
                await ws.send_json({"type": "act", "id": mid, "version": v, "action": action})
                while (data := await ws.receive_json(timeout=10))["type"] not in ("ack", "error"):
                    pass
                self.answer("reused_id", ("first " if n == 0 else "second ") + (data.get("code") or "ack"))

    async def flood(self, session: aiohttp.ClientSession) -> None:
        """1500 pings at once (a burst), or 1500 as fast as they are answered (over 1000 a second)."""
        ahead = self.rng.choice([0, 200])
        await self.record("flood", session, ['{"type": "ping"}'] * 1500, hello=True, read=1500, ahead=ahead)

    async def slow_reader(self, session: aiohttp.ClientSession) -> None:
        ws = await session.ws_connect(ws_url(self.url), max_msg_size=0)
        hello = json.dumps({"type": "hello", "match": self.match_id, "token": self.token})
        for _ in range(900):  # each answered with a full state, and never read
            await ws.send_str(hello)
        self.held.append(("slow_reader", ws))

    async def idle(self, session: aiohttp.ClientSession) -> None:
        self.held.append(("idle", await session.ws_connect(ws_url(self.url))))

    async def rest_token(self, session: aiohttp.ClientSession) -> None:
        for _ in range(20):
            headers = {"Authorization": f"Bearer t_{secrets.token_urlsafe(24)}"}
            async with session.get(f"{self.url}/api/matches", headers=headers) as r:
                self.answer("rest_token", f"REST {r.status}")
