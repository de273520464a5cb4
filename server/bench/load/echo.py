"""The echo floor: a bare aiohttp WebSocket echo server in its own process, and the round trips
per second the same number of clients get from it: what aiohttp alone costs."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from server.bench.load.clients import CLIENTS_PER_ADDRESS, _encode, client_sessions, gather_limited
from server.bench.load.figures import latency_summary
from server.bench.load.measure import cpu_seconds
from server.bench.load.servers import ROOT, free_port, wait_healthy


def serve_echo(port: int) -> None:
    """A bare aiohttp WebSocket echo server (the floor): what aiohttp alone costs."""
    from aiohttp import web

    async def echo(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for msg in ws:
            if msg.type == aiohttp.WSMsgType.TEXT:
                await ws.send_str(msg.data)
            elif msg.type == aiohttp.WSMsgType.BINARY:
                await ws.send_bytes(msg.data)
        return ws

    async def health(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_get("/ws", echo)
    app.router.add_get("/healthz", health)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


async def echo_floor(clients: int, seconds: float, log_dir: Path) -> dict[str, Any]:
    """Round trips per second of ``clients`` sockets each sending act-sized messages as fast as
    the echo answers them."""
    port = free_port()
    log = open(log_dir / "echo.log", "wb")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        [sys.executable, "-m", "server.bench", "load", "--serve-echo", str(port)],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    payload = _encode(
        {"type": "act", "id": "a123456", "version": 42, "action": {"kind": "discard", "card": "7h"}}
    )
    latencies: list[float] = []
    stop = False
    try:
        await wait_healthy(url, process)
        async with client_sessions(clients, url) as sessions:
            sockets = await gather_limited(
                [sessions[i // CLIENTS_PER_ADDRESS].ws_connect(url + "/ws") for i in range(clients)], 100
            )

            async def loop(ws: aiohttp.ClientWebSocketResponse) -> None:
                while not stop:
                    t0 = time.perf_counter()
                    await ws.send_bytes(payload)
                    msg = await ws.receive()
                    if msg.type != aiohttp.WSMsgType.BINARY:
                        raise ConnectionError("echo socket closed")
                    latencies.append(time.perf_counter() - t0)

            tasks = [asyncio.ensure_future(loop(ws)) for ws in sockets]
            await asyncio.sleep(min(1.0, seconds / 5))  # warm up
            latencies.clear()
            started, cpu_before = time.perf_counter(), cpu_seconds(process.pid)
            await asyncio.sleep(seconds)
            count, elapsed = len(latencies), time.perf_counter() - started
            cpu_after = cpu_seconds(process.pid)
            stop = True
            await asyncio.wait(tasks, timeout=5)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
    measured = latencies[:count]
    cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "round_trips_per_second": count / elapsed,
        "latency": latency_summary(measured),
        "server_cpu_ms_per_round_trip": 1000 * cpu / count if cpu is not None and count else None,
    }
