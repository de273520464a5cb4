"""The per-move metrics counted without a lock (server/service/loop_metrics.py) expose exactly
what prometheus_client's own Counter and Histogram would for the same observations."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from server.service.loop_metrics import LoopMetrics
from server.service.metrics import LATENCY


def exposed(registry: CollectorRegistry) -> str:
    """The text exposition less the creation times (when each metric was made)."""
    return re.sub(r"(_created(\{[^}]*\})?) \S+", r"\1 T", generate_latest(registry).decode())


amounts = st.lists(st.floats(min_value=-1.0, max_value=100.0) | st.sampled_from(LATENCY), max_size=40)
counts = st.lists(
    st.tuples(st.sampled_from(["draw", "discard", "knock"]), st.sampled_from(["human", "computer"]))
)


@given(amounts, counts)
def test_the_loops_metrics_expose_what_prometheus_clients_own_would(observed, counted):
    theirs, ours = CollectorRegistry(), CollectorRegistry()
    loop = LoopMetrics(ours, 1.0e9)
    histograms = [
        (
            Histogram("t_seconds", "latency", buckets=LATENCY, registry=theirs),
            loop.histogram("t_seconds", "latency", LATENCY),
        ),
        (
            Histogram("t_size", "sizes", buckets=(1, 2, 5, 10), registry=theirs),
            loop.histogram("t_size", "sizes", (1, 2, 5, 10)),
        ),
    ]
    labelled = (
        Counter("t_actions", "actions", ["kind", "by"], registry=theirs),
        loop.counter("t_actions", "actions", ("kind", "by")),
    )
    plain = (Counter("t_plain", "plain", registry=theirs), loop.counter("t_plain", "plain"))
    for amount in observed:
        for pair in histograms:
            for h in pair:
                h.observe(amount)
    for kind, by in counted:
        for c in labelled:
            c.labels(kind, by).inc()
        for c in plain:
            c.inc(2)
    assert exposed(ours) == exposed(theirs)


def test_a_counter_refuses_the_wrong_number_of_labels():
    counter = LoopMetrics(CollectorRegistry(), 1.0e9).counter("t_messages", "messages", ("type",))
    with pytest.raises(ValueError, match="takes the labels"):
        counter.labels("act", "extra")
    assert counter.labels("act") is counter.labels("act")
