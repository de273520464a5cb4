"""REST handlers of accounts and sessions: adding a username and password to the anonymous
player one is, signing in (password or passkey) for a new session on this device, the
player's sessions (list, revoke one, revoke all others) and passkeys (register, list, remove:
revoking sessions leaves passkeys).

Signing in is rate limited per client address (``login_address``) and per username
(``login_account``) before any password is checked; a device that sends a valid device key of
the account (given with every answer that shows the account) is held to its own limit
(``login_device``) instead of the username's, which anyone can use up. The passkeys' relying
party is the host the client reached (``request.host``, as the proxy reports it), its origin
that host's scheme and host.

A revoked session's sockets are closed on every process (the service tells this module); after
the broadcaster may have missed notifications, each socket's session is checked again.
"""

from __future__ import annotations

import msgspec
from aiohttp import web

from server.service import PlayerRecord
from server.service.account_ports import PasskeyRecord, SessionRecord, session_id_of
from server.service.accounts import username_key
from server.wire import messages as w

from .app import json_response
from .devices import device_label
from .keys import LIMITER, SERVICE
from .present import iso
from .rest import _client_key, _player, _read_body
from .wire import decode_body
from .ws import close_session_sockets, session_sockets

routes = web.RouteTableDef()


def _device(request: web.Request) -> str:
    return device_label(request.headers.get("User-Agent"))


def _rp(request: web.Request) -> tuple[str, str]:
    """The passkeys' relying party id (the host name) and the expected origin."""
    host = request.host
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name.strip("[]"), f"{request.scheme}://{host}"


async def _signed_in(request: web.Request, player: PlayerRecord, token: str) -> web.Response:
    accounts = request.app[SERVICE].accounts
    record = await accounts.account(player)
    username, key = (None, None) if record is None else (record.username, accounts.device_key(record))
    signed_in = w.SignedIn(
        player.player_id, player.name, username, token, session_id_of(player.token_hash), key
    )
    return json_response(signed_in, status=201)


@routes.post("/api/account/password")
async def add_password(request: web.Request) -> web.Response:
    player = await _player(request)
    await request.app[LIMITER].hit("signup", _client_key(request))
    body: w.AddPassword = decode_body(await _read_body(request), w.AddPassword)
    await request.app[SERVICE].accounts.add_password(player, body.username, body.password)
    return await _account(request, player)


@routes.get("/api/account")
async def account(request: web.Request) -> web.Response:
    return await _account(request, await _player(request))


async def _account(request: web.Request, player: PlayerRecord) -> web.Response:
    service = request.app[SERVICE]
    record = await service.accounts.account(player)
    passkeys = await service.passkeys.of(player)
    return json_response(
        w.Account(
            player.player_id,
            player.name,
            None if record is None else record.username,
            len(passkeys),
            session_id_of(player.token_hash),
            None if record is None else service.accounts.device_key(record),
        )
    )


@routes.post("/api/sessions")
async def sign_in(request: web.Request) -> web.Response:
    body: w.SignIn = decode_body(await _read_body(request), w.SignIn)
    limiter = request.app[LIMITER]
    await limiter.hit("login_address", _client_key(request))
    accounts = request.app[SERVICE].accounts
    device = await accounts.known_device(body.username, body.device_key)
    if device is None:
        await limiter.hit("login_account", username_key(body.username.strip())[:256])
    else:
        await limiter.hit("login_device", device)
    player, token = await accounts.sign_in(body.username, body.password, _device(request))
    return await _signed_in(request, player, token)


def _session(s: SessionRecord, current: str) -> w.Session:
    return w.Session(s.session_id, s.device, iso(s.created_at), iso(s.last_seen_at), s.session_id == current)


@routes.get("/api/sessions")
async def sessions(request: web.Request) -> web.Response:
    player = await _player(request)
    current = session_id_of(player.token_hash)
    found = await request.app[SERVICE].accounts.sessions(player)
    return json_response(w.SessionList([_session(s, current) for s in found]))


@routes.post("/api/sessions/revoke-others")
async def revoke_others(request: web.Request) -> web.Response:
    player = await _player(request)
    count = await request.app[SERVICE].accounts.revoke_others(player)
    return json_response(w.RevokedSessions(count))


@routes.delete("/api/sessions/{session_id}")
async def revoke(request: web.Request) -> web.Response:
    player = await _player(request)
    await request.app[SERVICE].accounts.revoke(player, request.match_info["session_id"])
    return web.Response(status=204)


@routes.post("/api/passkeys/register/options")
async def passkey_registration_options(request: web.Request) -> web.Response:
    player = await _player(request)
    rp_id, _origin = _rp(request)
    challenge_id, options = await request.app[SERVICE].passkeys.registration_options(player, rp_id)
    return json_response(w.PasskeyOptions(challenge_id, msgspec.json.decode(options)))


@routes.post("/api/passkeys")
async def register_passkey(request: web.Request) -> web.Response:
    player = await _player(request)
    body: w.PasskeyAnswer = decode_body(await _read_body(request), w.PasskeyAnswer)
    rp_id, origin = _rp(request)
    passkey = await request.app[SERVICE].passkeys.register(
        player, body.challenge_id, body.credential, rp_id, origin, _device(request)
    )
    return json_response(_passkey(passkey), status=201)


def _passkey(p: PasskeyRecord) -> w.PasskeyInfo:
    return w.PasskeyInfo(p.credential_id, iso(p.created_at), p.device)


@routes.get("/api/passkeys")
async def passkeys(request: web.Request) -> web.Response:
    player = await _player(request)
    found = await request.app[SERVICE].passkeys.of(player)
    return json_response(w.PasskeyList([_passkey(p) for p in found]))


@routes.delete("/api/passkeys/{credential_id}")
async def remove_passkey(request: web.Request) -> web.Response:
    player = await _player(request)
    await request.app[SERVICE].passkeys.remove(player, request.match_info["credential_id"])
    return web.Response(status=204)


@routes.post("/api/passkeys/login/options")
async def passkey_login_options(request: web.Request) -> web.Response:
    await request.app[LIMITER].hit("login_address", _client_key(request))
    rp_id, _origin = _rp(request)
    challenge_id, options = await request.app[SERVICE].passkeys.authentication_options(rp_id)
    return json_response(w.PasskeyOptions(challenge_id, msgspec.json.decode(options)))


@routes.post("/api/passkeys/login")
async def passkey_sign_in(request: web.Request) -> web.Response:
    body: w.PasskeyAnswer = decode_body(await _read_body(request), w.PasskeyAnswer)
    await request.app[LIMITER].hit("login_address", _client_key(request))
    rp_id, origin = _rp(request)
    service = request.app[SERVICE]
    player, token = await service.passkeys.sign_in(
        body.challenge_id, body.credential, rp_id, origin, _device(request)
    )
    return await _signed_in(request, player, token)


async def _close_revoked_sockets(app: web.Application) -> None:
    service = app[SERVICE]

    async def close(session_ids: list[str]) -> None:
        await close_session_sockets(app, session_ids)

    async def recheck() -> None:
        # Revocations may have been missed: close the sockets whose session is gone.
        gone = []
        for conn in session_sockets(app):
            if conn.token_hash and await service.store.session_by_token_hash(conn.token_hash) is None:
                gone.append(session_id_of(conn.token_hash))
        if gone:
            await close_session_sockets(app, gone)

    service.accounts.on_revoked(close)
    service.broadcaster.on_gap(recheck)


def setup(app: web.Application) -> None:
    app.router.add_routes(routes)
    # (Runs after the cleanup contexts' startup: the service exists by then.)
    app.on_startup.append(_close_revoked_sockets)
