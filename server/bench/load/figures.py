"""The load run's figures: percentiles, latency summaries and each phase's counts."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (nearest rank) of ``values``, None when empty.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50)
    3.0
    >>> percentile([float(v) for v in range(1, 101)], 99)
    99.0
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def latency_summary(seconds: list[float]) -> dict[str, float | None]:
    ms = [s * 1000 for s in seconds]
    return {
        "count": len(ms),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "max_ms": max(ms) if ms else None,
        "mean_ms": statistics.fmean(ms) if ms else None,
    }


@dataclass
class PhaseStats:
    name: str
    started: float = field(default_factory=time.perf_counter)
    ended: float | None = None
    sent: int = 0
    acked: int = 0
    ack_latency: list[float] = field(default_factory=list)
    reply_latency: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    resent: int = 0  # acts answered ``unavailable`` and sent again, as the protocol asks
    matches_finished: int = 0

    def close(self) -> None:
        self.ended = time.perf_counter()

    @property
    def seconds(self) -> float:
        return (self.ended or time.perf_counter()) - self.started

    def report(self) -> dict[str, Any]:
        return {
            "seconds": round(self.seconds, 2),
            "actions_sent": self.sent,
            "actions_acked": self.acked,
            "actions_per_second": self.acked / self.seconds if self.seconds else 0.0,
            "ack_latency": latency_summary(self.ack_latency),
            "reply_latency": latency_summary(self.reply_latency),
            "errors": dict(self.errors),
            "error_count": sum(self.errors.values()),
            "resent": self.resent,
            "matches_finished": self.matches_finished,
        }
