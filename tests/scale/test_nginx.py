"""The reference deployment behind its proxy: two Postgres-backed replicas behind Debian's nginx,
run with the project's own deploy/nginx.conf (only the upstream addresses, the listen port and
the file paths changed), the replicas trusting nginx's ``X-Forwarded-*`` as docker-compose.yml
has them do.

Through nginx: Chromium plays a move against the computer over the WebSocket (refused with 1008
"forbidden origin" if the proxy drops the port from ``Host``); the REST ``ws_url`` and invite
link carry nginx's host and port; a second browser joins a friend's match by the invite link on
the page; and the per-address rate limit tells two client addresses (127.0.0.1 and 127.0.0.2)
apart, which it cannot unless nginx forwards the address and the replicas believe it.

Skipped, saying so, when nginx or Postgres is missing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import pytest

from tests.live_server import ROOT, free_port, live_server
from tests.web.conftest import CHROMIUM, DESKTOP, LAUNCH_ARGS

T = TypeVar("T")
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.postgres,
    pytest.mark.browser,
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx)"),
]
ENV = {
    # A pause, so the browser's socket (on either replica) is there before the computer's first
    # move, which both replicas then try to make: the one that loses must still tell its socket
    # (it did not, now and then: "Computer (Easy) is thinking" for good; tests/scale/test_topology.py).
    "GINRUMMY_BOT_DELAY": "0.5",
    "GINRUMMY_BROADCAST": "postgres",
    "GINRUMMY_TRUSTED_PROXIES": "127.0.0.1",  # nginx, as the balancer's address in compose
}


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end in a thread of its own, so that it works even where
    Playwright's synchronous API keeps an event loop running in this one."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def nginx_conf(upstreams: list[str], port: int, run_dir: Path) -> str:
    """deploy/nginx.conf with these upstreams and this listen port, every file in ``run_dir``."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    servers = re.findall(r"^(\s*)server \S+:\d+( [^;]*)?;\n", conf, re.M)
    assert len(servers) == 2, "deploy/nginx.conf should name two upstream servers"
    indent, options = servers[0]
    conf, n = re.subn(r"^\s*server \S+:\d+( [^;]*)?;\n", "", conf, flags=re.M)
    conf = conf.replace(
        "upstream ginrummy {\n",
        "upstream ginrummy {\n" + "".join(f"{indent}server {u}{options};\n" for u in upstreams),
    )
    conf, n = re.subn(r"^(\s*)listen 80;", rf"\1listen 127.0.0.1:{port};", conf, flags=re.M)
    assert n == 1, "deploy/nginx.conf should listen on port 80"
    paths = "".join(
        f"  {kind}_temp_path {run_dir / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = conf.replace("http {\n", f"http {{\n  access_log {run_dir / 'access.log'};\n{paths}", 1)
    # As root, nginx's workers would otherwise run as nobody, who cannot enter pytest's temp dir.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return f"daemon off;\n{user}pid {run_dir / 'nginx.pid'};\nerror_log {run_dir / 'error.log'} warn;\n{conf}"


@contextlib.contextmanager
def nginx(
    upstreams: list[str], run_dir: Path, edit: Callable[[str], str] = lambda conf: conf
) -> Iterator[str]:
    """Debian's nginx in front of ``upstreams`` as a child process; yields its base URL.
    ``edit`` may change the configuration further (a test's own TLS front, say)."""
    assert NGINX is not None
    run_dir.mkdir()
    port = free_port()
    (run_dir / "nginx.conf").write_text(edit(nginx_conf(upstreams, port, run_dir)))
    cmd = [NGINX, "-p", str(run_dir), "-c", str(run_dir / "nginx.conf"), "-e", str(run_dir / "error.log")]
    check = subprocess.run([*cmd, "-t"], capture_output=True, text=True, timeout=10)
    assert check.returncode == 0, check.stderr
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 10
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"nginx exited with {process.returncode}: {(run_dir / 'error.log').read_text()}"
                )
            with contextlib.suppress(OSError), urllib.request.urlopen(base + "/healthz", timeout=1) as r:
                if r.status == 200:
                    break
            assert time.monotonic() < deadline, "nginx did not answer /healthz in 10 s"
            time.sleep(0.05)
        yield base
    finally:
        process.terminate()  # SIGTERM: nginx's fast shutdown
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def proxied(postgres_admin: str, tmp_path: Path) -> Iterator[str]:
    """The base URL of nginx in front of two replicas sharing one fresh Postgres database."""
    import asyncpg

    from tests.scale.conftest import _with_database

    name = f"gin_test_nginx_{os.getpid()}_{time.monotonic_ns() % 10**9}"

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(postgres_admin)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    run(admin(f'CREATE DATABASE "{name}"'))
    url = _with_database(postgres_admin, name).replace("postgresql://", "postgresql+asyncpg://", 1)
    try:
        with contextlib.ExitStack() as stack:
            # The first migrates; the second then finds the schema there.
            first = stack.enter_context(live_server(tmp_path, database_url=url, extra_env=ENV))
            second = stack.enter_context(live_server(tmp_path, database_url=url, extra_env=ENV))
            hosts = [u.removeprefix("http://") for u in (first, second)]
            yield stack.enter_context(nginx(hosts, tmp_path / "nginx"))
    finally:
        run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def rest_through(base: str) -> None:
    """ws_url and the invite link name nginx; the rate limit per address sees two addresses."""
    host = base.removeprefix("http://")
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{base}/api/players", json={"name": "Ada"}) as r:
            assert r.status == 201, await r.text()
            ada = await r.json()
        auth = {"Authorization": f"Bearer {ada['token']}"}
        async with session.post(f"{base}/api/matches", json={"opponent": "human"}, headers=auth) as r:
            assert r.status == 201, await r.text()
            match = await r.json()
        assert match["ws_url"] == f"ws://{host}/ws"
        assert match["invite"]["url"].startswith(f"{base}/#/join/{match['match_id']}/")
        # And the socket nginx passes on is accepted from a browser of this origin.
        async with session.ws_connect(match["ws_url"], headers={"Origin": base}) as ws:
            await ws.send_json({"type": "ping"})
            assert (await ws.receive_json(timeout=10)) == {"type": "pong"}

    async def statuses(local: str, count: int) -> list[int]:
        connector = aiohttp.TCPConnector(local_addr=(local, 0), force_close=True)
        async with aiohttp.ClientSession(connector=connector) as session:
            out = []
            for _ in range(count):
                async with session.post(f"{base}/api/players", json={"name": "Bob"}) as r:
                    out.append(r.status)
                    if out[-2:] == [429, 429]:
                        break  # both replicas (each keeps its own count) refuse 127.0.0.2 now
            return out

    other = await statuses("127.0.0.2", 200)
    assert other[-2:] == [429, 429], other
    assert 201 in other
    # Another address still gets its identities, from either replica.
    assert await statuses("127.0.0.1", 2) == [201, 201]


@contextlib.contextmanager
def chromium(errors: list[str]) -> Iterator[Callable[[], Any]]:
    """Debian's Chromium, for this test only (the browser tests' session-wide one would keep
    Playwright's event loop running under every later asynchronous test); yields ``new_page()``,
    a page in a fresh context whose console errors go to ``errors``."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)

        def new_page() -> Any:
            context = browser.new_context(**DESKTOP)
            context.set_default_timeout(15_000)
            page = context.new_page()
            page.on("console", lambda m: m.type == "error" and errors.append(f"{page.url}: {m.text}"))
            page.on("pageerror", lambda e: errors.append(f"{page.url}: uncaught {e}"))
            return page

        try:
            yield new_page
        finally:
            browser.close()


def test_the_reference_deployment_works_through_nginx(proxied):
    from playwright.sync_api import expect

    from tests.web.table import Play, start_vs_computer, status_line, take_turn

    base = proxied
    errors: list[str] = []
    with chromium(errors) as new_page:
        # Against the computer: the page and its WebSocket both through nginx; a draw, a discard.
        page = new_page()
        start_vs_computer(page, base, name="Ada", difficulty="Easy", rules="Classic rules")
        play = Play()
        deadline = time.monotonic() + 20
        discarded = page.get_by_role("listitem").filter(has_text=re.compile(r"^You discarded "))
        while discarded.count() == 0 and not play.knocks:
            assert time.monotonic() < deadline, f"no discard in 20 s: {status_line(page).inner_text()!r}"
            if not take_turn(page, play, touch=False):
                page.wait_for_timeout(50)
        assert play.moves >= 2, "a draw and a discard"

        # A friend's match: the second browser comes in by the invite link shown on the page.
        ada = new_page()
        ada.goto(base + "/")
        ada.get_by_label("Your name").fill("Ada")
        ada.get_by_role("button", name="Create an invite link").click()
        expect(ada.get_by_role("heading", name="Waiting for your friend")).to_be_visible()
        invite = ada.get_by_label("Invite link for your friend").input_value()
        assert invite.startswith(base + "/"), invite
        bob = new_page()
        bob.goto(invite)
        bob.get_by_label("Your name").fill("Bob")
        bob.get_by_role("button", name="Join the match").click()
        expect(bob).to_have_url(re.compile(r"#/play/"))
        expect(bob.get_by_role("heading", name="Ada")).to_be_visible()
        expect(ada.get_by_role("heading", name="Bob")).to_be_visible()
    assert errors == [], "errors in the browser console"

    run(rest_through(base))
