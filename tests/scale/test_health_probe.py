"""The restart benchmark's health probe (``server.bench.health_probe``): a process of its own
that probes ``/healthz`` on a new connection each time until it is stopped, and its report."""

from __future__ import annotations

import asyncio

from aiohttp import web

from server.bench import health_probe


async def test_the_probe_counts_answers_and_failures_until_stopped(aiohttp_server):
    seen: list[str | None] = []

    async def healthz(request: web.Request) -> web.Response:
        seen.append(request.headers.get("Connection"))
        return web.json_response({"status": "ok"}, status=200 if len(seen) <= 2 else 503)

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    server = await aiohttp_server(app)
    url = str(server.make_url("")).rstrip("/")
    prober = await asyncio.to_thread(health_probe.start, url)
    for _ in range(200):
        if len(seen) >= 4:
            break
        await asyncio.sleep(0.05)
    probes = await asyncio.to_thread(health_probe.stop, prober)
    assert prober.returncode == 0
    assert len(probes) == len(seen) >= 4
    # Two 200s timed, then the 503s counted as failed, by their status.
    assert all(isinstance(s, float) and 0 < s < health_probe.TIMEOUT for s in probes[:2])
    assert probes[2:] == ["503"] * (len(probes) - 2)
    assert set(seen) == {"close"}  # a new connection each time, as an orchestrator's probe


async def test_a_refused_connection_is_a_failed_probe_named_by_its_error(unused_tcp_port):
    prober = await asyncio.to_thread(health_probe.start, f"http://127.0.0.1:{unused_tcp_port}")
    await asyncio.sleep(0.3)
    probes = await asyncio.to_thread(health_probe.stop, prober)
    assert probes and set(probes) == {"ConnectionRefusedError"}


def test_the_report_gives_the_median_the_slowest_and_the_failures():
    assert health_probe.report([0.004, "503", 1.5, 0.002, 0.003, "TimeoutError", "503"]) == (
        "health probes while the players came back: 7, median 3 ms, slowest 1500 ms, over 1 s: 1, "
        "failed: 3 (2 503, 1 TimeoutError)"
    )
    assert health_probe.report(["503", "503"]) == (
        "health probes while the players came back: 2, none answered (2 503)"
    )
