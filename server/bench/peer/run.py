"""One round of one target of the peer benchmark: a fresh server (ours on SQLite, or on a fresh
Postgres database with one or two replicas; or boardgame.io in memory or on FlatFile), the Node
load generator set on it, and the server processes' CPU time and RSS (and Postgres's, for ours
on it) sampled at the phase boundaries the generator is told to cross."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.bench.load.measure import cpu_seconds, named_cpu_seconds, rss_bytes
from server.bench.load.servers import (
    DEFAULT_POSTGRES_ADMIN,
    ROOT,
    free_port,
    postgres_database,
    start_server,
    stop_server,
    wait_healthy,
)


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    """``ours-hvh``, ``bgio-memory``, ``bgio-flatfile`` or ``ours-hvc``."""
    title: str
    server: str
    """``ours`` or ``bgio``."""
    mode: str = "hvh"
    storage: str = "memory"
    env: tuple[tuple[str, str], ...] = ()
    """Ours: more environment variables of the server (a variant)."""
    root: Path | None = None
    """Ours: the checkout to run the server from (a variant; None: this one)."""
    database: str = "sqlite"
    """Ours: ``sqlite`` (a file of its own) or ``postgres`` (a fresh database each round)."""
    replicas: int = 1
    """Ours on Postgres: server processes; the two seats of each match play on different ones."""

    def as_variant(self, name: str, env: dict[str, str], root: Path | None) -> Target:
        """This target run as variant ``name``: named ``<target>@<name>``."""
        return Target(
            f"{self.name}@{name}",
            f"{self.title} [{name}]",
            self.server,
            self.mode,
            self.storage,
            tuple(env.items()),
            root,
            self.database,
            self.replicas,
        )


TARGETS = {
    t.name: t
    for t in (
        Target("ours-hvh", "ours, human vs human, SQLite (committed before acked)", "ours"),
        Target("bgio-memory", "boardgame.io 0.50, in memory", "bgio"),
        Target("bgio-flatfile", "boardgame.io 0.50, FlatFile", "bgio", storage="flatfile"),
        Target("ours-hvc", "ours, human vs the computer, SQLite (per human action)", "ours", mode="hvc"),
        Target("ours-pg1", "ours, human vs human, Postgres, one process", "ours", database="postgres"),
        Target(
            "ours-pg2",
            "ours, human vs human, Postgres, two replicas (a match's seats on both)",
            "ours",
            database="postgres",
            replicas=2,
        ),
    )
}
DEFAULT_TARGETS = ("ours-hvh", "bgio-memory", "bgio-flatfile", "ours-hvc")
"""Run unless ``--targets`` says otherwise (the Postgres targets need a reachable Postgres)."""


@dataclass(frozen=True, slots=True)
class Options:
    matches: int = 100
    paced: float = 20.0
    saturated: float = 10.0
    think: float = 2.0
    difficulty: str = "normal"
    deflate: bool = True
    postgres_admin: str = DEFAULT_POSTGRES_ADMIN
    """Where the Postgres targets create (and then drop) their fresh database."""


@dataclass
class Figures:
    """One target's figures from one round."""

    target: str
    matches: int
    setup_errors: int = 0
    setup_seconds: float = 0.0
    setup_retries: int = 0
    """REST calls of the setup answered ``503 unavailable`` and sent again."""
    paced_moves: int = 0
    saturated_moves: int = 0
    new_matches_saturated: int = 0
    """Matches the load generator started in the saturated phase, each after one ended (ours
    only: boardgame.io's benchmark game never ends); each a REST create and join and two hellos
    the server spends CPU on that no move counts."""
    moves_per_s_saturated: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    cpu_ms_per_move_paced: float | None = None
    cpu_ms_per_move_saturated: float | None = None
    kb_per_match: float | None = None
    db_cpu_ms_per_move_paced: float | None = None
    """Ours on Postgres: the database's processes' CPU per move (ours counts only its own)."""
    db_cpu_ms_per_move_saturated: float | None = None
    loadgen_cores: float | None = None
    errors: dict[str, int] = field(default_factory=dict)


