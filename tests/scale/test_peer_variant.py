"""The peer benchmark's variants: ``--variant name:KEY=VALUE,...`` runs each of our targets once
more per variant (its environment, or another checkout), reported beside the rest with its own
ratios. No server is started here."""

from __future__ import annotations

from pathlib import Path

from server.bench.peer.report import format_report
from server.bench.peer.run import TARGETS, Figures


def test_a_variant_of_our_target_carries_its_environment_and_root_and_gets_its_own_ratios():
    variant = TARGETS["ours-hvh"].as_variant("base", {"GINRUMMY_SQLITE_INLINE": "0"}, Path("/tmp/base"))
    assert variant.name == "ours-hvh@base" and variant.server == "ours" and variant.mode == "hvh"
    assert dict(variant.env) == {"GINRUMMY_SQLITE_INLINE": "0"} and variant.root == Path("/tmp/base")
    targets = {"ours-hvh": TARGETS["ours-hvh"], variant.name: variant, "bgio-memory": TARGETS["bgio-memory"]}

    def figures(name: str, cpu: float) -> Figures:
        return Figures(name, 10, moves_per_s_saturated=1000.0, cpu_ms_per_move_paced=cpu)

    results = {
        "ours-hvh": [figures("ours-hvh", 0.9)],
        "ours-hvh@base": [figures("ours-hvh@base", 1.2)],
        "bgio-memory": [figures("bgio-memory", 1.0)],
    }
    out = format_report(results, "header", targets)
    assert f"| {variant.title} |" in out and variant.title.endswith("[base]")
    assert "ours-hvh vs bgio-memory, CPU per move, paced: 0.90x" in out
    assert "ours-hvh@base vs bgio-memory, CPU per move, paced: 1.20x" in out
