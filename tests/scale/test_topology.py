"""The compose topology as processes: one Postgres, two ``python -m server`` replicas on
different ports, players and watchers spread over both. Any replica serves any client and any
action; events reach the other replica through LISTEN/NOTIFY; the database lets only one writer
apply each action (a human's, or the computer's); and when a replica is killed its clients
reconnect to the other and finish."""

from __future__ import annotations

import asyncio
import collections
import json
import random
import signal
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from server.bench import load
from server.bench.load.servers import scrape_metrics

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

ENV = {"GINRUMMY_BOT_DELAY": "0", "GINRUMMY_LOG_LEVEL": "info", "GINRUMMY_BROADCAST": "postgres"}


class Client:
    """One socket on one replica, moving to the other when its replica dies. Keeps every state
    it receives, and the actions the server acknowledged."""

    def __init__(self, session: aiohttp.ClientSession, urls: list[str], match_id: str, token: str) -> None:
        self.session = session
        self.urls = urls
        self.match_id = match_id
        self.token = token
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.states: list[dict[str, Any]] = []
        self.trail: collections.deque[str] = collections.deque(maxlen=30)
        """The last messages sent and received, with the server they went to (for failures)."""
        self.acked: list[tuple[int, int, dict[str, Any]]] = []  # (version, seat, action)
        self.reconnects = 0
        self.rng = random.Random(token)
        self._ids = iter(range(1, 10**9))

    @property
    def url(self) -> str:
        return self.urls[0]

    async def connect(self) -> dict[str, Any]:
        self.ws = await self.session.ws_connect(self.url.replace("http", "ws", 1) + "/ws")
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.reader = asyncio.ensure_future(self._read(self.ws, self.inbox))
        await self.send({"type": "hello", "match": self.match_id, "token": self.token})
        return await self.next_state()

    @staticmethod
    async def _read(ws: aiohttp.ClientWebSocketResponse, inbox: asyncio.Queue) -> None:
        # Read all the time, so that a socket nobody waits on still keeps up (and its states are
        # kept, in order).
        async for msg in ws:
            if msg.type == aiohttp.WSMsgType.TEXT:
                inbox.put_nowait(json.loads(msg.data))
        inbox.put_nowait(None)

    async def failover(self) -> dict[str, Any]:
        """This replica is gone: the next one in the list, hello again."""
        self.urls = self.urls[1:] + self.urls[:1]
        self.reconnects += 1
        return await self.connect()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        self.trail.append(f"-> {self.url[-5:]} {json.dumps(message)[:160]}")
        await self.ws.send_json(message)

    async def receive(self, timeout: float = 20) -> dict[str, Any] | None:
        data = await asyncio.wait_for(self.inbox.get(), timeout)
        self.trail.append(f"<- {self.url[-5:]} {json.dumps(data)[:160]}")
        if data is None:
            return None
        if data["type"] == "state":
            self.states.append(data)
        return data

    async def next_state(self) -> dict[str, Any]:
        while True:
            data = await self.receive()
            if data is None:
                raise ConnectionError("closed")
            if data["type"] == "state":
                return data

    async def play(self, stop_at_version: int | None = None) -> dict[str, Any]:
        """Play this seat until the match is over (or past ``stop_at_version``), failing over
        whenever the socket drops. Returns the last state."""
        state = self.states[-1]
        acted_on = -1
        pending: tuple[str, dict[str, Any]] | None = None
        while True:
            view = state["view"]
            if view["status"] == "finished":
                return state
            if stop_at_version is not None and state["version"] >= stop_at_version:
                return state
            legal = view["hand"]["legal_actions"]
            if legal and state["version"] != acted_on and pending is None:
                acted_on = state["version"]
                action = load.choose(view, self.rng)
                msg_id = f"{self.token[:6]}-{next(self._ids)}"
                pending = (msg_id, action)
                try:
                    await self.send(
                        {"type": "act", "id": msg_id, "version": state["version"], "action": action}
                    )
                except (ConnectionError, aiohttp.ClientError):
                    pending = None
                    state = await self.failover()
                    acted_on = -1
                    continue
            data = await self.receive()
            if data is None:
                pending = None
                acted_on = -1
                state = await self.failover()
                continue
            if data["type"] == "ack":
                assert pending is not None and data["id"] == pending[0], "\n".join(self.trail)
                self.acked.append((data["version"], view["seat"], pending[1]))
                pending = None
            elif data["type"] == "error":
                # A stale version can only come from an action racing a change: resync.
                assert data["code"] == "stale_version", "\n".join(self.trail)
                pending = None
            elif data["type"] == "state":
                state = data


