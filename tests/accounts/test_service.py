"""The accounts service on the in-memory store with a fake clock: a username and password added
to an anonymous player (history kept), signing in on a second device, one error for a wrong
name or password, sessions listed and revoked (here and heard from another process), and
passkeys with challenges that expire and are used once, removed by their owner only."""

from __future__ import annotations

import json

import pytest
from argon2 import PasswordHasher

from server.service import FakeClock, InProcessBroadcaster, MatchService, accounts
from server.service.account_ports import session_id_of
from server.service.errors import BadRequest, Conflict, NotFound, Unauthorized, UsernameTaken
from server.storage import MemoryStore

from .authenticator import SoftAuthenticator

ORIGIN = "http://localhost:8080"
RP_ID = "localhost"


class CountingHasher(PasswordHasher):
    """Cheap parameters (tests), and counts the verifications."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)
        self.verified = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verified += 1
        return super().verify(hash, password)


class RevocationBus(InProcessBroadcaster):
    """Carries revocations between services in one test, as the Postgres broadcaster does
    between processes (never back to the sender)."""

    def __init__(self, peers: list[RevocationBus]) -> None:
        super().__init__()
        self.peers = peers
        peers.append(self)
        self.revoked_listeners: list = []

    async def publish_revoked(self, session_ids: list[str]) -> None:
        for peer in self.peers:
            if peer is not self:
                for listener in peer.revoked_listeners:
                    await listener(session_ids)

    def listen_revoked(self, listener) -> None:
        self.revoked_listeners.append(listener)


def make_service(store: MemoryStore | None = None, broadcaster=None) -> MatchService:
    service = MatchService(store or MemoryStore(), bot_delay=0, clock=FakeClock(), broadcaster=broadcaster)
    service.accounts.hasher = CountingHasher()
    return service


@pytest.fixture
def service() -> MatchService:
    return make_service()


async def test_adding_a_password_keeps_the_players_history_and_signs_in_on_another_device(service):
    ada, _token = await service.create_player("Ada")
    match = await service.create_match(ada)
    await service.accounts.add_password(ada, "ada", "correct horse")
    await service.clock.advance(1)  # type: ignore[attr-defined]
    again, token = await service.accounts.sign_in("ADA", "correct horse", "Firefox on Linux")
    assert again.player_id == ada.player_id and token and again.token_hash != ada.token_hash
    assert (await service.authenticate(token)).player_id == ada.player_id
    metas, total = await service.list_matches(again)
    assert total == 1 and metas[0].match_id == match.meta.match_id
    devices = [s.device for s in await service.accounts.sessions(again)]
    assert devices == ["unknown device", "Firefox on Linux"]


async def test_a_wrong_password_and_an_unknown_name_get_one_error_after_the_same_work(service):
    ada, _ = await service.create_player("Ada")
    await service.accounts.add_password(ada, "ada", "correct horse")
    hasher = service.accounts.hasher
    assert isinstance(hasher, CountingHasher)
    errors = []
    for username, password in [("ada", "wrong horse!"), ("nobody", "correct horse")]:
        before = hasher.verified
        with pytest.raises(Unauthorized) as e:
            await service.accounts.sign_in(username, password, "x")
        assert hasher.verified == before + 1  # a password was checked either way
        errors.append((e.value.code, e.value.message))
    assert errors[0] == errors[1] == ("unauthorized", "wrong username or password")


async def test_usernames_are_unique_ignoring_case_and_follow_the_display_name_rules(service):
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    await service.accounts.add_password(ada, "Ada", "correct horse")
    with pytest.raises(UsernameTaken):
        await service.accounts.add_password(bob, "aDA", "another horse")
    with pytest.raises(BadRequest, match="computer"):
        await service.accounts.add_password(bob, "Computer (Hard)", "another horse")
    with pytest.raises(BadRequest, match="password"):
        await service.accounts.add_password(bob, "bob", "short")
    with pytest.raises(Conflict):
        await service.accounts.add_password(ada, "ada2", "correct horse")
    assert (await service.accounts.account(bob)) is None  # nothing was written for bob


async def test_a_revoked_session_stops_at_once_and_sign_out_everywhere_keeps_only_this_one(service):
    ada, first = await service.create_player("Ada")
    await service.accounts.add_password(ada, "ada", "correct horse")
    _, second = await service.accounts.sign_in("ada", "correct horse", "phone")
    _, third = await service.accounts.sign_in("ada", "correct horse", "tablet")
    seen = []
    service.accounts.on_revoked(seen.append)
    current = await service.authenticate(second)  # remembered now
    await service.accounts.revoke(current, session_id_of(current.token_hash))  # signing out
    with pytest.raises(Unauthorized):
        await service.authenticate(second)
    me = await service.authenticate(third)
    assert await service.accounts.revoke_others(me) == 1
    with pytest.raises(Unauthorized):
        await service.authenticate(first)
    assert [s.device for s in await service.accounts.sessions(me)] == ["tablet"]
    assert len(seen) == 2 and all(len(ids) == 1 for ids in seen)


async def test_only_ones_own_sessions_can_be_revoked(service):
    ada, _ = await service.create_player("Ada")
    bob, bob_token = await service.create_player("Bob")
    with pytest.raises(NotFound):
        await service.accounts.revoke(ada, session_id_of(bob.token_hash))
    with pytest.raises(NotFound):
        await service.accounts.revoke(ada, "s_nothing")
    assert (await service.authenticate(bob_token)).player_id == bob.player_id


async def test_a_revocation_heard_from_another_process_forgets_the_remembered_token():
    store, peers = MemoryStore(), []
    one, two = make_service(store, RevocationBus(peers)), make_service(store, RevocationBus(peers))
    ada, token = await one.create_player("Ada")
    assert (await two.authenticate(token)).player_id == ada.player_id  # two remembers it
    heard = []
    two.accounts.on_revoked(heard.append)
    _, other = await one.players.create("Ada's other")
    me = await one.authenticate(other)
    await one.accounts.revoke(ada, session_id_of(ada.token_hash))
    assert heard == [[session_id_of(ada.token_hash)]]
    with pytest.raises(Unauthorized):
        await two.authenticate(token)
    assert (await two.authenticate(other)).player_id == me.player_id


# --- passkeys -------------------------------------------------------------------------------------


async def register(service: MatchService, player, key: SoftAuthenticator) -> None:
    challenge_id, options = await service.passkeys.registration_options(player, RP_ID)
    await service.passkeys.register(
        player, challenge_id, key.register(json.loads(options), ORIGIN), RP_ID, ORIGIN
    )


async def test_a_passkey_registered_while_signed_in_signs_in_on_another_device(service):
    ada, _ = await service.create_player("Ada")
    key = SoftAuthenticator()
    await register(service, ada, key)
    challenge_id, options = await service.passkeys.authentication_options(RP_ID)
    player, token = await service.passkeys.sign_in(
        challenge_id, key.sign_in(json.loads(options), ORIGIN), RP_ID, ORIGIN, "phone"
    )
    assert player.player_id == ada.player_id
    assert (await service.authenticate(token)).player_id == ada.player_id


async def test_a_passkey_challenge_expires_and_is_used_once(service):
    ada, _ = await service.create_player("Ada")
    key = SoftAuthenticator()
    await register(service, ada, key)
    challenge_id, options = await service.passkeys.authentication_options(RP_ID)
    answer = key.sign_in(json.loads(options), ORIGIN)
    clock = service.clock
    assert isinstance(clock, FakeClock)
    await clock.advance(301)
    with pytest.raises(BadRequest, match="expired"):
        await service.passkeys.sign_in(challenge_id, answer, RP_ID, ORIGIN, "phone")
    challenge_id, options = await service.passkeys.authentication_options(RP_ID)
    answer = key.sign_in(json.loads(options), ORIGIN)
    await clock.advance(299)
    await service.passkeys.sign_in(challenge_id, answer, RP_ID, ORIGIN, "phone")
    with pytest.raises(BadRequest, match="expired"):  # the same answer again
        await service.passkeys.sign_in(challenge_id, answer, RP_ID, ORIGIN, "phone")


async def test_a_passkey_for_another_origin_or_an_unknown_one_does_not_sign_in(service):
    ada, _ = await service.create_player("Ada")
    key = SoftAuthenticator()
    await register(service, ada, key)
    challenge_id, options = await service.passkeys.authentication_options(RP_ID)
    with pytest.raises(Unauthorized):
        await service.passkeys.sign_in(
            challenge_id, key.sign_in(json.loads(options), "http://evil.example"), RP_ID, ORIGIN, "x"
        )
    challenge_id, options = await service.passkeys.authentication_options(RP_ID)
    with pytest.raises(Unauthorized, match="unknown passkey"):
        await service.passkeys.sign_in(
            challenge_id, SoftAuthenticator().sign_in(json.loads(options), ORIGIN), RP_ID, ORIGIN, "x"
        )
    with pytest.raises(BadRequest):
        await service.passkeys.sign_in("nope", {"id": "x"}, RP_ID, ORIGIN, "x")


async def test_a_passkey_that_only_shows_presence_neither_registers_nor_signs_in(service):
    """User verification is required: a key anyone could touch is not a sign-in on its own."""
    ada, _ = await service.create_player("Ada")
    touch_only = SoftAuthenticator(verifies=False)
    challenge_id, options = await service.passkeys.registration_options(ada, RP_ID)
    assert json.loads(options)["authenticatorSelection"]["userVerification"] == "required"
    with pytest.raises(BadRequest, match="could not be verified"):
        await service.passkeys.register(
            ada, challenge_id, touch_only.register(json.loads(options), ORIGIN), RP_ID, ORIGIN
        )
    assert await service.passkeys.of(ada) == []
    key = SoftAuthenticator()
    await register(service, ada, key)
    key.flags = 0x01  # the same credential, asserting presence alone
    challenge_id, options = await service.passkeys.authentication_options(RP_ID)
    assert json.loads(options)["userVerification"] == "required"
    with pytest.raises(Unauthorized, match="could not be verified"):
        await service.passkeys.sign_in(
            challenge_id, key.sign_in(json.loads(options), ORIGIN), RP_ID, ORIGIN, "x"
        )


async def test_a_player_removes_its_own_passkey_only_and_it_signs_in_no_more(service):
    ada, _ = await service.create_player("Ada")
    bob, _ = await service.create_player("Bob")
    key, bobs_key = SoftAuthenticator(), SoftAuthenticator()
    await register(service, ada, key)
    await register(service, bob, bobs_key)
    (mine,) = await service.passkeys.of(ada)
    (bobs,) = await service.passkeys.of(bob)
    for player, credential_id in [(ada, bobs.credential_id), (ada, "unknown"), (ada, ""), (ada, "x" * 701)]:
        with pytest.raises(NotFound, match="no such passkey"):
            await service.passkeys.remove(player, credential_id)
    await service.passkeys.remove(ada, mine.credential_id)
    assert await service.passkeys.of(ada) == []
    assert await service.passkeys.of(bob) == [bobs]
    challenge_id, options = await service.passkeys.authentication_options(RP_ID)
    with pytest.raises(Unauthorized, match="unknown passkey"):
        await service.passkeys.sign_in(
            challenge_id, key.sign_in(json.loads(options), ORIGIN), RP_ID, ORIGIN, "x"
        )


async def test_last_seen_is_written_at_most_every_five_minutes(service):
    ada, token = await service.create_player("Ada")
    clock = service.clock
    assert isinstance(clock, FakeClock)

    async def last_seen():
        (session,) = await service.accounts.sessions(ada)
        return session.last_seen_at

    created = await last_seen()
    await clock.advance(60)
    await service.authenticate(token)
    first = await last_seen()
    assert first > created
    await clock.advance(120)
    await service.authenticate(token)
    assert await last_seen() == first  # not written again within 5 minutes
    await clock.advance(200)
    await service.authenticate(token)
    assert await last_seen() > first


async def test_past_the_cap_the_session_written_longest_ago_is_written_again_not_every_one(
    service, monkeypatch
):
    monkeypatch.setattr(accounts, "TOUCHED_MAX", 2)
    clock = service.clock
    players = [await service.create_player(name) for name in ("Ada", "Bob", "Cy")]

    async def last_seen(player):
        (session,) = await service.accounts.sessions(player)
        return session.last_seen_at

    for _, token in players:  # written in turn: Ada's is forgotten once Cy's is
        await service.authenticate(token)
    before = [await last_seen(p) for p, _ in players]
    await clock.advance(1)
    for _, token in reversed(players):
        await service.authenticate(token)
    after = [await last_seen(p) for p, _ in players]
    assert after[0] > before[0]  # Ada's, forgotten past the cap: written again
    assert after[1:] == before[1:]  # Bob's and Cy's, remembered within five minutes: not
