"""Accounts over REST: sign up (a username and password on the anonymous player one is), sign in
on a second device (history and the match in progress there), one error for a wrong name or
password, the login rate limits, sessions listed and revoked (the token stops at once, its
socket is closed), and no password or token in any log line."""

from __future__ import annotations

import logging

from server.config import Limits
from server.service import InProcessBroadcaster
from tests.transport.helpers import Socket, auth, new_match, new_player

PASSWORD = "correct horse battery"
PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"


async def sign_up(client, player, username="ada", password=PASSWORD):
    r = await client.post(
        "/api/account/password", json={"username": username, "password": password}, headers=auth(player)
    )
    assert r.status == 200, await r.text()
    return await r.json()


async def sign_in(client, username="ada", password=PASSWORD, user_agent=PHONE, device_key=None):
    body = {"username": username, "password": password}
    if device_key is not None:
        body["device_key"] = device_key
    return await client.post("/api/sessions", json=body, headers={"User-Agent": user_agent})


async def test_signing_in_on_a_second_device_shows_the_history_and_the_match_in_progress(make_client):
    client = await make_client()
    ada = await new_player(client)
    match = await new_match(client, ada, difficulty="easy")
    account = await sign_up(client, ada, username="Ada")
    assert account["username"] == "Ada" and account["player_id"] == ada["player_id"]
    r = await sign_in(client, username="ADA")
    assert r.status == 201, await r.text()
    phone = await r.json()
    assert phone["player_id"] == ada["player_id"] and phone["token"] != ada["token"]
    assert phone["username"] == "Ada" and phone["session_id"].startswith("s_")
    listed = await (await client.get("/api/matches", headers=auth(phone))).json()
    assert [m["match_id"] for m in listed["matches"]] == [match["match_id"]]
    assert listed["matches"][0]["status"] == "active"
    sock = await Socket.connect(client)
    state = await sock.hello(match["match_id"], phone["token"])
    assert state["type"] == "state" and state["view"]["seat"] == 0
    await sock.ws.close()


async def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(make_client):
    client = await make_client()
    ada = await new_player(client)
    await sign_up(client, ada)
    wrong = await sign_in(client, password="not the password")
    unknown = await sign_in(client, username="nobody-at-all")
    assert wrong.status == unknown.status == 401
    assert (
        await wrong.json()
        == await unknown.json()
        == {"error": {"code": "unauthorized", "message": "wrong username or password"}}
    )


async def test_a_password_easy_to_guess_is_refused_saying_why_and_changes_nothing(make_client):
    client = await make_client()
    bob = await new_player(client, "Bob")
    for weak in ("password1", "bob12345", "qwertyuiop", "bobbybobby", "ginrummy1"):
        r = await client.post(
            "/api/account/password", json={"username": "bob", "password": weak}, headers=auth(bob)
        )
        assert r.status == 400, weak
        message = (await r.json())["error"]["message"]
        assert message.startswith("that password is too easy to guess. ") and len(message) > 40, message
    account = await (await client.get("/api/account", headers=auth(bob))).json()
    assert account["username"] is None
    r = await client.post(
        "/api/account/password", json={"username": "bob", "password": "plum tart in june"}, headers=auth(bob)
    )
    assert r.status == 200, await r.text()


async def test_usernames_tried_from_one_address_are_rate_limited(make_client):
    client = await make_client(limits=Limits(signup_rate="3/minute"))
    ada = await new_player(client, "Ada")
    await sign_up(client, ada, username="ada")
    bob = await new_player(client, "Bob")
    for name in ("ada", "adA"):  # each taken: each answer tells it
        assert (
            await client.post(
                "/api/account/password", json={"username": name, "password": PASSWORD}, headers=auth(bob)
            )
        ).status == 409
    r = await client.post(
        "/api/account/password", json={"username": "bob", "password": PASSWORD}, headers=auth(bob)
    )
    assert r.status == 429 and (await r.json())["error"]["limit"] == "signup"
    account = await (await client.get("/api/account", headers=auth(bob))).json()
    assert account["username"] is None


