"""Start the real server as a separate process for tests that must use only the public protocol
(browser and Python client tests). SQLite in a temporary folder, no bot pause."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def live_server(
    tmp_path: Path,
    *,
    database_url: str | None = None,
    extra_env: dict[str, str] | None = None,
    port: int | None = None,
) -> Iterator[str]:
    """Run ``python -m server`` on a free loopback port; yields its base URL (``http://127.0.0.1:P``)."""
    port = port or free_port()
    env = {
        **os.environ,
        "GINRUMMY_BOT_DELAY": "0",
        "GINRUMMY_LOG_LEVEL": "warning",
        **(extra_env or {}),
    }
    url = database_url or f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    log = open(tmp_path / f"server-{port}.log", "wb")  # noqa: SIM115 (closed in finally)
    proc = subprocess.Popen(
        [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port), "--database-url", url],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start within 30 s; see {log.name}")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
