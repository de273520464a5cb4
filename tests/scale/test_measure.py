"""The benchmarks' CPU readings from ``/proc``: a process's own, and every process of a name."""

from __future__ import annotations

import os
import time
from pathlib import Path

from server.bench.load.measure import cpu_seconds, named_cpu_seconds


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_cpu_seconds_of_a_pid_counts_its_work() -> None:
    before = cpu_seconds(os.getpid())
    assert before is not None
    _burn(0.2)
    after = cpu_seconds(os.getpid())
    assert after is not None and after - before >= 0.15


def test_cpu_seconds_of_a_missing_pid_is_none() -> None:
    assert cpu_seconds(2**22 + 1) is None  # above Linux's largest pid


def test_named_cpu_seconds_sums_the_processes_of_that_name() -> None:
    name = Path("/proc/self/comm").read_text().strip()
    _burn(0.2)
    own = cpu_seconds(os.getpid())
    assert own is not None
    # This process is one of them (its children are not: they are counted by pid only).
    assert named_cpu_seconds(name) >= own - 0.05
    assert named_cpu_seconds("no-such-process-name") == 0.0