async def rest(session: aiohttp.ClientSession, method: str, url: str, token: str | None = None, **body: Any):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with session.request(method, url, json=body or None, headers=headers) as r:
        data = await r.json()
        assert r.status < 300, (method, url, r.status, data)
        return data


def check_record(record: dict[str, Any], clients: list[Client], offset: int) -> None:
    """Every acknowledged action is the record's action at its version (``offset`` versions
    were not actions: the join), and no state ever named a card hidden from its viewer."""
    flat = [(a["seat"], a["action"]) for hand in record["hands"] for a in hand["actions"]]
    for c in clients:
        for version, seat, action in c.acked:
            assert flat[version - 1 - offset] == (seat, action), f"acked action at version {version} lost"
        seat = c.states[0]["view"]["seat"]
        leaks = load.hidden_card_leaks(record, c.states, seat)
        assert leaks == [], leaks[:3]


def assert_clean_logs(paths: list[Path]) -> None:
    for path in paths:
        text = path.read_text(errors="replace")
        assert "Traceback" not in text, text[-3000:]
        assert '"level": "error"' not in text and '"level":"error"' not in text, text[-3000:]


async def start_two(database_url: str, tmp_path: Path, **env: str) -> list[load.Server]:
    servers = [load.start_server(database_url, tmp_path, {**ENV, **env}) for _ in range(2)]
    # One after the other is not needed: migrations take an advisory lock.
    await asyncio.gather(*(load.wait_healthy(s.url, s.process) for s in servers))
    return servers


