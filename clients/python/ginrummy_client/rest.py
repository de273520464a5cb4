"""The REST half of the protocol: identities, matches, invites, history and stats.

:class:`GinRummyClient` wraps every endpoint of docs/protocol.md ("REST") in an async method
that returns the typed models of :mod:`ginrummy_client.models` and raises the typed
:class:`~ginrummy_client.errors.ServerError` for an error answer. It uses only the standard
library (``urllib`` in a worker thread): one request at a time is all a game client needs.

It never reaches into the server's code: only HTTP to a base URL.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from .accounts import AccountsMixin
from .clocks import TimeControl
from .connection import MatchConnection
from .errors import RateLimited, ServerError, Unavailable, server_error
from .exports import ExportsMixin
from .ladder import LadderMixin
from .models import MatchSummary, MatchTicket, PlayerIdentity
from .ratings import LeaderboardEntry, Lobby, OpenChallenge, PlayerRating, RatingPoint
from .seeks import Seek, seek_message

__all__ = ["GinRummyClient", "parse_invite", "ws_url_for"]

USER_AGENT = "ginrummy-client/0.1 (python)"
ANALYSIS_TIMEOUT = 120.0
"""Seconds :meth:`GinRummyClient.analysis` waits at least: Hard works out every decision of the
match's finished hands, which on a busy server takes longer than an ordinary call's timeout."""


def ws_url_for(base_url: str, ws_url: str | None = None) -> str:
    """The absolute WebSocket URL: ``ws_url`` as the server gave it (absolute, or a path like
    ``/ws``), resolved against the REST base URL.

    >>> ws_url_for("http://127.0.0.1:8080", "/ws")
    'ws://127.0.0.1:8080/ws'
    >>> ws_url_for("https://gin.example/", None)
    'wss://gin.example/ws'
    >>> ws_url_for("http://a:1", "ws://b:2/ws")
    'ws://b:2/ws'
    """
    if ws_url and urllib.parse.urlsplit(ws_url).scheme in ("ws", "wss"):
        return ws_url
    joined = urllib.parse.urljoin(base_url.rstrip("/") + "/", ws_url or "/ws")
    parts = urllib.parse.urlsplit(joined)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    return urllib.parse.urlunsplit((scheme, *parts[1:]))


def parse_invite(text: str) -> tuple[str | None, str]:
    """``(match_id, code)`` from an invite as a person may paste it: the invite URL, or
    ``MATCH_ID:CODE``, or a bare code (then the match id is None and must be given apart).

    The URL may carry the match id and code as query parameters (``?match=…&invite=…``) or
    as path segments (``…/m_123/CODE`` or ``…/join/m_123?code=…``).

    >>> parse_invite("http://h/join/m_42?invite=XYZ")
    ('m_42', 'XYZ')
    >>> parse_invite("http://h/?match=m_42&code=XYZ")
    ('m_42', 'XYZ')
    >>> parse_invite("http://h/#/join/m_42/XYZ")
    ('m_42', 'XYZ')
    >>> parse_invite("m_42:XYZ")
    ('m_42', 'XYZ')
    >>> parse_invite("XYZ")
    (None, 'XYZ')
    """
    text = text.strip()
    if "://" not in text:
        if ":" in text:
            before, _, after = text.partition(":")
            return before or None, after
        return None, text
    parts = urllib.parse.urlsplit(text)
    # Single-page apps often put the route in the fragment: read it like a path and query.
    frag_path, _, frag_query = parts.fragment.partition("?")
    query = {**urllib.parse.parse_qs(parts.query), **urllib.parse.parse_qs(frag_query)}

    def q(*names: str) -> str | None:
        for n in names:
            if query.get(n):
                return query[n][0]
        return None

    # Route words are never the code: /matches/m_1/join/CODE names CODE.
    route = {"api", "matches", "match", "join", "invite", "invites", "play"}
    segments = [s for s in (parts.path + "/" + frag_path).split("/") if s and s not in route]
    match_id = q("match", "match_id", "m")
    code = q("invite", "code")
    if match_id is None:
        for i, seg in enumerate(segments):
            if seg.startswith("m_"):
                match_id = seg
                if code is None and i + 1 < len(segments):
                    code = segments[i + 1]
                break
    if code is None and segments:
        code = segments[-1]
    if not code or code == match_id:
        raise ValueError(f"no invite code in {text!r}")
    return match_id, code


class GinRummyClient(AccountsMixin, ExportsMixin, LadderMixin):
    """REST client for one server and (once known) one player's token.

    >>> client = GinRummyClient("http://127.0.0.1:8080")
    >>> client.base_url
    'http://127.0.0.1:8080'

    Typical use::

        client = GinRummyClient("http://127.0.0.1:8080")
        me = await client.create_player("Ada")          # keeps me.token for the next calls
        ticket = await client.create_match(difficulty="hard")
        async with client.connect(ticket) as conn:
            ...
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 15.0,
        rate_limit_retries: int = 3,
        max_retry_wait: float = 10.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        # A 429 says when the limit resets, and a busy server's 503 when to come back (it
        # changed nothing): waiting that long and trying again is what a polite program does,
        # up to a bound so that a long ban surfaces as RateLimited (or Unavailable).
        self.rate_limit_retries = rate_limit_retries
        self.max_retry_wait = max_retry_wait

    # --- plumbing ---------------------------------------------------------------------------

    def _request_sync(
        self, method: str, path: str, body: Any = None, timeout: float | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        req.add_header("User-Agent", USER_AGENT)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as resp:
                status, raw = resp.status, resp.read()
                headers = resp.headers
        except urllib.error.HTTPError as err:
            status, raw, headers = err.code, err.read(), err.headers
        text = raw.decode("utf-8", "replace")
        is_json = "json" in (headers.get("Content-Type") or "") or text[:1] in "{["
        try:
            payload = json.loads(text) if text and is_json else text
        except json.JSONDecodeError:
            payload = text
        if status >= 400:
            raise _error_from(status, payload, headers.get("Retry-After"))
        return status, payload

    async def request(self, method: str, path: str, body: Any = None, *, timeout: float | None = None) -> Any:
        """One call to the REST API; the decoded JSON answer, or a typed ServerError. ``timeout``:
        seconds to wait for the answer (default: the client's)."""
        attempt = 0
        while True:
            try:
                _, payload = await asyncio.to_thread(self._request_sync, method, path, body, timeout)
                return payload
            except RateLimited as err:
                wait = err.reset_in if err.reset_in is not None else 1.0
                if attempt >= self.rate_limit_retries or wait > self.max_retry_wait:
                    raise
                attempt += 1
                await asyncio.sleep(max(wait, 0.05))
            except Unavailable as err:
                # Only a refusal that says when to come back (a busy server's) is sure to have
                # changed nothing: a database failure's 503 may have landed, so it is raised.
                wait = err.retry_in
                if wait is None or attempt >= self.rate_limit_retries or wait > self.max_retry_wait:
                    raise
                attempt += 1
                await asyncio.sleep(max(wait, 0.05))

    def _auth(self) -> None:
        if not self.token:
            raise ValueError("no token: call create_player() first or pass token=")

    # --- identity ---------------------------------------------------------------------------

    async def create_player(self, name: str) -> PlayerIdentity:
        """A new anonymous identity; its token is kept on this client for the calls that follow."""
        player = PlayerIdentity.from_wire(await self.request("POST", "/api/players", {"name": name}))
        self.token = player.token
        return player

    async def me(self) -> dict[str, str]:
        """``{player_id, name}`` of this client's token (to check a stored token still works)."""
        self._auth()
        return dict(await self.request("GET", "/api/players/me"))

    async def stats(self) -> dict[str, int]:
        """``{matches, wins, losses, hands, hands_won, gins, undercuts, points}`` of this player."""
        self._auth()
        return dict(await self.request("GET", "/api/players/me/stats"))

    # --- matches ----------------------------------------------------------------------------

    async def create_match(
        self,
        *,
        opponent: str = "computer",
        difficulty: str = "normal",
        rules: str = "house",
        time_control: TimeControl | None = None,
        rated: bool = False,
        public: bool = False,
    ) -> MatchTicket:
        """A new match against the computer (``difficulty`` easy, normal, hard) or a human
        (the ticket then holds the ``invite`` to pass on); ``rules`` house or classic. Against
        a human: a ``time_control`` (e.g. ``TimeControl.preset("realtime 20+120")``), ``rated``
        (it counts for both ratings) and ``public`` (listed among the open challenges for anyone
        to accept)."""
        self._auth()
        body: dict[str, Any] = {"opponent": opponent, "rules": rules}
        if opponent == "computer":
            body["difficulty"] = difficulty
        if time_control is not None:
            body["time_control"] = time_control.to_wire()
        if rated:
            body["rated"] = True
        if public:
            body["public"] = True
        return MatchTicket.from_wire(await self.request("POST", "/api/matches", body))

    async def join_match(self, match_id: str, invite: str) -> MatchTicket:
        """Take the free seat of a match against a human, with its invite code."""
        self._auth()
        path = f"/api/matches/{urllib.parse.quote(match_id, safe='')}/join"
        return MatchTicket.from_wire(await self.request("POST", path, {"invite": invite}))

    async def join_invite(self, invite: str, match_id: str | None = None) -> MatchTicket:
        """Join through an invite as a person pastes it (URL, ``MATCH:CODE``, or a code plus
        ``match_id``); see :func:`parse_invite`."""
        found, code = parse_invite(invite)
        match_id = match_id or found
        if not match_id:
            raise ValueError("this invite names no match: pass match_id as well")
        return await self.join_match(match_id, code)

    async def list_matches(
        self,
        *,
        status: str | None = None,
        rules: str | None = None,
        opponent: str | None = None,
        limit: int = 20,
        offset: int = 0,
        result: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> tuple[list[MatchSummary], int]:
        """This player's matches, newest first, and how many there are in all; ``result``
        ``won``/``lost`` and ``since``/``until`` (days ``YYYY-MM-DD``, UTC, both included)
        filter them."""
        self._auth()
        query = {
            "status": status,
            "rules": rules,
            "opponent": opponent,
            "result": result,
            "since": since,
            "until": until,
            "limit": limit,
            "offset": offset,
        }
        qs = urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        page = await self.request("GET", f"/api/matches?{qs}")
        return [MatchSummary.from_wire(m) for m in page.get("matches", [])], int(page.get("total", 0))

    async def get_match(self, match_id: str) -> MatchSummary:
        """The summary with every finished hand's result (``summary.hands``)."""
        self._auth()
        return MatchSummary.from_wire(
            await self.request("GET", f"/api/matches/{urllib.parse.quote(match_id)}")
        )

    async def get_record(self, match_id: str) -> dict[str, Any]:
        """The complete replay of a finished match (Conflict ``match_not_over`` before)."""
        self._auth()
        return dict(await self.request("GET", f"/api/matches/{urllib.parse.quote(match_id)}/record"))

    async def analysis(self, match_id: str) -> dict[str, Any]:
        """Hard's analysis of your decisions in the match's finished hands (explained play):
        ``{summary, luck, lost, opponent_lost, points, hands: [{number, start_value, lost,
        opponent_lost, points, mistakes, decisions}]}``; print it with :func:`ginrummy_client.analysis.format_analysis`."""
        self._auth()
        path = f"/api/matches/{urllib.parse.quote(match_id)}/analysis"
        return dict(await self.request("GET", path, timeout=max(self.timeout, ANALYSIS_TIMEOUT)))

    async def hint(self, match_id: str) -> dict[str, Any]:
        """What Hard would play now, on your turn in an unrated match against the computer:
        ``{best, reason, explanation, choices}``."""
        self._auth()
        return dict(await self.request("GET", f"/api/matches/{urllib.parse.quote(match_id)}/hint"))

    async def resign(self, match_id: str) -> MatchSummary:
        self._auth()
        path = f"/api/matches/{urllib.parse.quote(match_id)}/resign"
        return MatchSummary.from_wire(await self.request("POST", path, {}))

    async def claim(self, match_id: str) -> MatchSummary:
        """Win a match whose human opponent has been gone past the grace period (the view's
        ``claim_at``); a ``Conflict`` before that or while the opponent is connected."""
        self._auth()
        path = f"/api/matches/{urllib.parse.quote(match_id)}/claim"
        return MatchSummary.from_wire(await self.request("POST", path, {}))

    async def offer_rematch(self, match_id: str) -> MatchSummary:
        """Offer a rematch of a finished match, or accept the one offered (against the computer
        it starts at once): ``summary.rematch.match_id`` names the new match once it has started."""
        self._auth()
        path = f"/api/matches/{urllib.parse.quote(match_id)}/rematch"
        return MatchSummary.from_wire(await self.request("POST", path, {}))

    async def decline_rematch(self, match_id: str) -> MatchSummary:
        self._auth()
        path = f"/api/matches/{urllib.parse.quote(match_id)}/rematch/decline"
        return MatchSummary.from_wire(await self.request("POST", path, {}))

    async def cancel(self, match_id: str) -> None:
        """Withdraw a match nobody has joined yet (only its creator may): the server deletes it
        and its invite stops working. Once someone joined, this is a ``Conflict``: resign instead."""
        self._auth()
        await self.request("POST", f"/api/matches/{urllib.parse.quote(match_id)}/cancel", {})

    # --- ratings and the lobby --------------------------------------------------------------

    async def rating(self, player_id: str | None = None) -> PlayerRating:
        """A player's Glicko-2 rating and deviation (``rating`` None before a first rated
        match); this client's own player when ``player_id`` is None."""
        player_id = player_id or (await self.me())["player_id"]
        path = f"/api/players/{urllib.parse.quote(player_id, safe='')}/rating"
        return PlayerRating.from_wire(await self.request("GET", path))

    async def rating_history(
        self, player_id: str, *, limit: int = 50, offset: int = 0
    ) -> tuple[list[RatingPoint], int]:
        """The rating after each rated match, newest first, and how many there are."""
        qs = urllib.parse.urlencode({"limit": limit, "offset": offset})
        path = f"/api/players/{urllib.parse.quote(player_id, safe='')}/rating/history?{qs}"
        page = await self.request("GET", path)
        return [RatingPoint.from_wire(p) for p in page.get("history", [])], int(page.get("total", 0))

    async def leaderboard(self, *, limit: int = 20, offset: int = 0) -> tuple[list[LeaderboardEntry], int]:
        """Rated players with enough rated matches, best first, and how many there are."""
        qs = urllib.parse.urlencode({"limit": limit, "offset": offset})
        page = await self.request("GET", f"/api/leaderboard?{qs}")
        return [LeaderboardEntry.from_wire(e) for e in page.get("players", [])], int(page.get("total", 0))

    async def challenges(self, *, limit: int = 20, offset: int = 0) -> tuple[list[OpenChallenge], int]:
        """Open challenges (public matches waiting for anyone), newest first, and how many."""
        qs = urllib.parse.urlencode({"limit": limit, "offset": offset})
        page = await self.request("GET", f"/api/challenges?{qs}")
        return [OpenChallenge.from_wire(c) for c in page.get("challenges", [])], int(page.get("total", 0))

    async def accept_challenge(self, match_id: str) -> MatchTicket:
        """Take the second seat of an open challenge (a ``Conflict`` with code
        ``challenge_taken`` if someone else accepted it first)."""
        self._auth()
        path = f"/api/challenges/{urllib.parse.quote(match_id, safe='')}/accept"
        return MatchTicket.from_wire(await self.request("POST", path, {}))

    async def lobby(self) -> Lobby:
        """How many open challenges wait and how many players are playing and seeking now."""
        return Lobby.from_wire(await self.request("GET", "/api/lobby"))

    def seek(
        self,
        *,
        rules: str = "house",
        time_control: TimeControl | None = None,
        rated: bool = False,
        computer_after: int | None = None,
        difficulty: str = "normal",
    ) -> Seek:
        """Seek a quick pairing on the lobby socket: ``async with client.seek(...) as s:`` then
        ``await s.paired()`` (see :mod:`.seeks`). Leaving the block before then withdraws it."""
        self._auth()
        assert self.token is not None
        message = seek_message(
            self.token,
            rules=rules,
            time_control=time_control,
            rated=rated,
            computer_after=computer_after,
            difficulty=difficulty,
        )
        return Seek(ws_url_for(self.base_url, "/ws/lobby"), message)

    async def rules(self) -> list[dict[str, Any]]:
        """The rule presets the server offers (each as in a view's ``rules``, plus ``guide``)."""
        return list((await self.request("GET", "/api/rules"))["rules"])

    async def difficulties(self) -> list[dict[str, Any]]:
        """The computer's difficulties the server offers, easiest first: ``{name, label,
        description, rating}`` each (``rating``: the level's published rating)."""
        return list((await self.request("GET", "/api/difficulties"))["difficulties"])

    async def health(self) -> Any:
        return await self.request("GET", "/healthz")

    # --- the socket -------------------------------------------------------------------------

    def connect(
        self,
        match: MatchTicket | str,
        *,
        token: str | None = None,
        ws_url: str | None = None,
        **options: Any,
    ) -> MatchConnection:
        """A :class:`MatchConnection` to a match (a ticket, or a match id to come back to).
        Use it as ``async with client.connect(ticket) as conn:``; ``token`` defaults to this
        client's (pass the ticket's ``watch_token`` to watch). ``options`` go to
        :class:`MatchConnection` (``reconnect``, ``ack_timeout``...)."""
        if isinstance(match, MatchTicket):
            match_id, given = match.match_id, match.ws_url
        else:
            match_id, given = match, None
        token = token or self.token
        if not token:
            raise ValueError("no token: call create_player() first or pass token=")
        return MatchConnection(ws_url_for(self.base_url, ws_url or given), match_id, token, **options)


def _error_from(status: int, payload: Any, retry_after: str | None) -> ServerError:
    err = payload.get("error") if isinstance(payload, Mapping) else None
    if isinstance(err, Mapping) and "code" in err:
        details = {k: v for k, v in err.items() if k not in ("code", "message")}
        if retry_after is not None and "reset_in" not in details:
            details["reset_in"] = retry_after
        return server_error(str(err["code"]), str(err.get("message", "")), status=status, details=details)
    # Not the protocol's error shape (a proxy's page, say): keep the status and the words.
    fallback = {
        400: "bad_request",
        401: "unauthorized",
        403: "forbidden",
        404: "not_found",
        409: "conflict",
        413: "too_large",
        429: "rate_limited",
    }
    code = fallback.get(status, "http_error")
    details = {"reset_in": retry_after} if retry_after is not None else {}
    return server_error(code, f"HTTP {status}: {str(payload)[:200]}", status=status, details=details)
