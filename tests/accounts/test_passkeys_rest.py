"""Passkeys over REST, as the security audit found them: a passkey added by a stolen session
outlived "sign out everywhere" and could be neither listed nor removed (GET and DELETE
``/api/passkeys`` answered 405). Now the owner lists them (oldest first, with the device that
registered each, never a key) and removes one, which then signs in no more; another player's or
an unknown one is the same 404."""

from __future__ import annotations

from tests.transport.helpers import auth, new_player

from .authenticator import SoftAuthenticator
from .test_rest import PHONE, sign_in, sign_up

LAPTOP = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def _origin(client) -> str:
    return str(client.make_url("")).rstrip("/")


async def register(client, player, key: SoftAuthenticator, user_agent: str = PHONE) -> dict:
    headers = {**auth(player), "User-Agent": user_agent}
    r = await client.post("/api/passkeys/register/options", headers=headers)
    assert r.status == 200, await r.text()
    begun = await r.json()
    answer = key.register(begun["options"], _origin(client))
    r = await client.post(
        "/api/passkeys", json={"challenge_id": begun["challenge_id"], "credential": answer}, headers=headers
    )
    assert r.status == 201, await r.text()
    return await r.json()


async def passkey_sign_in(client, key: SoftAuthenticator):
    begun = await (await client.post("/api/passkeys/login/options")).json()
    answer = key.sign_in(begun["options"], _origin(client))
    return await client.post(
        "/api/passkeys/login", json={"challenge_id": begun["challenge_id"], "credential": answer}
    )


async def passkeys(client, player) -> list[dict]:
    r = await client.get("/api/passkeys", headers=auth(player))
    assert r.status == 200, await r.text()
    return (await r.json())["passkeys"]


async def test_a_passkey_a_thief_added_is_listed_and_removed_and_signs_in_no_more(make_client):
    client = await make_client()
    ada = await new_player(client)
    await sign_up(client, ada)
    mine = SoftAuthenticator()
    own = await register(client, ada, mine)
    assert own["device"] == "Chrome on Android"

    # A stolen session adds its own passkey; signing out everywhere else does not remove it.
    thief = await (await sign_in(client, user_agent=LAPTOP)).json()
    theirs = SoftAuthenticator()
    planted = await register(client, thief, theirs, user_agent=LAPTOP)
    r = await client.post("/api/sessions/revoke-others", headers=auth(ada))
    assert await r.json() == {"revoked": 1}
    assert (await passkey_sign_in(client, theirs)).status == 201

    listed = await passkeys(client, ada)
    assert listed == [own, planted]  # oldest first, as registering answered
    assert [(p["device"], set(p)) for p in listed] == [
        ("Chrome on Android", {"credential_id", "created_at", "device"}),
        ("Firefox on Linux", {"credential_id", "created_at", "device"}),
    ]
    r = await client.delete(f"/api/passkeys/{planted['credential_id']}", headers=auth(ada))
    assert r.status == 204
    assert await passkeys(client, ada) == [own]
    assert (await (await client.get("/api/account", headers=auth(ada))).json())["passkeys"] == 1
    r = await passkey_sign_in(client, theirs)
    assert r.status == 401 and (await r.json())["error"]["code"] == "unauthorized"
    assert (await passkey_sign_in(client, mine)).status == 201  # the owner's own still works
    r = await client.delete(f"/api/passkeys/{planted['credential_id']}", headers=auth(ada))
    assert r.status == 404  # once


async def test_another_players_passkey_and_an_unknown_one_are_the_same_404(make_client):
    client = await make_client()
    ada, bob = await new_player(client, "Ada"), await new_player(client, "Bob")
    key = SoftAuthenticator()
    adas = await register(client, ada, key)
    assert await passkeys(client, bob) == []
    answers = []
    for credential_id in (adas["credential_id"], "bm8tc3VjaC1rZXk", "x" * 701):
        r = await client.delete(f"/api/passkeys/{credential_id}", headers=auth(bob))
        assert r.status == 404
        answers.append((await r.json())["error"])
    assert answers[0] == answers[1] == answers[2] and answers[0]["code"] == "not_found"
    assert await passkeys(client, ada) == [adas]
    assert (await passkey_sign_in(client, key)).status == 201
    for method in ("GET", "DELETE"):
        path = "/api/passkeys" if method == "GET" else f"/api/passkeys/{adas['credential_id']}"
        assert (await client.request(method, path)).status == 401  # the player's token is needed
