"""deploy/nginx.conf under Debian's nginx, in front of a stub replica (an aiohttp app in a thread
of this process that echoes WebSocket messages and tells what headers reached it), so that what
is measured is the balancer's own configuration, fast and on loopback only:

- it carries 300 WebSockets at once (each is two connections in nginx; with nginx's default of
  512 worker connections the reference deployment stopped at about 240), from three addresses;
- one client address holds at most ``Limits.ws_max_per_address`` sockets across every replica
  (each replica counts only its own share), the address through the TLS front being the one it
  forwards;
- ``/metrics`` answers loopback addresses, but not a request that came through the TLS front;
- ``X-Forwarded-Proto`` from the TLS front reaches the replicas; from anyone else, the
  balancer's own scheme does.

Skipped, saying so, when nginx is missing."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import threading
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import msgspec
import pytest
from aiohttp import web

from server.config import Limits
from server.wire.errors import ErrorResponse
from tests.live_server import ROOT
from tests.scale.test_nginx import NGINX, nginx, run

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx)")
SOCKETS = 300
FRONT = "127.0.0.2"  # the test's TLS front, listed in the balancer's geo block


@contextlib.contextmanager
def stub_replica() -> Iterator[str]:
    """A replica stand-in on a free loopback port, in a thread with its own event loop; yields
    ``host:port``."""

    async def healthz(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def metrics(request: web.Request) -> web.Response:
        return web.Response(text="# metrics")

    async def headers(request: web.Request) -> web.Response:
        return web.json_response(dict(request.headers))

    async def echo(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for message in ws:
            await ws.send_str(message.data)
        return ws

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/headers", headers)
    app.router.add_get("/ws", echo)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, handle_signals=False)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture
def enough_files() -> Iterator[None]:
    """Both ends of every socket are in this process (the client's and the stub's): lift the
    soft limit on open files if it is below what that takes."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = 4 * SOCKETS + 256
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"the hard limit on open files ({hard}) is below {needed}")
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def with_front(conf: str) -> str:
    """The balancer's configuration with :data:`FRONT` listed as the TLS front."""
    assert "    default 0;\n" in conf, "deploy/nginx.conf's geo block for the TLS front is gone"
    return conf.replace("    default 0;\n", f"    default 0;\n    {FRONT} 1;\n", 1)


def test_the_balancer_carries_300_websockets_at_once(tmp_path: Path, enough_files: None) -> None:
    async def hold(base: str) -> int:
        timeout = aiohttp.ClientTimeout(total=20)
        url = base.replace("http://", "ws://") + "/ws"
        async with contextlib.AsyncExitStack() as stack:
            sessions = [  # a hundred sockets from each of three addresses
                await stack.enter_async_context(
                    aiohttp.ClientSession(
                        connector=aiohttp.TCPConnector(limit=0, local_addr=(f"127.0.0.{3 + i}", 0)),
                        timeout=timeout,
                    )
                )
                for i in range(3)
            ]
            sockets = await asyncio.gather(*(sessions[i % 3].ws_connect(url) for i in range(SOCKETS)))
            try:
                # Every one of them open at once, and each still carries its own messages.
                for i, ws in enumerate(sockets):
                    await ws.send_str(str(i))
                answers = [await ws.receive_str(timeout=10) for ws in sockets]
                assert answers == [str(i) for i in range(SOCKETS)]
                return sum(not ws.closed for ws in sockets)
            finally:
                await asyncio.gather(*(ws.close() for ws in sockets))

    with stub_replica() as upstream, nginx([upstream], tmp_path / "nginx") as base:
        assert run(hold(base)) == SOCKETS
    assert "worker_connections are not enough" not in (tmp_path / "nginx" / "error.log").read_text()