async def human_match(
    session: aiohttp.ClientSession, create_at: str, join_at: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Ada creates a match against a human through ``create_at``; Bob joins it through
    ``join_at`` with the invite. Returns (ada, bob, match)."""
    ada = await rest(session, "POST", f"{create_at}/api/players", name="Ada")
    bob = await rest(session, "POST", f"{join_at}/api/players", name="Bob")
    match = await rest(session, "POST", f"{create_at}/api/matches", ada["token"], opponent="human")
    await rest(
        session,
        "POST",
        f"{join_at}/api/matches/{match['match_id']}/join",
        bob["token"],
        invite=match["invite"]["code"],
    )
    return ada, bob, match


# Failed in about one full run in five: the replica that reloaded a match read its row at one
# version and its actions one commit later (two reads, two snapshots), so it showed a seat a turn
# it did not have. Fixed in SqlStore.load_match (tests/storage); the re-runs stay for one more
# round of full runs, then should go. The clients print their last 30 messages on a failure.
async def test_two_players_on_different_replicas_finish_a_match_when_one_replica_is_killed(
    fresh_database, tmp_path
):
    servers = await start_two(fresh_database, tmp_path)
    a, b = (s.url for s in servers)
    try:
        async with aiohttp.ClientSession() as session:
            # Bob joins through the other replica: any replica accepts any action.
            ada, bob, match = await human_match(session, a, b)
            mid = match["match_id"]

            ada_c = Client(session, [a, b], mid, ada["token"])
            bob_c = Client(session, [b, a], mid, bob["token"])
            watch_a = Client(session, [a, b], mid, match["watch_token"])
            watch_b = Client(session, [b, a], mid, match["watch_token"])
            for c in (ada_c, bob_c, watch_a, watch_b):
                await c.connect()

            # First half: Ada's moves are applied by replica A, Bob's by B; each hears the other.
            await asyncio.gather(ada_c.play(stop_at_version=40), bob_c.play(stop_at_version=40))
            assert {v for v, s, _ in ada_c.acked} and {v for v, s, _ in bob_c.acked}

            servers[0].process.send_signal(signal.SIGKILL)
            servers[0].process.wait(10)

            async def watch(c: Client) -> None:
                while True:
                    data = await c.receive(timeout=60)
                    if data is None:
                        await c.failover()
                    elif data["type"] == "state" and data["view"]["status"] == "finished":
                        return

            final = await asyncio.wait_for(
                asyncio.gather(ada_c.play(), bob_c.play(), watch(watch_a), watch(watch_b)), timeout=120
            )
            assert final[0]["view"]["status"] == final[1]["view"]["status"] == "finished"
            assert ada_c.reconnects == 1 and watch_a.reconnects == 1 and bob_c.reconnects == 0
            assert final[0]["version"] == final[1]["version"] == watch_b.states[-1]["version"]
            assert watch_a.states[-1]["version"] == final[0]["version"]

            record = await rest(session, "GET", f"{b}/api/matches/{mid}/record", ada["token"])
            check_record(record, [ada_c, bob_c, watch_a, watch_b], offset=1)
            assert len(ada_c.acked) + len(bob_c.acked) == sum(len(h["actions"]) for h in record["hands"])
    finally:
        for s in servers:
            load.stop_server(s)
    assert_clean_logs([s.log_path for s in servers])


async def test_an_action_id_sent_again_to_the_other_replica_is_recognised_and_not_applied_twice(
    fresh_database, tmp_path
):
    servers = await start_two(fresh_database, tmp_path)
    a, b = (s.url for s in servers)
    try:
        async with aiohttp.ClientSession() as session:
            ada, bob, match = await human_match(session, a, a)
            mid = match["match_id"]
            on_a = [Client(session, [a], mid, t) for t in (ada["token"], bob["token"])]
            on_b = [Client(session, [b], mid, t) for t in (ada["token"], bob["token"])]
            states = [await c.connect() for c in on_a + on_b]
            version = states[0]["version"]
            seat = states[0]["view"]["hand"]["to_act"]
            action = states[seat]["view"]["hand"]["legal_actions"][0]
            message = {"type": "act", "id": "once", "version": version, "action": action}
            # The same message to both replicas at once, then again to each: one application.
            await asyncio.gather(on_a[seat].ws.send_json(message), on_b[seat].ws.send_json(message))
            answers = []
            for c in (on_a[seat], on_b[seat]):
                while True:
                    data = await c.receive()
                    if data["type"] in ("ack", "error"):
                        answers.append(data)
                        break
            assert answers == [{"type": "ack", "id": "once", "version": version + 1}] * 2, answers
            for c in (on_a[seat], on_b[seat]):
                await c.ws.send_json(message)
                while (data := await c.receive())["type"] == "state":
                    pass
                assert data == {"type": "ack", "id": "once", "version": version + 1}
            await rest(session, "POST", f"{b}/api/matches/{mid}/resign", ada["token"])
            record = await rest(session, "GET", f"{a}/api/matches/{mid}/record", ada["token"])
            assert [a["action"] for h in record["hands"] for a in h["actions"]] == [action]
    finally:
        for s in servers:
            load.stop_server(s)
    assert_clean_logs([s.log_path for s in servers])


async def test_two_replicas_holding_a_computer_match_never_both_make_the_computers_move(
    fresh_database, tmp_path
):
    servers = await start_two(fresh_database, tmp_path)
    a, b = (s.url for s in servers)
    try:
        async with aiohttp.ClientSession() as session:
            players = [await rest(session, "POST", f"{a}/api/players", name=f"P{i}") for i in range(12)]
            pairs = []
            for p in players:
                m = await rest(session, "POST", f"{a}/api/matches", p["token"])
                pairs.append(
                    (
                        Client(session, [a], m["match_id"], p["token"]),
                        Client(session, [b], m["match_id"], p["token"]),
                    )
                )
            # The seat opens the match on both replicas at the same moment: when the computer is
            # to move first, both are tempted to make its move.
            await asyncio.gather(*(c.connect() for pair in pairs for c in pair))
            await asyncio.wait_for(asyncio.gather(*(c.play(stop_at_version=60) for c, _ in pairs)), 120)
            resigned = {}
            for c, _ in pairs:
                # Wait out the computer's turn (its move may end the match), so that the match
                # cannot change between reading its status and resigning it.
                view = c.states[-1]["view"]
                while not (view["status"] == "finished" or view["hand"]["legal_actions"]):
                    view = (await c.next_state())["view"]
                # A match may already have ended on points before version 60.
                summary = await rest(session, "GET", f"{b}/api/matches/{c.match_id}", c.token)
                resigned[c.match_id] = summary["status"] != "finished"
                if resigned[c.match_id]:
                    await rest(session, "POST", f"{b}/api/matches/{c.match_id}/resign", c.token)
            for (c, d), p in zip(pairs, players):
                record = await rest(session, "GET", f"{a}/api/matches/{c.match_id}/record", p["token"])
                # The server rebuilt the record by replaying every stored action (a doubled
                # computer move would not replay), every ack is in it, and the replica that did
                # not serve the player heard every change.
                check_record(record, [c, d], offset=0)
                flat = [x for h in record["hands"] for x in h["actions"]]
                assert [x["seat"] for x in flat].count(0) == len(c.acked)
                while (data := await d.receive()) is not None and not (
                    data["type"] == "state" and data["view"]["status"] == "finished"
                ):
                    pass
                assert d.states[-1]["version"] == len(flat) + resigned[c.match_id]  # + the resignation
    finally:
        for s in servers:
            load.stop_server(s)
    assert_clean_logs([s.log_path for s in servers])


async def test_a_socket_on_the_other_replica_sees_the_computers_first_move(fresh_database, tmp_path):
    """A match against the computer created through one replica (which schedules the
    computer's first move) and played through the other, which loaded it for the socket's hello.
    The loading replica leaves that turn to the creator (it wrote the match moments ago) and
    thinks for none of its moves; it did think for them too, and the one that lost the race to
    write rebuilt its copy silently: about one computer-first match in five stayed at "the
    computer is thinking" for good. (Should both write all the same, the loser tells its
    sockets what won: tests/service/test_processes.py.)"""
    servers = await start_two(fresh_database, tmp_path, GINRUMMY_BOT_DELAY="0.05")
    a, b = (s.url for s in servers)
    computer_first = 0
    try:
        async with aiohttp.ClientSession() as session:
            for i in range(24):
                player = await rest(session, "POST", f"{a}/api/players", name=f"P{i}")
                match = await rest(session, "POST", f"{a}/api/matches", player["token"])
                c = Client(session, [b], match["match_id"], player["token"])
                state = await c.connect()
                computer_first += not state["view"]["hand"]["legal_actions"]
                while not state["view"]["hand"]["legal_actions"]:
                    try:
                        state = await asyncio.wait_for(c.next_state(), 10)
                    except TimeoutError:
                        raise AssertionError("stuck at the computer's turn:\n" + "\n".join(c.trail)) from None
                await c.ws.close()
        thought = [(await scrape_metrics(s.url)).get("ginrummy_bot_think_seconds_count", 0) for s in servers]
    finally:
        for s in servers:
            load.stop_server(s)
    assert computer_first >= 3, "the computer moved first too rarely to test anything"
    assert thought[1] == 0 and thought[0] >= computer_first, f"computer choices by replica: {thought}"
    assert_clean_logs([s.log_path for s in servers])


async def test_a_player_on_the_other_replica_shows_as_connected_and_then_as_gone(fresh_database, tmp_path):
    servers = await start_two(fresh_database, tmp_path)
    a, b = (s.url for s in servers)

    async def until_connected(c: Client, flags: list[bool]) -> None:
        while [p["connected"] for p in c.states[-1]["view"]["players"]] != flags:
            await c.next_state()

    try:
        async with aiohttp.ClientSession() as session:
            ada, bob, match = await human_match(session, a, b)
            mid = match["match_id"]
            ada_c, bob_c = Client(session, [a], mid, ada["token"]), Client(session, [b], mid, bob["token"])
            await ada_c.connect()
            await bob_c.connect()
            # Each replica hears of the other's socket (a presence notification), and says so.
            await asyncio.wait_for(until_connected(ada_c, [True, True]), 10)
            await asyncio.wait_for(until_connected(bob_c, [True, True]), 10)
            await bob_c.ws.close()
            await asyncio.wait_for(until_connected(ada_c, [True, False]), 10)
            await ada_c.ws.close()
    finally:
        for s in servers:
            load.stop_server(s)
    assert_clean_logs([s.log_path for s in servers])
