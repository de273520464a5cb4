"""The cross-process :class:`~server.service.ports.Broadcaster` over Postgres ``LISTEN/NOTIFY``.

Several server processes share one Postgres. When one of them commits a change to a match it
tells its own sockets at once; the others learn of it from a notification on one channel whose
payload is ``"<match_id> <version>"``, reload that match if they hold it, and tell their
sockets. Postgres is already the shared store, so this needs no second service (Redis pub/sub
would add one for the same at-most-once delivery), and ``NOTIFY`` is transactional: issued
inside the transaction that commits a change (see :mod:`.group_commit`), it is delivered if and
only if that change commits, so no process can hear of a version that does not exist, and a
crash between commit and publish cannot swallow the news.

Delivery is at most once: while the listening connection is down notifications are lost, so
after every reconnection the broadcaster calls its ``on_gap`` callbacks (the service then checks
the versions of the matches it holds). A payload is a match id and a version only: never a card,
a token or a seed (every process on the channel, and any database user allowed to ``LISTEN``,
reads it).

Presence rides on a second channel, ``<channel>_presence``, with payloads ``"<match_id> <s0><s1>"``
(``1`` where the sending process has a socket of that seat, e.g. ``"m_abc 10"``); the sender is
known by its connection's backend pid. It is never transactional and may be lost: the service
re-sends it periodically and forgets what is not re-sent.

Revoked sessions ride on a third, ``<channel>_sessions``, with payloads of session ids separated
by spaces (``"s_0123456789abcdef s_..."``): every process forgets them and closes their sockets.
A session id is not a token and cannot be turned into one. It too may be lost while the
connection is down; after a gap, every process forgets the players it remembered.

Paired seeks ride on a fourth, ``<channel>_seeks``, with payloads ``"<seek_id> <match_id>"``:
the process holding that seek's socket tells its seeker the match. Also lost while the
connection is down; the seek's next heartbeat reads the pairing from the store instead.

This module must never decide anything about a match; it only carries "this match is now at
version N" and "these seats have sockets there".
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import re
from collections.abc import Callable
from typing import Any

import asyncpg
from sqlalchemy import make_url

from server.service.ports import (
    Broadcaster,
    GapListener,
    Listener,
    PairedListener,
    PresenceListener,
    RevokedListener,
)

log = logging.getLogger("server.storage.notify")

CHANNEL = "ginrummy_matches"
_CHANNEL_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
# Postgres refuses payloads of 8000 bytes or more; ours are tiny, a batch is many of them.
MAX_BATCH = 500


def asyncpg_dsn(url: str) -> str:
    """The libpq-style DSN asyncpg wants, from a SQLAlchemy URL.

    >>> asyncpg_dsn("postgresql+asyncpg://gin:pw@db:5432/ginrummy")
    'postgresql://gin:pw@db:5432/ginrummy'
    """
    u = make_url(url)
    if u.get_backend_name() != "postgresql":
        raise ValueError(f"not a Postgres URL: {u.render_as_string(hide_password=True)}")
    return u.set(drivername="postgresql").render_as_string(hide_password=False)


def encode_payload(match_id: str, version: int) -> str:
    """The notification payload of a change.

    >>> encode_payload("m_abc", 7)
    'm_abc 7'
    """
    return f"{match_id} {version}"


def decode_payload(payload: str) -> tuple[str, int] | None:
    """``(match_id, version)``, or None for anything that is not a payload of ours.

    >>> decode_payload("m_abc 7")
    ('m_abc', 7)
    >>> decode_payload("m_abc seven") is None
    True
    """
    match_id, sep, version = payload.partition(" ")
    if not sep or not match_id or " " in version or not version.isdigit() or len(match_id) > 64:
        return None
    return match_id, int(version)


def encode_presence(match_id: str, seats: tuple[bool, bool]) -> str:
    """The presence payload: which seats have a socket on the sending process.

    >>> encode_presence("m_abc", (True, False))
    'm_abc 10'
    """
    return f"{match_id} {int(seats[0])}{int(seats[1])}"


def decode_presence(payload: str) -> tuple[str, tuple[bool, bool]] | None:
    """``(match_id, seats)``, or None for anything that is not a presence payload.

    >>> decode_presence("m_abc 01")
    ('m_abc', (False, True))
    >>> decode_presence("m_abc 2") is None
    True
    """
    match_id, sep, flags = payload.partition(" ")
    if not sep or not match_id or len(match_id) > 64 or len(flags) != 2 or set(flags) - {"0", "1"}:
        return None
    return match_id, (flags[0] == "1", flags[1] == "1")


_SESSION_ID = re.compile(r"^s_[0-9a-f]{16}$")
SESSIONS_AT_ONCE = 400
"""Session ids in one payload (19 bytes each, under Postgres's 8000-byte limit)."""


def decode_revoked(payload: str) -> list[str] | None:
    """The session ids of a revocation payload, or None for anything else.

    >>> decode_revoked("s_0123456789abcdef s_fedcba9876543210")
    ['s_0123456789abcdef', 's_fedcba9876543210']
    >>> decode_revoked("s_x") is None
    True
    """
    ids = payload.split(" ")
    return ids if ids and all(_SESSION_ID.match(i) for i in ids) else None


def decode_paired(payload: str) -> tuple[str, str] | None:
    """``(seek_id, match_id)`` of a paired-seek payload, or None for anything else.

    >>> decode_paired("k_0123456789abcdef m_abc")
    ('k_0123456789abcdef', 'm_abc')
    >>> decode_paired("k_x") is None
    True
    """
    seek_id, sep, match_id = payload.partition(" ")
    if not sep or not seek_id or not match_id or " " in match_id or len(seek_id) > 64 or len(match_id) > 64:
        return None
    return seek_id, match_id


def _check_channel(channel: str) -> None:
    # The channel is spliced into LISTEN (an identifier cannot be a bind parameter).
    if not _CHANNEL_NAME.match(channel):
        raise ValueError(f"bad channel name {channel!r}")


class PostgresBroadcaster(Broadcaster):
    """One asyncpg connection per process: it ``LISTEN``s on ``channel`` and, unless the store
    already notifies inside its commits (``transactional=True``), sends this process's
    notifications in batches.

    Use ``await PostgresBroadcaster.connect(url)`` (or ``start()``), then ``listen(listener)``;
    ``close()`` when done. ``publish`` never waits for the database: it queues, so a match's
    lock is not held across a round trip.
    """

    def __init__(
        self,
        url: str,
        *,
        channel: str = CHANNEL,
        transactional: bool = False,
        reconnect_delay: float = 0.5,
        check_interval: float = 5.0,
    ) -> None:
        _check_channel(channel)
        self.dsn = asyncpg_dsn(url)
        self.channel = channel
        self.presence_channel = f"{channel}_presence"
        _check_channel(self.presence_channel)
        self.sessions_channel = f"{channel}_sessions"
        _check_channel(self.sessions_channel)
        self.seeks_channel = f"{channel}_seeks"
        _check_channel(self.seeks_channel)
        self.transactional = transactional
        self.reconnect_delay = reconnect_delay
        self.check_interval = check_interval
        self._listeners: list[Listener] = []
        self._gap_listeners: list[GapListener] = []
        self._presence_listeners: list[PresenceListener] = []
        self._revoked_listeners: list[RevokedListener] = []
        self._paired_listeners: list[PairedListener] = []
        self._conn: asyncpg.Connection | None = None
        self._pid: int | None = None
        self._pending: list[str] = []
        self._pending_presence: list[str] = []
        self._pending_revoked: list[str] = []
        self._pending_paired: list[str] = []
        self._wake = asyncio.Event()
        self._connected = asyncio.Event()
        self._lost = asyncio.Event()
        self._using = asyncio.Lock()
        """One statement at a time on the connection (asyncpg refuses a second while one runs:
        the liveness check beside a publish dropped a healthy connection under load)."""
        self._answered_at: float | None = None
        """When a publish last went through (the loop's clock): proof enough that it is alive."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._supervisor: asyncio.Task[None] | None = None
        self._publisher: asyncio.Task[None] | None = None
        self._closed = False
        self.received = 0
        self.published = 0
        self.reconnections = 0

    @classmethod
    async def connect(cls, url: str, **kwargs: Any) -> PostgresBroadcaster:
        broadcaster = cls(url, **kwargs)
        await broadcaster.start()
        return broadcaster

    async def start(self, timeout: float = 10.0) -> None:
        """Connect and listen; returns once listening (raises if Postgres cannot be reached
        within ``timeout``: a server should not start deaf)."""
        await self._open()
        self._supervisor = asyncio.get_running_loop().create_task(self._supervise())
        # Presence is always sent from here (changes are not, in transactional mode).
        self._publisher = asyncio.get_running_loop().create_task(self._publish_loop())

    # --- the Broadcaster port -------------------------------------------------------------------

    async def publish(self, match_id: str, version: int) -> None:
        if self.transactional or self._closed:
            return  # the commit itself notified (or we are shutting down)
        self._pending.append(encode_payload(match_id, version))
        self._wake.set()

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    async def publish_presence(self, match_id: str, seats: tuple[bool, bool]) -> None:
        if self._closed:
            return
        self._pending_presence.append(encode_presence(match_id, seats))
        self._wake.set()

    def listen_presence(self, listener: PresenceListener) -> None:
        self._presence_listeners.append(listener)

    async def publish_revoked(self, session_ids: list[str]) -> None:
        if self._closed:
            return
        for i in range(0, len(session_ids), SESSIONS_AT_ONCE):
            self._pending_revoked.append(" ".join(session_ids[i : i + SESSIONS_AT_ONCE]))
        self._wake.set()

    def listen_revoked(self, listener: RevokedListener) -> None:
        self._revoked_listeners.append(listener)

    async def publish_paired(self, seek_id: str, match_id: str) -> None:
        if self._closed:
            return
        self._pending_paired.append(f"{seek_id} {match_id}")
        self._wake.set()

    def listen_paired(self, listener: PairedListener) -> None:
        self._paired_listeners.append(listener)

    def on_gap(self, listener: GapListener) -> None:
        """``listener()`` runs after the listening connection was re-established: any
        notification sent meanwhile was lost."""
        self._gap_listeners.append(listener)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._publisher is not None:
            # Flush what is queued (best effort: other processes would otherwise miss it).
            self._wake.set()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._drain(), timeout=2)
            self._publisher.cancel()
        if self._supervisor is not None:
            self._supervisor.cancel()
        for task in [self._publisher, self._supervisor, *self._tasks]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        await self._close_conn()
        self._listeners.clear()
        self._gap_listeners.clear()
        self._presence_listeners.clear()
        self._revoked_listeners.clear()
        self._paired_listeners.clear()

    # --- receiving ------------------------------------------------------------------------------

    def _on_notification(self, _conn: Any, pid: int, _channel: str, payload: str) -> None:
        if pid == self._pid:
            return  # our own batch coming back: our sockets were told before we published
        decoded = decode_payload(payload)
        if decoded is None:
            log.warning("ignored a malformed notification", extra={"channel": self.channel})
            return
        self.received += 1
        for listener in list(self._listeners):
            self._call(listener, *decoded)

    def _on_presence(self, _conn: Any, pid: int, _channel: str, payload: str) -> None:
        if pid == self._pid:
            return  # our own
        decoded = decode_presence(payload)
        if decoded is None:
            log.warning("ignored a malformed presence notification", extra={"channel": self.presence_channel})
            return
        for listener in list(self._presence_listeners):
            self._call(listener, decoded[0], str(pid), decoded[1])

    def _on_revoked(self, _conn: Any, pid: int, _channel: str, payload: str) -> None:
        if pid == self._pid:
            return  # ours: this process acted on it before publishing
        decoded = decode_revoked(payload)
        if decoded is None:
            log.warning("ignored a malformed revocation", extra={"channel": self.sessions_channel})
            return
        for listener in list(self._revoked_listeners):
            self._call(listener, decoded)

    def _on_paired(self, _conn: Any, pid: int, _channel: str, payload: str) -> None:
        if pid == self._pid:
            return  # ours: this process told its own seekers
        decoded = decode_paired(payload)
        if decoded is None:
            log.warning("ignored a malformed paired notification", extra={"channel": self.seeks_channel})
            return
        for listener in list(self._paired_listeners):
            self._call(listener, *decoded)

    def _call(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            result = fn(*args)
        except Exception:
            log.exception("broadcast listener failed", extra={"match_id": args[0] if args else None})
            return
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(result)
            self._tasks.add(task)
            task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("broadcast listener failed", exc_info=task.exception())

    # --- the connection -------------------------------------------------------------------------

    async def _open(self) -> None:
        conn = await asyncpg.connect(self.dsn, timeout=10)
        try:
            await conn.add_listener(self.channel, self._on_notification)
            await conn.add_listener(self.presence_channel, self._on_presence)
            await conn.add_listener(self.sessions_channel, self._on_revoked)
            await conn.add_listener(self.seeks_channel, self._on_paired)
        except BaseException:
            await conn.close()
            raise
        conn.add_termination_listener(self._on_terminated)
        self._conn = conn
        self._pid = conn.get_server_pid()
        self._lost.clear()
        self._connected.set()

    def _on_terminated(self, _conn: Any) -> None:
        self._connected.clear()
        self._lost.set()
        if not self._closed:
            log.warning("notification connection lost; reconnecting", extra={"channel": self.channel})

    async def _close_conn(self) -> None:
        conn, self._conn = self._conn, None
        self._connected.clear()
        if conn is not None and not conn.is_closed():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), timeout=2)
        elif conn is not None:
            conn.terminate()

    async def _supervise(self) -> None:
        """Notice a dead connection (closed by the server, or silently gone: checked every
        ``check_interval``), reconnect with backoff, then report the gap."""
        while not self._closed:
            conn = self._conn
            healthy = conn is not None and not conn.is_closed()
            if healthy:
                try:
                    await asyncio.wait_for(self._lost.wait(), timeout=self.check_interval)
                except TimeoutError:
                    if await self._alive(conn):
                        continue
            await self._close_conn()
            delay = self.reconnect_delay
            while not self._closed:
                try:
                    await self._open()
                    break
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as e:
                    log.warning("cannot reach Postgres for notifications", extra={"error": str(e)})
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 10.0)
            if self._closed:
                return
            self.reconnections += 1
            self._wake.set()  # publish what queued up meanwhile
            log.info("notification connection restored", extra={"channel": self.channel})
            for listener in list(self._gap_listeners):
                self._call(listener)

    async def _alive(self, conn: asyncpg.Connection) -> bool:
        """Whether ``conn`` answered lately (a publish within ``check_interval``), or answers a
        trivial query within ``check_interval`` now, after any publish under way."""
        loop = asyncio.get_running_loop()
        if self._answered_at is not None and loop.time() - self._answered_at < self.check_interval:
            return True

        async def check() -> None:
            async with self._using:
                await conn.fetchval("SELECT 1")

        try:
            await asyncio.wait_for(check(), timeout=self.check_interval)
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            return False
        return True

    # --- sending ----------------------------------------------------------------------------------

    async def _publish_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._drain()

    async def _drain(self) -> None:
        for channel, pending in (
            (self.channel, self._pending),
            (self.presence_channel, self._pending_presence),
            (self.sessions_channel, self._pending_revoked),
            (self.seeks_channel, self._pending_paired),
        ):
            while pending:
                conn = self._conn
                if conn is None or conn.is_closed():
                    if self._connected.is_set():
                        # Gone before its termination callback ran. Waiting on the event, still
                        # set, would not yield: this loop would hold the event loop for good.
                        await asyncio.sleep(self.reconnect_delay)
                    else:
                        await self._connected.wait()
                    continue
                batch = pending[:MAX_BATCH]
                try:
                    async with self._using:
                        # One round trip for the whole batch; rows are notified in order.
                        await conn.execute(
                            "SELECT pg_notify($1, p) FROM unnest($2::text[]) WITH ORDINALITY AS t(p, i) ORDER BY i",
                            channel,
                            batch,
                        )
                    self._answered_at = asyncio.get_running_loop().time()
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
                    # Kept queued: sent again once the supervisor has reconnected.
                    await asyncio.sleep(self.reconnect_delay)
                    continue
                del pending[: len(batch)]
                if pending is self._pending:
                    self.published += len(batch)
