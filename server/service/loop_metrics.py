"""Counters and histograms counted on every move, as plain numbers the event loop's thread adds
to, exposed through a prometheus_client collector when ``/metrics`` is read.

prometheus_client's own ``Counter.inc`` and ``Histogram.observe`` take a lock on every call
(they may be called from any thread) and check their arguments: 0.33 and 0.71 microseconds
here, against 0.04 and 0.14 for these, and a move counts two of each. These are only ever
touched on the loop's thread (the service, the WebSocket handler, the group commit's write loop
and the ``/metrics`` handler all run there), so they need no lock. The samples they expose are
the ones prometheus_client's would: ``_total`` and ``_created`` for a counter; ``_bucket``
(cumulative, ``le`` as prometheus_client spells it), ``_count``, ``_sum`` and ``_created`` for
a histogram (``created``: when the registry was made, read from the service's clock; a labelled
counter's children share it, where prometheus_client stamps each child when its labels are
first used: either is a time before which the count was zero).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector


class LoopCounter:
    """A counter with labels (``labels(*values).inc()``), or without (``inc()``)."""

    def __init__(self, name: str, documentation: str, labelnames: tuple[str, ...], created: float) -> None:
        self.name = name
        self.documentation = documentation
        self.labelnames = labelnames
        self.children: dict[tuple[str, ...], LoopCounter] = {}
        self.value = 0.0
        self.created = created

    def labels(self, *values: str) -> LoopCounter:
        child = self.children.get(values)
        if child is None:
            if len(values) != len(self.labelnames):
                raise ValueError(f"{self.name} takes the labels {self.labelnames}, not {values}")
            child = self.children[values] = LoopCounter(self.name, self.documentation, (), self.created)
        return child

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount

    def collect(self) -> Metric:
        family = CounterMetricFamily(self.name, self.documentation, labels=self.labelnames)
        if self.labelnames:
            for values, child in self.children.items():
                family.add_metric(list(values), child.value, created=child.created)
        else:
            family.add_metric([], self.value, created=self.created)
        return family


class LoopHistogram:
    """A histogram without labels, over ``buckets`` (their upper bounds, ascending)."""

    def __init__(self, name: str, documentation: str, buckets: tuple[float, ...], created: float) -> None:
        self.name = name
        self.documentation = documentation
        self.bounds = tuple(float(b) for b in buckets)
        self.counts = [0] * (len(self.bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0
        self.created = created

    def observe(self, amount: float) -> None:
        self.counts[bisect_left(self.bounds, amount)] += 1
        self.sum += amount

    def collect(self) -> Metric:
        cumulative, buckets = 0, []
        for bound, count in zip((*self.bounds, float("inf")), self.counts):
            cumulative += count
            buckets.append(("+Inf" if bound == float("inf") else repr(bound), cumulative))
        family = HistogramMetricFamily(self.name, self.documentation)
        family.add_metric([], buckets, self.sum)
        family.add_sample(f"{self.name}_created", {}, self.created)
        return family


class LoopMetrics(Collector):
    """The loop's counters and histograms, collected into ``registry``, made at ``created`` (a
    Unix time)."""

    def __init__(self, registry: CollectorRegistry, created: float) -> None:
        self.created = created
        self.metrics: list[LoopCounter | LoopHistogram] = []
        registry.register(self)

    def counter(self, name: str, documentation: str, labelnames: tuple[str, ...] = ()) -> LoopCounter:
        metric = LoopCounter(name, documentation, labelnames, self.created)
        self.metrics.append(metric)
        return metric

    def histogram(self, name: str, documentation: str, buckets: tuple[float, ...]) -> LoopHistogram:
        metric = LoopHistogram(name, documentation, buckets, self.created)
        self.metrics.append(metric)
        return metric

    def collect(self) -> Iterator[Metric]:
        for metric in self.metrics:
            yield metric.collect()
