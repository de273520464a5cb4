"""Start the real server as a separate process for tests that must use only the public protocol
(browser and Python client tests). SQLite in a temporary folder, no bot pause."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import shutil
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from server.bench.load import ROOT, free_port, start_server, stop_server
from server.storage import create_engine, upgrade

__all__ = ["ROOT", "free_port", "live_server"]


@functools.cache
def migrated_database() -> Path:
    """A SQLite file migrated to the head revision, made once per test session: each server on a
    new folder starts from a copy (running every migration took 0.5 of a server's 2 s start)."""
    folder = Path(tempfile.mkdtemp(prefix="ginrummy-migrated-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "server.db"

    async def migrate() -> None:
        engine = create_engine(f"sqlite+aiosqlite:///{path}")
        try:
            await upgrade(engine)
        finally:
            await engine.dispose()

    # Its own thread and loop: a caller may be inside a running loop (an async test).
    thread = threading.Thread(target=asyncio.run, args=(migrate(),))
    thread.start()
    thread.join()
    assert path.exists() and not path.with_name("server.db-wal").exists()
    return path


@contextlib.contextmanager
def live_server(
    tmp_path: Path,
    *,
    database_url: str | None = None,
    extra_env: dict[str, str] | None = None,
    port: int | None = None,
) -> Iterator[str]:
    """Run ``python -m server`` on a free loopback port; yields its base URL (``http://127.0.0.1:P``).
    Synchronous (the browser tests are): it waits for ``/healthz`` with plain urllib. On SQLite,
    a folder without a database gets a copy of :func:`migrated_database`; a restart on the same
    folder keeps the one there."""
    if database_url is None and not (tmp_path / "server.db").exists():
        shutil.copyfile(migrated_database(), tmp_path / "server.db")
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
