"""The README's table of Prometheus metrics (Hosting) is what ``/metrics`` exposes: every metric
the server registers is listed with its labels, and nothing listed is missing. (It had drifted:
labels left out, fourteen metrics never named.)"""

from __future__ import annotations

import re
from pathlib import Path

from prometheus_client import CollectorRegistry

from server.service.loop_metrics import LoopCounter, LoopHistogram
from server.service.metrics import Metrics
from server.transport.gcwatch import GcWatch

README = Path(__file__).resolve().parent.parent / "README.md"
METRIC = re.compile(r"`(ginrummy_\w+)(?:\{([\w,]*)\})?`")


def documented() -> dict[str, tuple[str, ...]]:
    """Each metric named in the README's ``/metrics`` table, with the labels it is given there."""
    text = README.read_text()
    start = text.index("`/metrics` (Prometheus")
    table = re.search(r"^\| Kind \| Metrics \|\n(?:^\|.*\n)+", text[start:], re.M)
    assert table, "the README's Hosting section has no table of metrics"
    return {
        name: tuple(labels.split(",")) if labels else () for name, labels in METRIC.findall(table.group(0))
    }


def exposed() -> dict[str, tuple[str, ...]]:
    """Each metric family ``/metrics`` shows (counters with the ``_total`` they are scraped
    under), with its label names: the service's metrics and the collector watch's, which the
    server registers at start."""
    metrics = Metrics()
    watch = GcWatch(metrics.registry)
    labels: dict[str, tuple[str, ...]] = {}
    for metric in [*vars(metrics).values(), *vars(watch).values()]:
        if isinstance(metric, LoopCounter):
            labels[metric.name] = metric.labelnames
        elif isinstance(metric, LoopHistogram):
            labels[metric.name] = ()
        elif hasattr(metric, "_labelnames") and hasattr(metric, "_name"):
            labels[metric._name] = tuple(metric._labelnames)
    registry: CollectorRegistry = metrics.registry
    out = {}
    for family in registry.collect():
        assert family.name in labels, f"{family.name}: registered, but not an attribute seen here"
        out[family.name + ("_total" if family.type == "counter" else "")] = labels[family.name]
    return out


def test_the_readme_lists_every_metric_with_its_labels_and_no_other():
    listed, real = documented(), exposed()
    assert sorted(set(real) - set(listed)) == [], "exposed but not in the README"
    assert sorted(set(listed) - set(real)) == [], "in the README but not exposed"
    wrong = {name: (listed[name], real[name]) for name in real if listed[name] != real[name]}
    assert wrong == {}, "labels in the README (left) differ from the server's (right)"
