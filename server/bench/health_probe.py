"""``python -m server.bench health_probe URL``: probe ``URL/healthz`` as an orchestrator would
(a new connection every ``EVERY`` seconds, ``TIMEOUT`` seconds to answer) until SIGTERM or
Ctrl-C, then print each probe's seconds to a 200 as a JSON list (or, for a failed one, the status it
got or the error's name).

A process of its own, so a busy load generator's event loop does not slow the probes it
measures (the restart benchmark runs one while its players come back)."""

from __future__ import annotations

import argparse
import collections
import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from server.bench.load.figures import percentile

EVERY = 0.5
"""Seconds between two probes."""
TIMEOUT = 10.0
"""Seconds a probe waits for its answer before it counts as failed."""


Probe = float | str
"""A probe's seconds to a 200, or why it failed: the status it got, else the error's name."""


def probe(url: str, stop: threading.Event) -> list[Probe]:
    probes: list[Probe] = []
    while not stop.is_set():
        started = time.perf_counter()
        outcome: Probe
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=TIMEOUT) as r:
                outcome = time.perf_counter() - started if r.status == 200 else str(r.status)
        except urllib.error.HTTPError as e:
            outcome = str(e.code)
        except OSError as e:  # refused, reset, timed out
            reason = e.reason if isinstance(e, urllib.error.URLError) else e
            outcome = type(reason).__name__
        probes.append(outcome)
        stop.wait(EVERY)
    return probes


READY = b"probing\n"
"""The process's first line: it has started and will answer SIGTERM with its figures."""


def start(url: str) -> subprocess.Popen[bytes]:
    """A probing process, once it is probing (``stop`` ends it and returns its figures)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "server.bench.health_probe", url], stdout=subprocess.PIPE
    )
    assert process.stdout is not None
    if process.stdout.readline() != READY:
        process.kill()
        raise RuntimeError("the health probe did not start")
    return process


def stop(process: subprocess.Popen[bytes]) -> list[Probe]:
    process.terminate()
    out, _ = process.communicate(timeout=TIMEOUT + 5)
    figures: list[Probe] = json.loads(out)
    return figures


def report(probes: list[Probe]) -> str:
    answered = sorted(p for p in probes if isinstance(p, float))
    failed = collections.Counter(p for p in probes if isinstance(p, str))
    why = " (" + ", ".join(f"{n} {reason}" for reason, n in sorted(failed.items())) + ")" if failed else ""
    head = f"health probes while the players came back: {len(probes)}"
    if not answered:
        return f"{head}, none answered{why}"
    median = percentile(answered, 50) or 0.0  # nearest rank, as the load benchmark's p50
    return (
        f"{head}, median {median * 1000:.0f} ms, slowest {answered[-1] * 1000:.0f} ms, "
        f"over 1 s: {sum(1 for s in answered if s > 1)}, failed: {sum(failed.values())}{why}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m server.bench health_probe", description=__doc__.split("\n")[0]
    )
    p.add_argument("url", help="the server's base URL, e.g. http://127.0.0.1:8000")
    args = p.parse_args(argv)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    sys.stdout.buffer.write(READY)
    sys.stdout.flush()
    print(json.dumps(probe(args.url.rstrip("/"), stopping)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
