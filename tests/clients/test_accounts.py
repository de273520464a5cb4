"""The Python client's accounts: a username and password added to its player, login from a
second client (a token of its own, the same player), sessions listed with the current one
marked, and revoked (sign out everywhere else, sign out)."""

from __future__ import annotations

import pytest
from ginrummy_client import GinRummyClient, Unauthorized


async def test_login_lists_and_revokes_sessions(base_url):
    laptop = GinRummyClient(base_url)
    ada = await laptop.create_player("Ada")
    account = await laptop.add_password("ada", "correct horse battery")
    assert account["username"] == "ada" and account["player_id"] == ada.player_id

    phone = GinRummyClient(base_url)
    with pytest.raises(Unauthorized):
        await phone.login("ada", "wrong horse battery")
    signed_in = await phone.login("ADA", "correct horse battery")
    assert signed_in.player_id == ada.player_id and phone.token == signed_in.token != laptop.token
    assert signed_in.token not in repr(signed_in) and signed_in.device_key not in repr(signed_in)
    # A device key from an earlier answer: the next login from this program sends it.
    again = await phone.login("ada", "correct horse battery", device_key=signed_in.device_key)
    assert again.player_id == ada.player_id and again.device_key and again.device_key != signed_in.device_key
    assert account["device_key"]

    sessions = await phone.sessions()
    assert [s.current for s in sessions] == [False, False, True]
    assert sessions[2].session_id == again.session_id and sessions[2].device == "ginrummy-client"

    assert await phone.revoke_other_sessions() == 2
    with pytest.raises(Unauthorized):
        await laptop.me()
    await phone.sign_out()
    assert phone.token is None
    again = GinRummyClient(base_url, token=again.token)
    with pytest.raises(Unauthorized):
        await again.me()
