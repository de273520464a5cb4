"""Start the real server as a separate process for tests that must use only the public protocol
(browser and Python client tests). SQLite in a temporary folder, no bot pause."""

from __future__ import annotations

import contextlib
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from server.bench.load import ROOT, free_port, start_server, stop_server

__all__ = ["ROOT", "free_port", "live_server"]


@contextlib.contextmanager
def live_server(
    tmp_path: Path,
    *,
    database_url: str | None = None,
    extra_env: dict[str, str] | None = None,
    port: int | None = None,
) -> Iterator[str]:
    """Run ``python -m server`` on a free loopback port; yields its base URL (``http://127.0.0.1:P``).
    Synchronous (the browser tests are): it waits for ``/healthz`` with plain urllib."""
    url = database_url or f"sqlite+aiosqlite:///{tmp_path / 'server.db'}"
    server = start_server(url, tmp_path, {"GINRUMMY_BOT_DELAY": "0", **(extra_env or {})}, port)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.process is not None
            if server.process.poll() is not None:
                raise RuntimeError(f"server exited with {server.process.returncode}; see {server.log_path}")
            try:
                with urllib.request.urlopen(server.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start within 30 s; see {server.log_path}")
            time.sleep(0.1)
        yield server.url
    finally:
        stop_server(server)