def test_metrics_answer_loopback_and_the_scheme_comes_only_from_the_tls_front(
    tmp_path: Path,
) -> None:
    async def ask(base: str, local: str, path: str, proto: str | None = None) -> tuple[int, str]:
        connector = aiohttp.TCPConnector(local_addr=(local, 0), force_close=True)
        headers = {"X-Forwarded-Proto": proto} if proto else {}
        headers["X-Forwarded-Host"] = "evil.example"  # a client's own: never passed on
        async with (
            aiohttp.ClientSession(connector=connector) as session,
            session.get(base + path, headers=headers) as r,
        ):
            if path == "/headers":
                seen = await r.json()
                assert seen.get("X-Forwarded-Host") == seen["Host"] != "evil.example"
                return r.status, seen.get("X-Forwarded-Proto", "")
            return r.status, await r.text()

    async def check(base: str) -> None:
        assert await ask(base, "127.0.0.1", "/metrics") == (200, "# metrics")
        status, _ = await ask(base, FRONT, "/metrics")
        assert status == 403, "through the public TLS front, /metrics must be refused"
        # A client cannot claim https for itself; the TLS front can, and its http stays http.
        assert await ask(base, "127.0.0.1", "/headers", "https") == (200, "http")
        assert await ask(base, FRONT, "/headers", "https") == (200, "https")
        assert await ask(base, FRONT, "/headers", "http") == (200, "http")
        assert await ask(base, FRONT, "/headers") == (200, "http")

    with stub_replica() as upstream, nginx([upstream], tmp_path / "nginx", edit=with_front) as base:
        run(check(base))


def test_one_address_holds_at_most_the_replicas_cap_of_sockets_across_them(
    tmp_path: Path, enough_files: None
) -> None:
    cap = Limits().ws_max_per_address
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert f"limit_conn sockets_per_address {cap};" in conf, "the balancer's cap is not the replicas'"

    async def sockets(base: str, local: str, count: int, forwarded: str | None = None) -> list[int]:
        """Open ``count`` sockets from ``local`` (each first sending its own address in
        X-Forwarded-For, as the TLS front does, when given): the status of each upgrade."""
        url = base.replace("http://", "ws://") + "/ws"
        headers = {"X-Forwarded-For": forwarded} if forwarded else {}
        connector = aiohttp.TCPConnector(limit=0, local_addr=(local, 0))
        async with aiohttp.ClientSession(connector=connector) as session:
            out, held = [], []
            for _ in range(count):
                try:
                    held.append(await session.ws_connect(url, headers=headers))
                    out.append(101)
                except aiohttp.WSServerHandshakeError as e:
                    out.append(e.status)
            await asyncio.gather(*(ws.close() for ws in held))
            return out

    async def check(base: str) -> None:
        # While one address holds its cap, one more from it is refused; another address is not.
        async with contextlib.AsyncExitStack() as stack:
            url = base.replace("http://", "ws://") + "/ws"
            session = await stack.enter_async_context(
                aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, local_addr=("127.0.0.3", 0)))
            )
            held = [await session.ws_connect(url) for _ in range(cap)]
            assert await sockets(base, "127.0.0.3", 1) == [429]
            # The balancer's answer is the replicas' own error, as a client reads it.
            upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13"}
            upgrade["Sec-WebSocket-Key"] = "dGhlIHNhbXBsZSBub25jZQ=="
            async with session.get(base + "/ws", headers=upgrade) as r:
                assert (r.status, r.headers["Retry-After"]) == (429, "5")
                body = msgspec.json.decode(await r.read(), type=ErrorResponse)
                assert (body.error.code, body.error.limit) == ("rate_limited", "address_sockets")
                assert body.error.message.startswith(f"{cap} sockets are open from your address")
            assert await sockets(base, "127.0.0.4", 1) == [101]
            # Through the TLS front, each client it forwards counts apart, none as the front.
            assert await sockets(base, FRONT, cap + 1, forwarded="198.51.100.7") == [101] * cap + [429]
            assert await sockets(base, FRONT, 1, forwarded="10.1.2.3, 198.51.100.8") == [101]
            await held[0].close()
            # One closed: room for one, once nginx has let go of that connection's slot (its
            # side of the close ends a moment after the client's: seen to lag once under load).
            for _ in range(40):
                if (again := await sockets(base, "127.0.0.3", 1)) == [101]:
                    break
                await asyncio.sleep(0.05)
            assert again == [101]
            await asyncio.gather(*(ws.close() for ws in held[1:]))

    with stub_replica() as upstream, nginx([upstream], tmp_path / "nginx", edit=with_front) as base:
        run(check(base))
