"""At the process's file limit the server stays quiet and alive: connections past the limit are
closed at once (not left hanging in the backlog), one warning says so instead of a traceback per
attempt (asyncio's own accept loop logged 224,000 in ten seconds), and once the sockets are gone
the server answers again."""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from server.transport.listen import SheddingSocket, listening_socket

pytestmark = pytest.mark.slow

FILE_LIMIT = 80
HOLD = 120  # more sockets than the server may have files


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ready(url: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            time.sleep(0.1)
    return False


@pytest.mark.parametrize("uvloop", ["0", "1"])
def test_at_the_file_limit_the_server_sheds_connections_quietly_and_recovers(
    tmp_path: Path, uvloop: str
) -> None:
    """On asyncio's loop the listening socket sheds and warns; uvloop (libuv) sheds on its own
    reserved descriptor, silently."""
    if uvloop == "1":
        pytest.importorskip("uvloop")
    port = _free_port()
    log_path = tmp_path / "server.log"

    def low_limit() -> None:  # soft and hard: the server cannot lift it
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))

    env = dict(os.environ, GINRUMMY_BOT_WORKERS="0", GINRUMMY_UVLOOP=uvloop)
    cmd = [sys.executable, "-m", "server", "--port", str(port)]
    cmd += ["--database-url", f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}"]
    with log_path.open("wb") as log:
        server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, preexec_fn=low_limit, env=env)
    held: list[socket.socket] = []
    try:
        assert _ready(f"http://127.0.0.1:{port}/healthz", 30), log_path.read_text()[-2000:]
        closed_at_once = 0
        for _ in range(HOLD):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            held.append(s)
        time.sleep(1.0)  # the server accepts (or sheds) what it can
        # The sockets past the limit were accepted and closed: reading them ends at once.
        for s in held:
            s.settimeout(0.05)
            try:
                if s.recv(1) == b"":
                    closed_at_once += 1
            except TimeoutError:
                pass  # held open by the server, as any idle connection
            except OSError as e:
                if e.errno == errno.ECONNRESET:
                    closed_at_once += 1
        assert closed_at_once >= HOLD - FILE_LIMIT, (closed_at_once, log_path.read_text()[-2000:])
        # A new connection at the limit is closed too, promptly, instead of hanging.
        with socket.create_connection(("127.0.0.1", port), timeout=5) as extra:
            extra.settimeout(5)
            with contextlib.suppress(ConnectionResetError):
                assert extra.recv(1) == b""
        for s in held:
            s.close()
        held.clear()
        assert _ready(f"http://127.0.0.1:{port}/healthz", 15), "the server did not recover"
    finally:
        for s in held:
            s.close()
        server.terminate()
        server.wait(timeout=30)
    text = log_path.read_text(errors="replace")
    lines = text.splitlines()
    assert "Traceback" not in text, text[-3000:]
    assert "out of system resource" not in text
    assert len(lines) < 40, f"{len(lines)} log lines"
    assert sum("connections shed" in line for line in lines) == (uvloop == "0"), text[-3000:]


def test_a_shed_warning_at_most_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    bound = listening_socket("127.0.0.1", 0)
    assert isinstance(bound, SheddingSocket) and bound.getsockname()[1] != 0
    bound.close()
    shedding = SheddingSocket(socket.AF_INET, socket.SOCK_STREAM, clock=lambda: now[0])
    shedding.bind(("127.0.0.1", 0))
    shedding.listen(8)
    shedding.setblocking(False)
    clients = []
    try:
        for _ in range(3):
            clients.append(socket.create_connection(shedding.getsockname(), timeout=2))
        with caplog.at_level("WARNING", logger="server.transport.listen"):
            for t in (0.0, 30.0, 61.0):
                now[0] = t
                shedding._shed_one()
        warnings = [r for r in caplog.records if r.msg == "at the file limit: connections shed"]
        assert [r.shed for r in warnings] == [1, 2]  # at 0 s, then at 61 s (two since)
    finally:
        for c in clients:
            c.close()
        shedding.close()
