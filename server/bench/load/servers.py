"""The server processes a load run starts (``python -m server`` on loopback), waiting for them,
stopping them, a fresh Postgres database for them, and their ``/metrics``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None


def tracebacks(log_texts: list[str], keep: int = 5) -> tuple[int, list[str]]:
    """The tracebacks in servers' logs: how many, and the first ``keep`` to be read. A JSON log
    line holds its whole traceback (a field of the line); one printed raw (an exception at exit,
    in a thread or in a finalizer) goes on over the lines after it: 25 of those are kept."""
    lines = [ln for text in log_texts for ln in text.splitlines()]
    at = [i for i, ln in enumerate(lines) if "Traceback" in ln]
    kept = [
        lines[i] if lines[i].lstrip().startswith("{") else "\n".join(lines[i : i + 25]) for i in at[:keep]
    ]
    return len(at), kept


async def wait_healthy(url: str, process: subprocess.Popen[bytes] | None, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as s:
        while True:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the server at {url} exited with {process.returncode}")
            with contextlib.suppress(aiohttp.ClientError, OSError):
                async with s.get(url + "/healthz", timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 200:
                        return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server at {url} did not become healthy in {timeout:.0f} s")
            await asyncio.sleep(0.1)


def start_server(
    database_url: str,
    log_dir: Path,
    env: dict[str, str] | None = None,
    port: int | None = None,
    profile: Path | None = None,
    root: Path = ROOT,
) -> Server:
    """``python -m server`` on loopback (a free port unless given), its output in ``log_dir``;
    under cProfile, writing ``profile`` when it stops, if given; from the checkout at ``root``
    (another one, to compare a change with what it replaces)."""
    port = port or free_port()
    log_path = log_dir / f"server-{port}.log"
    full_env = {
        **os.environ,
        "GINRUMMY_LOG_LEVEL": "warning",
        "DATABASE_URL": database_url,
        **(env or {}),
    }
    with open(log_path, "ab") as log:
        profiler = ["-m", "cProfile", "-o", str(profile)] if profile else []
        process = subprocess.Popen(
            [sys.executable, *profiler, "-m", "server", "--host", "127.0.0.1", "--port", str(port)],
            cwd=root,
            env=full_env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return Server(f"http://127.0.0.1:{port}", process, log_path)


def stop_server(server: Server) -> None:
    p = server.process
    if p is None or p.poll() is not None:
        return
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(15)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


@contextlib.asynccontextmanager
async def postgres_database(admin_dsn: str) -> AsyncIterator[str]:
    """A fresh Postgres database for this run (dropped at the end); yields its URL."""
    import asyncpg

    name = f"gin_load_{secrets.token_hex(5)}"
    conn = await asyncpg.connect(admin_dsn, timeout=5)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    head = admin_dsn.rpartition("/")[0]
    try:
        yield f"{head}/{name}".replace("postgresql://", "postgresql+asyncpg://", 1)
    finally:
        conn = await asyncpg.connect(admin_dsn, timeout=5)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


@contextlib.asynccontextmanager
async def started_servers(
    database: str,
    count: int,
    log_dir: Path,
    env: dict[str, str],
    *,
    postgres_admin: str = DEFAULT_POSTGRES_ADMIN,
    root: Path = ROOT,
    profiles: list[Path | None] | None = None,
) -> AsyncIterator[list[Server]]:
    """``count`` healthy server processes on one fresh database (``sqlite`` in ``log_dir`` or
    ``postgres``, created with ``postgres_admin`` and dropped after; several replicas share
    changes through Postgres's notices), stopped at the end. The first migrates the database;
    the others start once it has."""
    async with contextlib.AsyncExitStack() as stack:
        if database == "postgres":
            database_url = await stack.enter_async_context(postgres_database(postgres_admin))
        else:
            database_url = f"sqlite+aiosqlite:///{log_dir / f'load-{time.monotonic_ns()}.db'}"
        if database == "postgres" and count > 1:
            env = {"GINRUMMY_BROADCAST": "postgres", **env}
        profiles = profiles or [None] * count
        first = start_server(database_url, log_dir, env, profile=profiles[0], root=root)
        stack.callback(stop_server, first)
        await wait_healthy(first.url, first.process)
        others = {**env, "GINRUMMY_MIGRATE": "0"}
        servers = [first]
        for profile in profiles[1:count]:
            servers.append(start_server(database_url, log_dir, others, profile=profile, root=root))
            stack.callback(stop_server, servers[-1])
        await asyncio.gather(*(wait_healthy(s.url, s.process) for s in servers[1:]))
        yield servers


async def scrape_metrics(url: str) -> dict[str, float]:
    """The server's /metrics as ``{name{labels}: value}`` (summed over label sets by name too)."""
    async with aiohttp.ClientSession() as s, s.get(url + "/metrics") as r:
        return parse_metrics(await r.text())


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus's text format as :func:`scrape_metrics` gives it."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[sample.name] = out.get(sample.name, 0.0) + sample.value
            if sample.labels:
                labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
                key = f"{sample.name}{{{labels}}}"
                out[key] = out.get(key, 0.0) + sample.value
    return out
