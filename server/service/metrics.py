"""Prometheus metrics, one registry per app (so several apps can live in one test process).

Labels are closed sets (action kinds, routes, statuses): never a match id, a name or a card.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from .clock import Clock, SystemClock
from .loop_metrics import LoopMetrics

# Seconds: fine below 100 ms, where the latency target is.
LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


class Metrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self, clock: Clock | None = None) -> None:
        r = self.registry = CollectorRegistry()
        self._children: dict[tuple[Any, tuple[str, ...]], Any] = {}
        self.players_created = Counter("ginrummy_players_created", "Identities created", registry=r)
        self.matches_created = Counter(
            "ginrummy_matches_created", "Matches created", ["opponent", "rules"], registry=r
        )
        self.matches_finished = Counter(
            "ginrummy_matches_finished", "Matches finished", ["reason"], registry=r
        )
        # Counted on every move, on the loop's thread only: no lock (:mod:`.loop_metrics`).
        loop = LoopMetrics(r, (clock or SystemClock()).now().timestamp())
        self.actions = loop.counter("ginrummy_actions", "Actions committed", ("kind", "by"))
        self.action_errors = Counter("ginrummy_action_errors", "Actions refused", ["code"], registry=r)
        self.commit_seconds = loop.histogram(
            "ginrummy_commit_seconds", "Time to commit one match write", LATENCY
        )
        self.commit_batch_size = loop.histogram(
            "ginrummy_commit_batch_size",
            "Match writes committed together in one transaction (group commit)",
            (1, 2, 5, 10, 20, 50, 100, 200),
        )
        self.action_seconds = loop.histogram(
            "ginrummy_action_seconds",
            "From a WebSocket act received to its ack sent (validation, commit)",
            LATENCY,
        )
        self.ws_errors = Counter(
            "ginrummy_ws_errors", "Error answers sent on WebSockets", ["code"], registry=r
        )
        self.notifications = Counter(
            "ginrummy_notifications",
            "Changes by another server process to a match held here, caught up on",
            registry=r,
        )
        self.bot_seconds = Histogram(
            "ginrummy_bot_think_seconds", "Computer move computation time", registry=r
        )
        self.thinking_queue = Gauge(
            "ginrummy_thinking_queue",
            "Computer decisions sent to the thinking workers and not answered yet",
            registry=r,
        )
        self.bot_lighter = Counter(
            "ginrummy_bot_lighter",
            "Hard decisions made with fewer simulations because the thinking workers were behind",
            registry=r,
        )
        self.live_matches = Gauge(
            "ginrummy_live_matches", "Matches in play (waiting or active) held in memory", registry=r
        )
        self.cached_matches = Gauge(
            "ginrummy_cached_matches", "Matches held in memory, finished ones included", registry=r
        )
        self.ws_connections = Gauge("ginrummy_ws_connections", "Open WebSocket connections", registry=r)
        self.ws_dropped = Counter(
            "ginrummy_ws_dropped",
            "WebSockets the server closed on its own: heartbeat (silent past a ping), slow_consumer"
            " (stopped reading its messages)",
            ["reason"],
            registry=r,
        )
        self.ws_messages = loop.counter("ginrummy_ws_messages", "WebSocket messages received", ("type",))
        self.http_requests = Counter(
            "ginrummy_http_requests", "HTTP requests", ["method", "route", "status"], registry=r
        )
        self.http_seconds = Histogram("ginrummy_http_seconds", "HTTP request duration", ["route"], registry=r)
        self.rate_limited = Counter(
            "ginrummy_rate_limited", "Requests refused by a limit", ["limit"], registry=r
        )
        self.refused = Counter(
            "ginrummy_refused",
            "New players refused while the process was overloaded (server/service/admission.py):"
            " a new match, a seek",
            ["what"],
            registry=r,
        )
        self.busy = Gauge(
            "ginrummy_busy", "1 while the process refuses new players (its commits take too long)", registry=r
        )

    def labelled(self, metric: Any, *values: str) -> Any:
        """``metric.labels(*values)`` of a prometheus_client metric, remembered: it checks and
        converts the values and takes a lock on every call (1.7 of the 2.4 us an action's count
        cost). The loop's counters remember their children themselves: call their ``labels``."""
        key = (metric, values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def render(self) -> bytes:
        return generate_latest(self.registry)
