"""A revoked session stops on every replica: two servers on one PostgreSQL (skipped, saying so,
when it is unreachable). The revoking server forgets the token at once; the other hears of it
on the sessions channel, closes the token's socket (4001) and refuses the token over REST."""

from __future__ import annotations

import pytest

from tests.transport.helpers import Socket, auth, new_match, new_player
from tests.transport.test_postgres import postgres_url as postgres_url  # the fixture

from .test_rest import sign_in, sign_up

pytestmark = pytest.mark.postgres


async def test_a_session_revoked_on_one_replica_stops_on_the_other(make_client, postgres_url):
    one = await make_client(database_url=postgres_url, broadcast="postgres")
    two = await make_client(database_url=postgres_url, broadcast="postgres")
    ada = await new_player(one)
    match = await new_match(one, ada, difficulty="easy")
    await sign_up(one, ada)
    r = await sign_in(two)
    assert r.status == 201
    phone = await r.json()
    assert (await two.get("/api/account", headers=auth(phone))).status == 200  # two remembers it
    sock = await Socket.connect(two)
    await sock.hello(match["match_id"], phone["token"])
    r = await one.post("/api/sessions/revoke-others", headers=auth(ada))
    assert await r.json() == {"revoked": 1}
    assert await sock.closed(timeout=10) == 4001
    assert (await two.get("/api/account", headers=auth(phone))).status == 401
    assert (await one.get("/api/account", headers=auth(phone))).status == 401
    assert (await two.get("/api/account", headers=auth(ada))).status == 200
