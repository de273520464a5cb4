"""The WebSocket half of the protocol: one seat's (or a watcher's) live connection to a match.

:class:`MatchConnection` says ``hello``, receives every ``state`` (as :class:`MatchView`),
sends ``act`` messages with fresh client ids and the current version, and resolves each with
its ``ack`` or raises the server's ``error`` as a typed exception. When the socket drops it
reconnects with the last version it saw and sends again, under the SAME ids, the actions not
yet acknowledged: the server answers an id it has seen as before, so an action is applied once.

One background task owns the socket's receiving side; everything else talks to it through
futures and a queue. Reading states: iterate (``async for view in conn``), or ``await
conn.next_state()``, or ``await conn.turn()`` (the latest state in which this seat must act);
pick one style per connection, since all three consume the same queue.

It never imports the server: only the documented messages go over the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Self

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI, WebSocketException

from .errors import (
    FATAL_CLOSE_CODES,
    ConnectionLost,
    NotYourTurn,
    ProtocolError,
    RateLimited,
    ServerError,
    StaleVersion,
    server_error,
)
from .models import Action, MatchView

__all__ = ["MatchConnection", "Strategy"]

log = logging.getLogger("ginrummy_client")

Strategy = Callable[[MatchView], "Action | Mapping[str, Any] | Awaitable[Action | Mapping[str, Any]]"]
"""A bot's brain: the view of its seat when it must act -> one of ``view.legal_actions``."""


STABLE_AFTER = 5.0
"""Seconds a connection must have worked for its drop to count as a new outage."""


class _End:
    """Queue marker: no state will come any more."""


_END = _End()


@dataclass(slots=True)
class _Pending:
    message: str
    future: asyncio.Future[int]
    generation: int = -1
    """The connection it was last sent on; resent on any newer connection until acknowledged."""


_jitter = random.Random()
"""The reconnect pauses' own generator (never the global one a bot may seed)."""