@contextlib.contextmanager
def _bgio_server(node_dir: Path, storage: str, folder: Path) -> Iterator[tuple[list[str], list[int]]]:
    port = free_port()
    log = open(folder / f"bgio-{port}.log", "ab")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        ["node", "bgio_server.js", str(port), storage, str(folder / "flatfile")],
        cwd=node_dir,
        env={**os.environ, "NODE_ENV": "production"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"boardgame.io exited with {process.returncode}")
            try:
                with urllib.request.urlopen(url + "/games", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("boardgame.io did not answer in 30 s")
            time.sleep(0.1)
        yield [url], [process.pid]
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@contextlib.contextmanager
def _fresh_postgres(admin: str) -> Iterator[str]:
    """A fresh Postgres database for one round (dropped after it); its URL."""
    loop = asyncio.new_event_loop()
    database = postgres_database(admin)
    try:
        try:
            url = loop.run_until_complete(database.__aenter__())
        except OSError as e:
            raise RuntimeError(f"Postgres at {admin} is not reachable: {e}") from e
        try:
            yield url
        finally:
            loop.run_until_complete(database.__aexit__(None, None, None))
    finally:
        loop.close()


@contextlib.contextmanager
def _our_server(folder: Path, target: Target, options: Options) -> Iterator[tuple[list[str], list[int]]]:
    with contextlib.ExitStack() as stack:
        if target.database == "postgres":
            url = stack.enter_context(_fresh_postgres(options.postgres_admin))
        else:
            url = f"sqlite+aiosqlite:///{folder / 'ginrummy.db'}"
        servers = []
        for n in range(target.replicas):
            # The first migrates the fresh database; the others start on it once it is ready.
            env = {"GINRUMMY_BOT_DELAY": "0", **({"GINRUMMY_MIGRATE": "0"} if n else {}), **dict(target.env)}
            server = start_server(url, folder, env=env, root=target.root or ROOT)
            stack.callback(stop_server, server)
            servers.append(server)
            asyncio.run(wait_healthy(server.url, server.process))
        yield [s.url for s in servers], [s.pid for s in servers if s.pid is not None]


class _Generator:
    """The Node load generator as a child process, spoken to by lines."""

    def __init__(self, node_dir: Path, config: dict[str, Any]) -> None:
        self.process = subprocess.Popen(
            ["node", "loadgen.js", json.dumps(config)],
            cwd=node_dir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )  # its stderr (the first few setup errors, say) is ours
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def event(self, timeout: float) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"the load generator said nothing in {timeout:.0f} s") from None
        if line is None:
            raise RuntimeError(f"the load generator stopped ({self.process.wait()})")
        event: dict[str, Any] = json.loads(line)
        return event

    def tell(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.tell("stop")
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def run_round(node_dir: Path, target: Target, options: Options) -> Figures:
    with tempfile.TemporaryDirectory(prefix=f"peer-{target.name.replace('@', '-')}-") as tmp:
        folder = Path(tmp)
        server = (
            _our_server(folder, target, options)
            if target.server == "ours"
            else _bgio_server(node_dir, target.storage, folder)
        )
        with server as (urls, pids):
            return _drive(node_dir, target, options, urls, pids)


def _cpu(*pids: int) -> float:
    total = 0.0
    for pid in pids:
        used = cpu_seconds(pid)
        if used is None:
            raise RuntimeError(f"process {pid} is gone")
        total += used
    return total


def _rss(pids: list[int]) -> int:
    return sum(rss_bytes(pid) or 0 for pid in pids)


def _drive(node_dir: Path, target: Target, options: Options, urls: list[str], pids: list[int]) -> Figures:
    idle_rss = _rss(pids)
    db = target.database == "postgres"
    config = {
        "target": target.server,
        "url": urls[0],
        "urls": urls,
        "matches": options.matches,
        "mode": target.mode,
        "difficulty": options.difficulty,
        "think": options.think,
        "deflate": options.deflate,
    }
    gen = _Generator(node_dir, config)
    figures = Figures(target.name, options.matches)
    try:
        ready = gen.event(timeout=60 + 1.5 * options.matches)
        figures.setup_errors = int(ready["setup_errors"])
        figures.setup_seconds = float(ready["setup_seconds"])
        figures.setup_retries = int(ready.get("unavailable", 0))
        gen_cpu0 = _cpu(gen.process.pid)
        db0 = named_cpu_seconds("postgres") if db else 0.0
        cpu0, t0 = _cpu(*pids), time.monotonic()
        gen.tell("paced")
        time.sleep(options.paced)
        cpu1 = _cpu(*pids)
        db1 = named_cpu_seconds("postgres") if db else 0.0
        paced_rss = _rss(pids)
        gen.tell("saturated")
        paced = gen.event(timeout=30)
        time.sleep(options.saturated)
        cpu2 = _cpu(*pids)
        db2 = named_cpu_seconds("postgres") if db else 0.0
        gen_cpu2 = _cpu(gen.process.pid)
        t2 = time.monotonic()
        gen.tell("stop")
        saturated = gen.event(timeout=30)
    finally:
        gen.close()
    figures.paced_moves = int(paced["moves"])
    figures.saturated_moves = int(saturated["moves"])
    figures.new_matches_saturated = int(saturated.get("new_matches", 0))
    figures.p50_ms = paced["p50_ms"]
    figures.p99_ms = paced["p99_ms"]
    if figures.saturated_moves:
        figures.moves_per_s_saturated = figures.saturated_moves / float(saturated["seconds"])
        figures.cpu_ms_per_move_saturated = 1000 * (cpu2 - cpu1) / figures.saturated_moves
        if db:
            figures.db_cpu_ms_per_move_saturated = 1000 * (db2 - db1) / figures.saturated_moves
    if figures.paced_moves:
        figures.cpu_ms_per_move_paced = 1000 * (cpu1 - cpu0) / figures.paced_moves
        if db:
            figures.db_cpu_ms_per_move_paced = 1000 * (db1 - db0) / figures.paced_moves
    figures.kb_per_match = (paced_rss - idle_rss) / 1024 / options.matches
    figures.loadgen_cores = (gen_cpu2 - gen_cpu0) / (t2 - t0)
    for phase in (paced, saturated):
        for code, n in phase["errors"].items():
            figures.errors[code] = figures.errors.get(code, 0) + int(n)
    return figures