async def test_a_taken_username_a_computer_name_and_a_short_password_change_nothing(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    await sign_up(client, ada, username="Ada")
    for body, status, code in [
        ({"username": "aDA", "password": PASSWORD}, 409, "username_taken"),
        ({"username": "Computer (Hard)", "password": PASSWORD}, 400, "bad_request"),
        ({"username": "bob", "password": "short"}, 400, "bad_request"),
        ({"username": "bob"}, 400, "bad_request"),
    ]:
        r = await client.post("/api/account/password", json=body, headers=auth(bob))
        assert r.status == status, await r.text()
        assert (await r.json())["error"]["code"] == code
    account = await (await client.get("/api/account", headers=auth(bob))).json()
    assert account["username"] is None and account["passkeys"] == 0


async def test_login_is_rate_limited_per_account_and_per_address(make_client):
    client = await make_client(limits=Limits(login_account_rate="3/minute", login_address_rate="6/minute"))
    ada = await new_player(client)
    await sign_up(client, ada)
    for _ in range(3):
        assert (await sign_in(client, password="wrong password")).status == 401
    r = await sign_in(client)  # even the right password, once the account's limit is hit
    assert r.status == 429 and int(r.headers["Retry-After"]) >= 1
    error = (await r.json())["error"]
    assert error["code"] == "rate_limited" and error["limit"] == "login_account" and error["reset_in"] > 0
    for name in ("bob", "cy"):  # other names, same address
        assert (await sign_in(client, username=name)).status == 401
    r = await sign_in(client, username="dee")
    assert r.status == 429 and (await r.json())["error"]["limit"] == "login_address"


async def test_wrong_passwords_tried_for_a_username_do_not_keep_out_a_device_that_signed_in_before(
    make_client,
):
    limits = Limits(
        login_account_rate="4/minute", login_device_rate="2/minute", login_address_rate="100/minute"
    )
    client = await make_client(limits=limits)
    ada = await new_player(client)
    laptop_key = (await sign_up(client, ada))["device_key"]
    r = await sign_in(client)
    assert r.status == 201
    phone_key = (await r.json())["device_key"]
    assert laptop_key and phone_key and phone_key != laptop_key
    bob = await new_player(client)
    bob_key = (await sign_up(client, bob, username="bob"))["device_key"]
    # Someone else tries passwords for "ada" until the username's limit is used up.
    for _ in range(3):
        assert (await sign_in(client, password="guess number one")).status == 401
        wrong_keys = (
            None,
            bob_key,
            "not-a-key",
            "abc.d\u00e9f",
            laptop_key + "x",
            "." + laptop_key.split(".")[1],
        )
    for key in wrong_keys:
        r = await sign_in(client, device_key=key)
        assert r.status == 429, (key, r.status)
        assert (await r.json())["error"]["limit"] == "login_account"
    # Ada's devices still get in: each is held to a limit of its own.
    r = await sign_in(client, device_key=phone_key)
    assert r.status == 201, await r.text()
    assert (await r.json())["player_id"] == ada["player_id"]
    assert (await sign_in(client, password="a wrong one", device_key=phone_key)).status == 401
    r = await sign_in(client, device_key=phone_key)
    assert r.status == 429 and (await r.json())["error"]["limit"] == "login_device"
    assert (await sign_in(client, device_key=laptop_key)).status == 201
    # A key says nothing on its own: with a wrong password it is the same 401 as without.
    assert (await sign_in(client, username="bob", password="a wrong one", device_key=bob_key)).status == 401
    r = await sign_in(client, device_key="k" * 129)
    assert r.status == 400 and (await r.json())["error"]["code"] == "bad_request"


async def test_the_account_gives_a_device_key_once_it_has_a_username(make_client):
    client = await make_client()
    ada = await new_player(client)
    assert (await (await client.get("/api/account", headers=auth(ada))).json())["device_key"] is None
    await sign_up(client, ada)
    account = await (await client.get("/api/account", headers=auth(ada))).json()
    r = await sign_in(client, device_key=account["device_key"])
    assert r.status == 201


async def test_sessions_are_listed_and_a_revoked_token_stops_at_once_and_its_socket_closes(make_client):
    client = await make_client()
    ada = await new_player(client)
    match = await new_match(client, ada, difficulty="easy")
    await sign_up(client, ada)
    phone = await (await sign_in(client)).json()
    sessions = (await (await client.get("/api/sessions", headers=auth(ada))).json())["sessions"]
    assert [s["current"] for s in sessions] == [True, False]
    assert sessions[1]["device"] == "Chrome on Android" and sessions[1]["session_id"] == phone["session_id"]
    sock, mine = await Socket.connect(client), await Socket.connect(client)
    await sock.hello(match["match_id"], phone["token"])
    await mine.hello(match["match_id"], ada["token"])
    r = await client.delete(f"/api/sessions/{phone['session_id']}", headers=auth(ada))
    assert r.status == 204
    assert await sock.closed() == 4001
    await mine.send({"type": "ping"})
    assert (await mine.recv_until("pong"))["type"] == "pong"  # the player's other session stays
    r = await client.get("/api/account", headers=auth(phone))
    assert r.status == 401
    r = await client.delete(f"/api/sessions/{phone['session_id']}", headers=auth(ada))
    assert r.status == 404


async def test_sign_out_everywhere_keeps_only_the_current_session(make_client):
    client = await make_client()
    ada = await new_player(client)
    await sign_up(client, ada)
    phone, tablet = await (await sign_in(client)).json(), await (await sign_in(client)).json()
    r = await client.post("/api/sessions/revoke-others", headers=auth(tablet))
    assert r.status == 200 and await r.json() == {"revoked": 2}
    for gone in (ada, phone):
        assert (await client.get("/api/account", headers=auth(gone))).status == 401
    sessions = (await (await client.get("/api/sessions", headers=auth(tablet))).json())["sessions"]
    assert [s["session_id"] for s in sessions] == [tablet["session_id"]]


async def test_no_log_line_holds_a_password_a_token_or_a_device_key(make_client, caplog):
    caplog.set_level(logging.DEBUG)
    client = await make_client(limits=Limits(login_device_rate="2/minute"))
    ada = await new_player(client)
    key = (await sign_up(client, ada))["device_key"]
    await sign_in(client, password="a wrong one!")
    phone = await (await sign_in(client, device_key=key)).json()
    await sign_in(client, password="a wrong one!", device_key=key)
    assert (await sign_in(client, device_key=key)).status == 429  # the device's own limit, logged
    await client.post("/api/sessions/revoke-others", headers=auth(phone))
    nonces = [k.split(".")[0] for k in (key, phone["device_key"])]
    secrets = [PASSWORD, "a wrong one!", ada["token"], phone["token"], key, phone["device_key"], *nonces]
    for record in caplog.records:
        text = record.getMessage() + " " + " ".join(f"{k}={v}" for k, v in vars(record).items())
        assert not any(s in text for s in secrets), record.getMessage()


class GapBroadcaster(InProcessBroadcaster):
    """One process's broadcaster whose notifications the test can declare lost."""

    def __init__(self) -> None:
        super().__init__()
        self.gap_listeners: list = []

    def on_gap(self, listener) -> None:
        self.gap_listeners.append(listener)

    async def gap(self) -> None:
        for listener in self.gap_listeners:
            result = listener()
            if result is not None:
                await result


async def test_after_lost_notifications_a_socket_whose_session_is_gone_is_closed(aiohttp_client, settings):
    from server.storage import SqlStore, create_engine
    from server.transport.app import create_app

    broadcaster = GapBroadcaster()
    client = await aiohttp_client(create_app(settings, broadcaster=broadcaster))
    ada = await new_player(client)
    match = await new_match(client, ada, difficulty="easy")
    await sign_up(client, ada)
    phone = await (await sign_in(client)).json()
    sock, mine = await Socket.connect(client), await Socket.connect(client)
    await sock.hello(match["match_id"], phone["token"])
    await mine.hello(match["match_id"], ada["token"])
    # Another process revoked the phone, and its notice was lost.
    engine = create_engine(settings.database_url)
    try:
        assert await SqlStore(engine).delete_sessions(ada["player_id"], [phone["session_id"]]) == [
            phone["session_id"]
        ]
    finally:
        await engine.dispose()
    await broadcaster.gap()
    assert await sock.closed() == 4001
    assert (await client.get("/api/account", headers=auth(phone))).status == 401
    await mine.send({"type": "ping"})
    assert (await mine.recv_until("pong"))["type"] == "pong"


async def test_a_revoked_sessions_lobby_seek_is_withdrawn_and_its_socket_closed(make_client):
    """Before, only sockets bound to a match were closed: a revoked device's lobby socket kept
    its seek, and its pairing started a match in the player's name."""
    import msgspec

    from server.wire import messages as w

    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    await sign_up(client, ada)
    phone = await (await sign_in(client)).json()
    seeking = await client.ws_connect("/ws/lobby")
    await seeking.send_json({"type": "seek", "token": phone["token"]})
    assert isinstance(
        msgspec.json.decode((await seeking.receive(timeout=5)).data, type=w.LobbyServerMessage), w.Seeking
    )
    assert (await (await client.get("/api/lobby")).json())["seeking"] == 1
    r = await client.delete(f"/api/sessions/{phone['session_id']}", headers=auth(ada))
    assert r.status == 204
    closing = await seeking.receive(timeout=5)
    assert (closing.data, closing.extra) == (4001, "session revoked")
    assert (await (await client.get("/api/lobby")).json())["seeking"] == 0
    # A seeker now waits alone: nobody is paired with the revoked device.
    other = await client.ws_connect("/ws/lobby")
    await other.send_json({"type": "seek", "token": bob["token"]})
    assert isinstance(
        msgspec.json.decode((await other.receive(timeout=5)).data, type=w.LobbyServerMessage), w.Seeking
    )
    await other.close()
