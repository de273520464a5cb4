"""The scale mode's load processes, of either kind (``--load``), behind one interface: started
with their share of the players, each is asked for ``ready()`` (every player set up and
playing), told the window (``go(t0, t1)``, wall-clock seconds), then ``stop()``-ped for its
figures: the actions sent in the window and acknowledged (whenever the ack came), their ack
latencies, errors, and the process's CPU over the window.

- ``python`` (the default): :mod:`server.bench.load.scale_client` processes, at most
  ``per_client`` players each, whose players also time the computer's replies.
- ``node``: one process of the peer benchmark's Node load generator
  (``server/bench/peer_js/loadgen.js``, installed by :mod:`server.bench.peer.node`) for every
  player, on every server (a player's REST calls and socket on the same one). It costs a
  fraction of the Python load's CPU at the same pace (0.21-0.30 of a core at 1,500-2,000
  actions a second against 0.46 at 1,444: docs/benchmarks.md, stop 56), so on a small machine
  the server waits less for a core; it does not time the computer's replies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from server.bench.load.measure import cpu_seconds
from server.bench.load.servers import ROOT

if TYPE_CHECKING:
    from server.bench.load.scale import ScaleOptions

LOADS = ("python", "node")
GRACE = 2.0
"""Seconds the Node load waits after the window, on ``stop``, for the answers to its last actions."""
PATIENCE = 300.0
"""Seconds a Node load player refused by a busy server keeps coming back (then it is turned away)."""


class Load(Protocol):
    pid: int

    async def ready(self, timeout: float) -> None: ...

    async def go(self, t0: float, t1: float) -> None: ...

    async def stop(self) -> dict[str, Any]: ...

    async def kill(self) -> None: ...


async def start_loads(
    matches: int,
    urls: list[str],
    socket_urls: list[str],
    shares: list[tuple[int, int, int]],
    opts: ScaleOptions,
) -> list[Load]:
    """The load processes for ``matches`` players: Python ones by ``shares`` (``(server, first
    player, players)``), or one Node process for all."""
    if opts.load == "node":
        return [await NodeLoad.start(matches, urls, opts)]
    return [await PythonLoad.start(urls[i], socket_urls[i], first, count, opts) for i, first, count in shares]


class _Process:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pid = process.pid

    async def _line(self, timeout: float) -> bytes:
        assert self.process.stdout is not None
        return await asyncio.wait_for(self.process.stdout.readline(), timeout)

    async def _say(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()


class PythonLoad(_Process):
    """One :mod:`server.bench.load.scale_client` process."""

    @staticmethod
    async def start(url: str, socket_url: str, first: int, count: int, opts: ScaleOptions) -> PythonLoad:
        args = [
            "-m", "server.bench.load.scale_client", url, "--first", str(first), "--count", str(count),
            "--think", str(opts.think), "--seed", str(opts.seed), "--socket-url", socket_url,
        ]  # fmt: skip
        if not opts.deflate:
            args.append("--no-deflate")
        return PythonLoad(
            await asyncio.create_subprocess_exec(
                sys.executable, *args, cwd=ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
            )
        )

    async def ready(self, timeout: float) -> None:
        line = await self._line(timeout)
        if line.strip() != b"ready":
            raise RuntimeError(f"a load process failed during setup: {line!r}")

    async def go(self, t0: float, t1: float) -> None:
        await self._say(f"go {t0} {t1}")

    async def stop(self) -> dict[str, Any]:
        await self._say("stop")
        assert self.process.stdout is not None
        out = await asyncio.wait_for(self.process.stdout.read(), 120)
        await self.process.wait()
        return dict(json.loads(out.decode().strip().splitlines()[-1]))


class NodeLoad(_Process):
    """The Node load generator, for every player; the window is its phase ``window``."""

    matches = 0
    setup_errors = 0
    cpu = 0.0
    window: asyncio.Task[None] | None = None

    @staticmethod
    async def start(matches: int, urls: list[str], opts: ScaleOptions) -> NodeLoad:
        from server.bench.peer.node import install

        folder: Path = await asyncio.to_thread(install)
        config = {
            "target": "ours", "url": urls[0], "urls": urls, "matches": matches, "mode": "hvc",
            "difficulty": "normal", "think": opts.think, "deflate": opts.deflate,
            "bySend": True, "latencies": True, "graceMs": int(GRACE * 1000),
            # A player a busy server refuses comes back (waiting longer each time) for up to
            # PATIENCE: the crowd refused during the setup's burst is let in once it is over.
            "busyForMs": int(PATIENCE * 1000),
        }  # fmt: skip
        load = NodeLoad(
            await asyncio.create_subprocess_exec(
                "node",
                "loadgen.js",
                json.dumps(config),
                cwd=folder,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=2**26,
            )
        )
        load.matches = matches
        return load

    async def ready(self, timeout: float) -> None:
        line = await self._line(timeout)
        try:
            event = json.loads(line)
        except ValueError:
            event = {}
        if event.get("event") != "ready":
            raise RuntimeError(f"the Node load failed during setup: {line[-500:]!r}")
        self.setup_errors = int(event["setup_errors"])
        self.setup_refused = int(event.get("refused_setups", 0))
        self.came_back = int(event.get("came_back", 0))

    async def go(self, t0: float, t1: float) -> None:
        self.window = asyncio.ensure_future(self._window(t0, t1))

    async def _window(self, t0: float, t1: float) -> None:
        await asyncio.sleep(max(0.0, t0 - time.time()))
        await self._say("window")
        before = cpu_seconds(self.pid) or 0.0
        await asyncio.sleep(max(0.0, t1 - time.time()))
        await self._say("after")
        self.cpu = (cpu_seconds(self.pid) or 0.0) - before

    async def stop(self) -> dict[str, Any]:
        assert self.window is not None and self.process.stdout is not None
        await self.window
        await self._say("stop")
        out = await asyncio.wait_for(self.process.stdout.read(), 120 + GRACE)
        await self.process.wait()
        phases = {
            e["name"]: e for e in map(json.loads, out.decode().splitlines()) if e.get("event") == "phase"
        }
        window = phases["window"]
        return {
            "players": self.matches - self.setup_errors - self.setup_refused,
            "setup_failures": self.setup_errors,
            "setup_refused": self.setup_refused,
            "setup_came_back": self.came_back,
            "acked": window["moves"],
            "ack_ms": window["latencies_ms"],
            "reply_ms": [],
            "errors": window["errors"],
            "failures": [],
            "cpu_seconds": self.cpu,
        }
