"""Admission: whether this process takes on new players now, or asks them to come back.

Past its ceiling a server process does not keep its ceiling's pace: every action waits
seconds for its commit, and one process at 10,000 live matches carried half to four fifths of
what it carries at its ceiling (docs/benchmarks.md, stops 56 and 57). The players already
seated are the ones to keep served, so while the process is overloaded it refuses what would
bring it more players: a new match (``POST /api/matches``) and a seek (the lobby socket). The
players refused are told ``unavailable`` with a time to try again in (REST: ``503`` and
``Retry-After``); the browser shows it and the Python client comes back after it. Everything a
seated player does goes on: their actions, a hello to their match (held in memory or not: a
match in play is a seat taken, and a match just made may be dropped from memory before its
first hello), a rematch, a join of a match already made.

Overloaded means: commits take long. How long a commit takes (from the change handed to the
store to its answer being seen) holds the database's own time and the event loop's backlog, as
the answer waits its turn on the loop: at an ordinary load a few milliseconds, past the ceiling
seconds. The estimate is a moving average over commits (each weighs ``WEIGHT``), so one slow
commit (a checkpoint) does not turn players away; the process is busy once the estimate
passes ``max_wait`` and stays so until it falls below half of it. With no commit for ``hold``
seconds nothing is waiting, so nothing is busy. ``max_wait`` 0 admits everything.

This module reads the service's clock only; it decides nothing about the game.
"""

from __future__ import annotations

from .clock import Clock
from .errors import Unavailable
from .metrics import Metrics

MAX_WAIT = 0.1
"""Seconds a commit may take on average before new players are refused, by default
(``GINRUMMY_ADMIT_WAIT``). Where a process past its capacity settles is where its commits take
about this long: at 10,000 players arriving at once, 0.25 s let in about 7,000 with acks' p99
at 0.4-0.5 s, 0.05-0.08 s about 5,800 at 0.23-0.24 s, and 0.01 s fewer still (4,400) at no
shorter a tail (docs/benchmarks.md, stop 58). Low enough to keep the tail short, high enough
that a database a few milliseconds away never counts as overloaded."""
WEIGHT = 0.05
"""The share of the estimate each commit's time takes (about the last 20 commits count)."""

RETRY_IN = 5.0
"""Seconds a refused player is asked to wait before trying again."""


class Busy(Unavailable):
    """Refused while the process is overloaded: try again in ``retry_in`` seconds."""

    def __init__(self, message: str, *, retry_in: float) -> None:
        super().__init__(message)
        self.retry_in = retry_in


class Admission:
    """Whether new players are let in (:meth:`check`), from the commits' times (:meth:`observe`)."""

    def __init__(
        self, clock: Clock, metrics: Metrics, *, max_wait: float = MAX_WAIT, hold: float = 2.0
    ) -> None:
        if max_wait < 0 or hold <= 0:
            raise ValueError("the admission's wait cannot be negative (0: off) and its hold must be positive")
        self.clock = clock
        self.metrics = metrics
        self.max_wait = max_wait
        """Seconds a commit may take on average before new players are refused (0: never)."""
        self.hold = hold
        """Seconds without any commit after which nothing counts as waiting."""
        self.estimate = 0.0
        """Seconds a commit takes, on average over the last few."""
        self._busy = False
        self._last = float("-inf")

    def observe(self, seconds: float) -> None:
        """A commit took ``seconds``."""
        self.estimate += WEIGHT * (seconds - self.estimate)
        self._last = self.clock.monotonic()
        if self._busy:
            self._busy = self.estimate >= self.max_wait / 2
        else:
            self._busy = self.max_wait > 0 and self.estimate > self.max_wait

    @property
    def busy(self) -> bool:
        """Whether new players are refused now."""
        if self._busy and self.clock.monotonic() - self._last > self.hold:
            self._busy, self.estimate = False, 0.0  # nothing committed for a while: no queue
        return self._busy

    def check(self, what: str) -> None:
        """Raise :class:`Busy` while the process is overloaded; ``what`` (``match``, ``seek``)
        is counted in the metrics by what was refused."""
        if self.busy:
            self.metrics.refused.labels(what).inc()
            raise Busy(f"the server is busy: try again in {RETRY_IN:.0f} seconds", retry_in=RETRY_IN)
