"""The WebSocket protocol: hello and state, acting and acks, every error code, limits, Origin,
close codes, watchers, presence, leaving and coming back, and shutdown."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from aiohttp import WSMsgType

from server.config import Limits

from .helpers import Socket, auth, new_match, new_player


async def human_match(client, **body):
    """Ada (seat 0) and Bob (seat 1) in an active match, both connected; returns
    (match, ada, bob, ada_socket, bob_socket)."""
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    m = await new_match(client, ada, opponent="human", **body)
    r = await client.post(
        f"/api/matches/{m['match_id']}/join", json={"invite": m["invite"]["code"]}, headers=auth(bob)
    )
    assert r.status == 200
    a, b = await Socket.connect(client), await Socket.connect(client)
    await a.hello(m["match_id"], ada["token"])
    await b.hello(m["match_id"], bob["token"])
    await a.recv_until("state")  # Bob's arrival (presence)
    return m, ada, bob, a, b


def to_act(sock: Socket, a: Socket, b: Socket) -> tuple[Socket, Socket]:
    """(the socket whose turn it is, the other)."""
    seat = sock.state["view"]["hand"]["to_act"]
    return (a, b) if seat == 0 else (b, a)


async def expect_error(sock: Socket, code: str, msg_id: str | None = None) -> dict:
    msg = await sock.recv_until("error")
    assert msg["code"] == code, msg
    assert msg["id"] == msg_id
    assert msg["message"]
    return msg


async def test_hello_answers_with_the_seats_own_full_view(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada, difficulty="hard")
    sock = await Socket.connect(client)
    state = await sock.hello(m["match_id"], ada["token"], version=0)
    while state["view"]["hand"]["to_act"] != 0:  # the computer may be starting
        state = await sock.recv_until("state")
    view = state["view"]
    assert state["type"] == "state" and state["version"] == view["version"]
    assert view["match_id"] == m["match_id"] and view["seat"] == 0 and view["status"] == "active"
    assert view["players"][1] == {
        "seat": 1,
        "name": "Computer (Hard)",
        "kind": "computer",
        "connected": True,
        "bot": False,
    }
    assert view["players"][0]["connected"] is True
    assert view["rules"]["name"] == "house" and view["rules"]["knock_limit"] == 10
    hand = view["hand"]
    assert len(hand["hand"]) == 10 and hand["hand_counts"] == [10, 10]
    assert sorted(hand["hand"]) == sorted({c for c in hand["hand"]})
    assert hand["to_act"] == 0 and hand["legal_actions"]
    # (After the last hand's result when the computer, starting, ended the first hand at once.)
    assert view["status_line"].startswith("Your turn") or (
        view["hand_number"] > 1 and "Your turn" in view["status_line"]
    )
    assert {"hand_number", "scores", "hands_won", "last_result", "outcome"} <= set(view)


async def test_the_acting_client_gets_its_ack_before_the_new_state(make_client):
    client = await make_client()
    _m, _ada, _bob, a, b = await human_match(client)
    mover, other = to_act(a, a, b)
    version = mover.state["version"]
    msg_id = await mover.act({"kind": "pass"})
    ack = await mover.recv()
    assert ack == {"type": "ack", "id": msg_id, "version": version + 1}
    state = await mover.recv()
    assert state["type"] == "state" and state["version"] == version + 1
    seen = await other.recv_until("state")
    assert seen["version"] == version + 1 and seen["view"]["hand"]["history"][-1]["kind"] == "pass"


async def test_a_repeated_id_is_answered_as_before_and_applied_once(make_client):
    client = await make_client()
    m, ada, _bob, a, b = await human_match(client)
    mover, other = to_act(a, a, b)
    version = mover.state["version"]
    await mover.act({"kind": "pass"}, id="same")
    first = await mover.recv_until("ack")
    await mover.recv_until("state")
    await mover.act({"kind": "pass"}, version=version, id="same")
    again = await mover.recv()
    assert again == first
    # Applied once: the other seat's turn now, and still one version later.
    await other.recv_until("state")
    await other.send({"type": "ping"})
    assert await other.recv() == {"type": "pong"}
    assert other.state["version"] == version + 1
    details = await (await client.get(f"/api/matches/{m['match_id']}", headers=auth(ada))).json()
    assert details["version"] == version + 1


async def test_a_stale_version_is_refused_and_the_current_state_follows(make_client):
    client = await make_client()
    _m, _ada, _bob, a, b = await human_match(client)
    mover, _ = to_act(a, a, b)
    version = mover.state["version"]
    msg_id = await mover.act({"kind": "pass"}, version=version - 1)
    error = await expect_error(mover, "stale_version", msg_id)
    assert str(version) in error["message"]
    state = await mover.recv()
    assert state["type"] == "state" and state["version"] == version


async def test_acting_out_of_turn_is_not_your_turn(make_client):
    client = await make_client()
    _m, _ada, _bob, a, b = await human_match(client)
    _, waiting = to_act(a, a, b)
    msg_id = await waiting.act({"kind": "pass"})
    await expect_error(waiting, "not_your_turn", msg_id)


async def test_the_computers_turn_is_not_yours(make_client):
    client = await make_client(bot_delay=30.0)
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    state = await sock.hello(m["match_id"], ada["token"])
    if state["view"]["hand"]["to_act"] == 0:  # take our turn so that the computer's comes
        await sock.act({"kind": "pass"})
        await sock.recv_until("ack")
        await sock.recv_until("state")
    assert sock.state["view"]["hand"]["to_act"] == 1
    assert sock.state["view"]["status_line"] == "Computer (Normal) is thinking"
    msg_id = await sock.act({"kind": "pass"})
    await expect_error(sock, "not_your_turn", msg_id)


@pytest.mark.parametrize(
    "action",
    [
        {"kind": "draw", "source": "stock"},  # the upcard is on offer
        {"kind": "discard", "card": "7h"},
        {"kind": "knock", "card": "Kd"},
    ],
)
async def test_an_illegal_action_is_refused_and_changes_nothing(make_client, action):
    client = await make_client()
    _m, _ada, _bob, a, b = await human_match(client)
    mover, other = to_act(a, a, b)
    version = mover.state["version"]
    msg_id = await mover.act(action)
    await expect_error(mover, "illegal_action", msg_id)
    await mover.send({"type": "ping"})
    assert await mover.recv() == {"type": "pong"}
    assert mover.state["version"] == version
    assert not [x for x in other.messages[-1:] if x["type"] == "state" and x["version"] != version]


@pytest.mark.parametrize(
    ("raw", "has_id"),
    [
        ("not json", False),
        ("[1, 2]", False),
        ('{"type": "dance"}', False),
        ('{"match": "m_x", "token": "t"}', False),
        ('{"type": "ping", "extra": 1}', False),
        ('{"type": "act", "id": "a1", "version": 0}', True),
        ('{"type": "act", "id": "a1", "version": -1, "action": {"kind": "pass"}}', True),
        ('{"type": "act", "id": "a1", "version": "1", "action": {"kind": "pass"}}', True),
        ('{"type": "act", "id": "a1", "version": 1, "action": {"kind": "fly"}}', True),
        ('{"type": "act", "id": "a1", "version": 1, "action": {"kind": "discard", "card": "1x"}}', True),
        ('{"type": "act", "id": "a1", "version": 1, "action": {"kind": "pass", "card": "7h"}}', True),
        ('{"type": "act", "id": "' + "x" * 65 + '", "version": 1, "action": {"kind": "pass"}}', False),
    ],
)
async def test_a_malformed_message_is_a_bad_request(make_client, raw, has_id):
    client = await make_client()
    _m, _ada, _bob, a, b = await human_match(client)
    mover, _ = to_act(a, a, b)
    version = mover.state["version"]
    await mover.ws.send_str(raw)
    await expect_error(mover, "bad_request", "a1" if has_id else None)
    await mover.send({"type": "ping"})
    assert await mover.recv() == {"type": "pong"}
    assert mover.state["version"] == version


async def test_act_before_hello_and_act_by_a_watcher_are_unauthorized(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    await sock.send({"type": "act", "id": "x1", "version": 0, "action": {"kind": "pass"}})
    await expect_error(sock, "unauthorized", "x1")
    state = await sock.hello(m["match_id"], m["watch_token"])
    assert state["view"]["seat"] is None and state["view"]["hand"]["hand"] == []
    await sock.send({"type": "act", "id": "x2", "version": state["version"], "action": {"kind": "pass"}})
    await expect_error(sock, "unauthorized", "x2")


@pytest.mark.parametrize("token", ["nope", "eve"])
async def test_a_hello_with_a_bad_token_is_unauthorized_and_closes_4001(make_client, token):
    client = await make_client()
    ada, eve = await new_player(client, "Ada"), await new_player(client, "Eve")
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    await sock.send(
        {"type": "hello", "match": m["match_id"], "token": eve["token"] if token == "eve" else token}
    )
    await expect_error(sock, "unauthorized")
    assert await sock.closed() == 4001


async def test_a_hello_for_an_unknown_match_is_not_found_and_closes_4004(make_client):
    client = await make_client()
    ada = await new_player(client)
    sock = await Socket.connect(client)
    await sock.send({"type": "hello", "match": "m_doesnotexist", "token": ada["token"]})
    await expect_error(sock, "not_found")
    assert await sock.closed() == 4004


async def test_no_hello_in_time_closes_4001(make_client):
    client = await make_client(limits=Limits(ws_hello_timeout=0.2))
    sock = await Socket.connect(client)
    assert await sock.closed() == 4001


async def test_a_message_over_4_kib_is_too_large_and_a_frame_over_64_kib_closes_1009(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    state = await sock.hello(m["match_id"], ada["token"])
    while state["view"]["hand"]["to_act"] != 0:  # the computer may be starting: no state after this
        state = await sock.recv_until("state")
    await sock.send({"type": "ping", "pad": "x" * 5000})
    await expect_error(sock, "too_large")
    await sock.send({"type": "ping"})
    assert await sock.recv() == {"type": "pong"}
    # The limit counts UTF-8 bytes, not characters: 1,500 characters of three bytes each.
    await sock.ws.send_str('{"type": "ping", "pad": "' + "\u20ac" * 1500 + '"}')
    await expect_error(sock, "too_large")
    await sock.ws.send_str('{"type": "ping", "pad": "' + "\u20ac" * 1300 + '"}')  # 3,927 bytes
    await expect_error(sock, "bad_request")  # within the limit: read, and its field refused
    await sock.ws.send_str("x" * (65 * 1024))
    assert await sock.closed() == 1009


async def test_too_many_messages_are_rate_limited(make_client):
    client = await make_client(limits=Limits(ws_rate="5/second"))
    sock = await Socket.connect(client)
    for _ in range(8):
        await sock.send({"type": "ping"})
    answers = [await sock.recv() for _ in range(8)]
    limited = [x for x in answers if x["type"] == "error"]
    assert 1 <= len(limited) <= 3 and answers[:5] == [{"type": "pong"}] * 5
    assert limited[0]["code"] == "rate_limited" and limited[0]["limit"] == "ws_messages"
    assert limited[0]["reset_in"] > 0


async def test_too_many_errors_in_a_row_close_4008(make_client):
    client = await make_client(limits=Limits(ws_max_errors=3))
    sock = await Socket.connect(client)
    for _ in range(3):
        await sock.ws.send_str("garbage")
    assert await sock.closed() == 4008
    assert [m["code"] for m in sock.messages] == ["bad_request"] * 3


async def test_ping_is_answered_with_pong(make_client):
    client = await make_client()
    sock = await Socket.connect(client)
    await sock.send({"type": "ping"})
    assert await sock.recv() == {"type": "pong"}


@pytest.mark.parametrize(
    ("origin", "allowed", "accepted"),
    [
        ("http://evil.example", (), False),
        ("http://evil.example", ("http://evil.example",), True),
        ("http://anything.example", ("*",), True),
        (None, (), True),
        ("SAME", (), True),
    ],
)
async def test_a_browser_from_a_foreign_origin_is_closed_1008(make_client, origin, allowed, accepted):
    client = await make_client(allowed_origins=allowed)
    headers = {}
    if origin == "SAME":
        headers["Origin"] = f"http://{client.host}:{client.port}"
    elif origin is not None:
        headers["Origin"] = origin
    sock = await Socket.connect(client, headers=headers)
    if accepted:
        await sock.send({"type": "ping"})
        assert await sock.recv() == {"type": "pong"}
    else:
        assert await sock.closed() == 1008


async def test_a_watcher_sees_every_change_in_the_public_view(make_client):
    client = await make_client()
    m, _ada, _bob, a, b = await human_match(client)
    w = await Socket.connect(client)
    state = await w.hello(m["match_id"], m["watch_token"])
    view = state["view"]
    assert view["seat"] is None and view["hand"]["hand"] == [] and view["hand"]["legal_actions"] == []
    assert view["hand"]["hand_counts"] == [10, 10] and view["hand"]["discard_deadwood"] == {}
    mover, _ = to_act(a, a, b)
    await mover.act({"kind": "pass"})
    seen = await w.recv_until("state")
    assert seen["version"] == state["version"] + 1
    assert seen["view"]["hand"]["history"][-1]["kind"] == "pass"
    assert seen["view"]["hand"]["hand"] == []


async def test_a_player_who_leaves_can_come_back_and_the_other_seat_sees_it(make_client):
    client = await make_client()
    m, ada, bob, a, b = await human_match(client)
    mover, other = to_act(a, a, b)
    await mover.act({"kind": "pass"})
    await mover.recv_until("ack")
    await other.recv_until("state")
    seat_of_other = other.state["view"]["seat"]
    await other.ws.close()
    left = await mover.recv_until("state")
    while left["view"]["players"][seat_of_other]["connected"]:
        left = await mover.recv_until("state")
    token = ada["token"] if seat_of_other == 0 else bob["token"]
    back = await Socket.connect(client)
    state = await back.hello(m["match_id"], token, version=1)
    assert state["view"]["seat"] == seat_of_other and state["version"] == mover.state["version"]
    assert state["view"]["hand"]["legal_actions"]  # it is the returning seat's turn
    await back.act({"kind": "pass"})
    assert (await back.recv())["type"] == "ack"
    returned = await mover.recv_until("state")
    assert returned["view"]["players"][seat_of_other]["connected"] is True


async def test_acting_in_a_waiting_or_finished_match_is_illegal(make_client):
    client = await make_client()
    ada = await new_player(client)
    waiting = await new_match(client, ada, opponent="human")
    sock = await Socket.connect(client)
    state = await sock.hello(waiting["match_id"], ada["token"])
    assert (
        state["view"]["status"] == "waiting"
        and state["view"]["status_line"] == "Waiting for an opponent to join"
    )
    assert state["view"]["hand"]["legal_actions"] == [] and state["view"]["hand"]["discard_deadwood"] == {}
    msg_id = await sock.act({"kind": "pass"})
    await expect_error(sock, "illegal_action", msg_id)

    m = await new_match(client, ada)
    s2 = await Socket.connect(client)
    await s2.hello(m["match_id"], ada["token"])
    r = await client.post(f"/api/matches/{m['match_id']}/resign", headers=auth(ada))
    assert r.status == 200
    over = await s2.recv_until("state")
    while over["view"]["status"] == "active":  # the computer may have moved first, before the resignation
        over = await s2.recv_until("state")
    assert over["view"]["status"] == "finished" and over["view"]["outcome"]["reason"] == "resign"
    assert over["view"]["status_line"] == "You resigned: Computer (Normal) wins the match"
    assert over["view"]["hand"]["legal_actions"] == []
    msg_id = await s2.act({"kind": "pass"})
    await expect_error(s2, "illegal_action", msg_id)


async def test_shutdown_closes_sockets_with_going_away(make_client):
    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    sock = await Socket.connect(client)
    await sock.hello(m["match_id"], ada["token"])
    closing = asyncio.create_task(client.server.close())
    msg = await sock.ws.receive(timeout=10)
    while msg.type == WSMsgType.TEXT:
        msg = await sock.ws.receive(timeout=10)
    assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)
    assert sock.ws.close_code == 1001
    await closing


async def test_a_database_failure_is_unavailable_and_the_act_can_be_sent_again(make_client, monkeypatch):
    from sqlalchemy.exc import OperationalError

    from server.transport.keys import SERVICE

    client = await make_client()
    store_class = type(client.app[SERVICE].store)  # whichever store the app uses
    _, _, _, a, b = await human_match(client)
    mover, _ = to_act(a, a, b)
    version = mover.state["version"]
    real_commit = store_class.commit
    failures = iter([True])

    async def flaky_commit(self, change):
        if next(failures, False):
            raise OperationalError("UPDATE matches", {}, Exception("disk I/O error"))
        return await real_commit(self, change)

    monkeypatch.setattr(store_class, "commit", flaky_commit)
    await mover.act({"kind": "pass"}, id="retry-me")
    await expect_error(mover, "unavailable", "retry-me")
    await mover.act({"kind": "pass"}, version=version, id="retry-me")
    ack = await mover.recv_until("ack")
    assert ack == {"type": "ack", "id": "retry-me", "version": version + 1}


@pytest.mark.parametrize("failure", ["database", "shutting down"])
async def test_a_hello_the_server_cannot_answer_now_is_closed_1013_to_be_tried_again(
    make_client, monkeypatch, failure
):
    # After a restart every player says hello at once; one whose hello fails must reconnect
    # (with its backoff), not wait for a state that never comes until the hello deadline
    # closes it as unauthorized (4001, which a browser takes for a bad link and stops).
    from sqlalchemy.exc import OperationalError

    from server.service.errors import Unavailable
    from server.transport.keys import SERVICE

    client = await make_client()
    ada = await new_player(client)
    m = await new_match(client, ada)
    service = client.app[SERVICE]
    real_open = service.open
    failures = iter([True])

    async def flaky_open(*args, **kwargs):
        if next(failures, False):
            if failure == "database":
                raise OperationalError("SELECT", {}, sqlite3.OperationalError("database is locked"))
            raise Unavailable("the server is shutting down")
        return await real_open(*args, **kwargs)

    monkeypatch.setattr(service, "open", flaky_open)
    sock = await Socket.connect(client)
    assert (await sock.hello(m["match_id"], ada["token"]))["code"] == "unavailable"
    msg = await sock.ws.receive(timeout=10)
    assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)
    assert sock.ws.close_code == 1013
    again = await Socket.connect(client)
    assert (await again.hello(m["match_id"], ada["token"]))["type"] == "state"


async def test_a_client_that_stops_reading_is_closed_1011_instead_of_buffered_without_bound():
    from types import SimpleNamespace

    from server.config import Settings
    from server.service import Metrics
    from server.transport import ws as ws_module
    from server.transport import ws_out
    from server.transport.keys import METRICS, SETTINGS

    class StuckSocket:
        closed = False
        close_code = None

        async def send_str(self, text):
            await asyncio.Event().wait()  # the client never reads: the send never completes

        async def close(self, code, message=b""):
            self.close_code = code
            self.closed = True

    sock = StuckSocket()
    metrics = Metrics()
    request = SimpleNamespace(app={SETTINGS: Settings(), METRICS: metrics})
    conn = ws_module.Connection(sock, service=None, request=request)
    for i in range(ws_out.OUTBOX_LIMIT + 2):
        conn._queue(f'{{"type": "pong", "n": {i}}}')
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert conn.closing and sock.close_code == ws_module.CLOSE_SLOW_CONSUMER == 1011
    assert len(conn.outbox) <= ws_out.OUTBOX_LIMIT
    # Counted once, by its reason, for the operator's /metrics.
    assert b'ginrummy_ws_dropped_total{reason="slow_consumer"} 1.0' in metrics.render()
    conn.stop_writing()
