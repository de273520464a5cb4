"""One load process of the scale mode (``python -m server.bench.load.scale_client``): it sets up
its share of the scripted players, says ``ready``, and when told ``go T0 T1`` (wall-clock
seconds) plays at the pace until ``T1``, counting only the actions sent between ``T0`` and
``T1``; when told ``stop`` it closes its sockets, prints its figures as one JSON line and
exits.

Several of these drive one server, since one Python process cannot keep up with 10,000 sockets
at a 5 s pace on top of its own collector; the parent (:mod:`server.bench.load.scale`) measures
the server over the same window."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from typing import Any

from server.bench.load.clients import CLIENTS_PER_ADDRESS, client_sessions, gather_limited
from server.bench.load.figures import PhaseStats
from server.bench.load.measure import cpu_seconds
from server.bench.load.players import Control, Player, Refused


async def _line() -> str:
    return await asyncio.to_thread(sys.stdin.readline)


async def drive(
    url: str, first: int, count: int, think: float, deflate: bool, seed: int, socket_url: str | None = None
) -> dict[str, Any]:
    # This process's own collector pauses would show up as server latency.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    control = Control(think)
    first_group = first // CLIENTS_PER_ADDRESS
    async with client_sessions(count, url, first_group) as sessions:
        players = [
            Player(
                first + i,
                sessions[i // CLIENTS_PER_ADDRESS],
                url,
                control,
                difficulty="normal",
                keep_messages=False,
                seed=seed * 1_000_003 + first + i,
            )
            for i in range(count)
        ]
        tasks: list[asyncio.Future[None]] = []

        async def join(p: Player) -> None:
            # Playing (and so reading its socket, answering the server's pings) as soon as it
            # is set up, as a person arriving would: a socket left unread through a long setup
            # misses the heartbeat and is closed.
            p.deflate = deflate
            p.socket_base = socket_url or url
            await p.setup()
            tasks.append(asyncio.ensure_future(p.play()))

        results = await gather_limited([join(p) for p in players], 50, return_exceptions=True)
        refused = [r for r in results if isinstance(r, Refused)]  # turned away by a busy server
        failed = [r for r in results if isinstance(r, BaseException) and not isinstance(r, Refused)]
        players = [p for p, r in zip(players, results) if not isinstance(r, BaseException)]
        gc.freeze()  # the players and their sockets live until the end
        print("ready", flush=True)
        words = (await _line()).split()
        start, end = float(words[1]), float(words[2])
        await asyncio.sleep(max(0.0, start - time.time()))
        control.stats = window = PhaseStats("window")
        cpu_start = cpu_seconds()
        await asyncio.sleep(max(0.0, end - time.time()))
        window.close()
        cpu_used = (cpu_seconds() or 0.0) - (cpu_start or 0.0)
        control.stats = PhaseStats("after")
        await _line()  # "stop": the parent has measured the server with every socket open
        control.stopping = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(p.ws.close() for p in players if p.ws is not None), return_exceptions=True)
    return {
        "players": len(players),
        "setup_failures": len(failed),
        "setup_refused": len(refused),
        "setup_failure_example": repr(failed[0]) if failed else None,
        "sent": window.sent,
        "acked": window.acked,
        "ack_ms": [round(s * 1000, 2) for s in window.ack_latency],
        "reply_ms": [round(s * 1000, 2) for s in window.reply_latency],
        "errors": dict(window.errors),
        "failures": [p.failure for p in players if p.failure][:3],
        "cpu_seconds": cpu_used,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m server.bench.load.scale_client")
    p.add_argument("url")
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--think", type=float, default=5.0)
    p.add_argument("--no-deflate", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--socket-url", help="open the sockets on this server (default: url)")
    args = p.parse_args(argv)
    out = asyncio.run(
        drive(args.url, args.first, args.count, args.think, not args.no_deflate, args.seed, args.socket_url)
    )
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