class MatchConnection:
    """A live, self-healing connection to one match.

    ``reconnect_delays`` are the longest pauses before successive reconnect attempts (the last
    one repeats; each pause is drawn between half of it and all of it, so the many bots a
    server restart disconnects do not all come back in the same instant) and
    ``max_reconnect_attempts`` bounds them in a row; ``ack_timeout`` bounds how long
    :meth:`act` waits for its answer. ``on_status`` is called with ``"connected"``,
    ``"reconnecting"`` or ``"closed"`` (a terminal shows it; a bot may log it).
    """

    def __init__(
        self,
        ws_url: str,
        match_id: str,
        token: str,
        *,
        reconnect: bool = True,
        max_reconnect_attempts: int = 8,
        reconnect_delays: Sequence[float] = (0.05, 0.25, 0.5, 1.0, 2.0, 4.0),
        ack_timeout: float = 30.0,
        open_timeout: float = 10.0,
        on_status: Callable[[str], None] | None = None,
        id_prefix: str | None = None,
        rate_limit_retries: int = 20,
        max_retry_wait: float = 5.0,
    ) -> None:
        self.ws_url = ws_url
        self.match_id = match_id
        self._token = token
        self.reconnect = reconnect
        self.max_reconnect_attempts = max_reconnect_attempts
        self.reconnect_delays = tuple(reconnect_delays) or (1.0,)
        self.ack_timeout = ack_timeout
        self.open_timeout = open_timeout
        self.on_status = on_status
        self.rate_limit_retries = rate_limit_retries
        self.max_retry_wait = max_retry_wait
        # Ids must never repeat on a match for a seat (the server would answer the old action):
        # a random prefix per connection object keeps two runs of one program apart.
        self._id_prefix = id_prefix or secrets.token_hex(4)
        self._next_id = 0

        self.view: MatchView | None = None
        """The latest state received."""
        self.reconnects = 0
        """How many times the socket was brought back after a drop."""
        self.errors: deque[ServerError] = deque(maxlen=20)
        """Errors the server sent that answered no pending action (for logs and tests)."""

        self._ws: ClientConnection | None = None
        self._generation = 0
        self._pending: dict[str, _Pending] = {}
        self._pings: deque[asyncio.Future[None]] = deque()
        self._queue: asyncio.Queue[MatchView | _End] = asyncio.Queue()
        self._acked_version = -1
        self._task: asyncio.Task[None] | None = None
        self._first_state: asyncio.Future[MatchView] | None = None
        self._closing = False
        self._ended = False
        self._failure: BaseException | None = None
        self._early_error: ServerError | None = None
        self._last_status: str | None = None

    # --- lifecycle --------------------------------------------------------------------------

    async def open(self) -> MatchView:
        """Connect, say hello and return the first state."""
        if self._task is not None:
            raise RuntimeError("this connection is already open")
        loop = asyncio.get_running_loop()
        self._first_state = loop.create_future()
        self._task = asyncio.create_task(self._run(), name=f"ginrummy-ws-{self.match_id}")
        try:
            return await asyncio.wait_for(asyncio.shield(self._first_state), self.open_timeout * 3)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Close the socket; pending actions fail with ConnectionLost. Safe to call twice."""
        self._closing = True
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(TimeoutError, OSError, WebSocketException):
                await asyncio.wait_for(ws.close(), 5)
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._finish(ConnectionLost("the connection was closed by this client"))

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def abort(self) -> None:
        """Drop the socket abruptly, as a lost network would (no close frame). The connection
        then reconnects and resumes by itself: this exists to rehearse exactly that."""
        ws = self._ws
        if ws is not None:
            ws.transport.abort()

    @property
    def connected(self) -> bool:
        return self._ws is not None

    @property
    def queued_states(self) -> int:
        """States received and not yet read."""
        return self._queue.qsize()

    # --- receiving --------------------------------------------------------------------------

    async def next_state(self, timeout: float | None = None) -> MatchView:
        """The next state in order of arrival (waits for it). Raises the reason once the
        connection has ended for good (ConnectionLost, or the server's error)."""
        if self._ended and self._queue.empty():
            self._raise_end()
        item = await asyncio.wait_for(self._queue.get(), timeout)
        if isinstance(item, _End):
            self._raise_end()
        assert isinstance(item, MatchView)
        return item

    async def __aiter__(self) -> AsyncIterator[MatchView]:
        """Every state in order, ending after the one that shows the match over."""
        while True:
            view = await self.next_state()
            yield view
            if view.is_over:
                return

    async def turn(self, timeout: float | None = None) -> MatchView | None:
        """The latest state in which this seat must act, or None once the match is over.

        Skips states that are already outdated, and never returns a state older than this
        seat's last acknowledged action (so a bot cannot act twice on one state).
        """
        while True:
            while not self._queue.empty():
                self._queue.get_nowait()
            view = self.view
            if view is not None:
                if view.is_over:
                    return None
                if view.my_turn and view.version >= self._acked_version:
                    return view
            if self._ended:
                self._raise_end()
            await self.next_state(timeout)

    # --- sending ----------------------------------------------------------------------------

    def new_action_id(self) -> str:
        self._next_id += 1
        return f"{self._id_prefix}-{self._next_id}"

    async def act(
        self,
        action: Action | Mapping[str, Any],
        *,
        version: int | None = None,
        action_id: str | None = None,
        timeout: float | None = None,
    ) -> int:
        """Send an action and wait for its ``ack``; returns the match's new version.

        ``version`` defaults to the latest state's. Raises the server's refusal as a typed
        :class:`ServerError` (``IllegalAction``, ``StaleVersion``, ``NotYourTurn``...) and
        ConnectionLost if the socket cannot be brought back. A drop in between is handled: the
        action is sent again with the same id after reconnecting. ``rate_limited`` is handled
        too: the server's answer says when its limit resets, so the action waits that long and
        goes again (under a new id: a refused message changed nothing), up to
        ``rate_limit_retries`` times.
        """
        if self._ended:
            self._raise_end()
        wire = action.to_wire() if isinstance(action, Action) else dict(action)
        if version is None:
            if self.view is None:
                raise RuntimeError("no state received yet: open() the connection first")
            version = self.view.version
        attempt = 0
        while True:
            try:
                return await self._act_once(wire, version, action_id or self.new_action_id(), timeout)
            except RateLimited as err:
                wait = err.reset_in if err.reset_in is not None else 0.2
                if attempt >= self.rate_limit_retries or wait > self.max_retry_wait:
                    raise
                attempt += 1
                action_id = None
                await asyncio.sleep(wait + 0.01)

    async def _act_once(
        self, wire: dict[str, Any], version: int, action_id: str, timeout: float | None
    ) -> int:
        if action_id in self._pending:
            raise ValueError(f"action id {action_id!r} is already waiting for its answer")
        message = json.dumps({"type": "act", "id": action_id, "version": version, "action": wire})
        pending = _Pending(message, asyncio.get_running_loop().create_future())
        self._pending[action_id] = pending
        ws = self._ws
        if ws is not None:
            pending.generation = self._generation
            # On a dead socket the receiving task reconnects and sends it again.
            with contextlib.suppress(ConnectionClosed):
                await ws.send(message)
        try:
            return await asyncio.wait_for(asyncio.shield(pending.future), timeout or self.ack_timeout)
        finally:
            self._pending.pop(action_id, None)

    async def ping(self, timeout: float = 10.0) -> float:
        """Application-level ping; returns the round trip in seconds."""
        ws = self._ws
        if ws is None:
            raise ConnectionLost("not connected")
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pings.append(fut)
        start = time.perf_counter()
        await ws.send(json.dumps({"type": "ping"}))
        await asyncio.wait_for(fut, timeout)
        return time.perf_counter() - start

    async def play(self, strategy: Strategy) -> MatchView:
        """Play this seat to the end of the match with ``strategy``; returns the final state.

        A state that went stale while the strategy thought (the server moved on) is simply
        looked at again; any other refusal is raised.
        """
        while (view := await self.turn()) is not None:
            choice = strategy(view)
            if inspect.isawaitable(choice):
                choice = await choice
            try:
                await self.act(choice, version=view.version)
            except (StaleVersion, NotYourTurn):
                continue
        assert self.view is not None
        return self.view

    # --- the receiving task -----------------------------------------------------------------

    def _status(self, status: str) -> None:
        if status == self._last_status:
            return  # one "reconnecting" per outage, however many attempts it takes
        self._last_status = status
        if self.on_status is not None:
            try:
                self.on_status(status)
            except Exception:  # a display callback must not kill the connection
                log.exception("on_status callback failed")

    def _delay(self, attempt: int) -> float:
        longest = self.reconnect_delays[min(attempt, len(self.reconnect_delays)) - 1]
        return longest * (0.5 + 0.5 * _jitter.random())

    async def _run(self) -> None:
        attempt = 0  # failed attempts in a row
        failure: BaseException | None = None
        try:
            while not self._closing:
                try:
                    ws = await connect(self.ws_url, open_timeout=self.open_timeout, max_size=2**22)
                except InvalidURI as exc:
                    failure = ConnectionLost(f"bad WebSocket URL {self.ws_url!r}: {exc}")
                    break
                except InvalidStatus as exc:
                    status = exc.response.status_code
                    if status in (401, 403, 404):
                        failure = server_error(
                            {401: "unauthorized", 403: "forbidden", 404: "not_found"}[status],
                            f"the server refused the WebSocket handshake (HTTP {status})",
                            status=status,
                        )
                        break
                    exc_text = f"HTTP {status}"
                except (OSError, TimeoutError, WebSocketException) as exc:
                    exc_text = str(exc) or type(exc).__name__
                else:
                    opened = time.monotonic()
                    got_state = await self._serve(ws)
                    # A connection that worked for a while starts a fresh series of attempts;
                    # one the server keeps closing at once does not, so it cannot loop forever.
                    if got_state and time.monotonic() - opened >= STABLE_AFTER:
                        attempt = 0
                    if self._closing:
                        break
                    code = ws.close_code
                    if code in FATAL_CLOSE_CODES:
                        wire_code, words = FATAL_CLOSE_CODES[code]
                        early = self._early_error
                        failure = early or server_error(wire_code, f"{words} (close code {code})")
                        break
                    if code == 1000 and self.view is not None and self.view.is_over:
                        failure = ConnectionLost("the server closed the connection: the match is over")
                        break
                    exc_text = f"closed with code {code}" if code is not None else "connection lost"
                attempt += 1
                # Until a first state arrives, the address itself may be wrong: give up sooner.
                limit = (
                    self.max_reconnect_attempts
                    if self.view is not None
                    else min(2, self.max_reconnect_attempts)
                )
                if not self.reconnect or attempt > limit:
                    failure = ConnectionLost(f"cannot reach {self.ws_url} ({exc_text})")
                    break
                self._status("reconnecting")
                log.info("reconnecting to %s in %.2fs (%s)", self.ws_url, self._delay(attempt), exc_text)
                await asyncio.sleep(self._delay(attempt))
                self.reconnects += 1
        except ProtocolError as exc:
            failure = exc
        finally:
            self._ws = None
            self._finish(failure or ConnectionLost("the connection was closed by this client"))

    async def _serve(self, ws: ClientConnection) -> bool:
        """Say hello, resend what is unacknowledged, then read until the socket closes.
        Returns whether a state arrived (the connection was really working)."""
        self._generation += 1
        generation = self._generation
        got_state = False
        try:
            hello: dict[str, Any] = {"type": "hello", "match": self.match_id, "token": self._token}
            if self.view is not None:
                hello["version"] = self.view.version
            await ws.send(json.dumps(hello))
            # Everything sent before this connection goes again, same ids, in order. Loop until
            # nothing is left unsent, then publish the socket without yielding in between, so an
            # act() issued meanwhile is either resent here or sent by act() itself.
            while todo := [p for p in self._pending.values() if p.generation != generation]:
                for p in todo:
                    p.generation = generation
                    await ws.send(p.message)
            self._ws = ws
            self._status("connected")
            async for raw in ws:
                got_state |= self._handle(raw)
        except ConnectionClosed:
            pass
        except ProtocolError:
            ws.transport.abort()
            raise
        finally:
            self._ws = None
        return got_state

    def _handle(self, raw: str | bytes) -> bool:
        try:
            msg = json.loads(raw)
        except (ValueError, TypeError) as exc:
            raise ProtocolError(f"the server sent something that is not JSON: {raw!r:.200}") from exc
        if not isinstance(msg, dict):
            raise ProtocolError(f"the server sent a message that is not an object: {msg!r:.200}")
        kind = msg.get("type")
        if kind == "state":
            view = MatchView.from_wire(msg.get("view"), msg.get("version"))
            self.view = view
            self._queue.put_nowait(view)
            if self._first_state is not None and not self._first_state.done():
                self._first_state.set_result(view)
            return True
        if kind == "ack":
            pending = self._pending.get(str(msg.get("id")))
            version = int(msg.get("version", -1))
            self._acked_version = max(self._acked_version, version)
            if pending is not None and not pending.future.done():
                pending.future.set_result(version)
        elif kind == "error":
            action_id = msg.get("id")
            err = server_error(
                str(msg.get("code", "unknown")),
                str(msg.get("message", "")),
                details={k: v for k, v in msg.items() if k not in ("type", "id", "code", "message")},
                action_id=action_id,
            )
            pending = self._pending.get(str(action_id)) if action_id is not None else None
            if pending is not None and not pending.future.done():
                pending.future.set_exception(err)
            else:
                if self.view is None:
                    self._early_error = err  # the hello's refusal, before the close code
                log.warning("server error: %s", err)
                self.errors.append(err)
        elif kind == "pong":
            while self._pings:
                fut = self._pings.popleft()
                if not fut.done():
                    fut.set_result(None)
                    break
        else:
            log.debug("ignoring a message of unknown type %r", kind)  # a newer server's
        return False

    def _finish(self, failure: BaseException) -> None:
        if self._ended:
            return
        self._ended = True
        self._failure = failure
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(failure)
                pending.future.exception()  # retrieved: nobody may be waiting any more
        for fut in self._pings:
            if not fut.done():
                fut.set_exception(failure)
                fut.exception()
        if self._first_state is not None and not self._first_state.done():
            self._first_state.set_exception(failure)
            self._first_state.exception()
        self._queue.put_nowait(_END)
        self._status("closed")

    def _raise_end(self) -> None:
        raise self._failure or ConnectionLost("the connection is closed")
