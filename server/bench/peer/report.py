"""The peer benchmark's printout: each target's medians over the rounds, then the ratios of ours
to boardgame.io's beside the issue's targets (printed, met or not: this is not a test)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict

from server.bench.peer.run import TARGETS, Figures, Target

COLUMNS = (
    ("moves_per_s_saturated", "moves/s saturated", "{:,.0f}"),
    ("p50_ms", "p50 ms (paced)", "{:.1f}"),
    ("p99_ms", "p99 ms (paced)", "{:.1f}"),
    ("cpu_ms_per_move_paced", "CPU ms/move paced", "{:.3f}"),
    ("cpu_ms_per_move_saturated", "CPU ms/move saturated", "{:.3f}"),
    ("db_cpu_ms_per_move_paced", "Postgres CPU ms/move paced", "{:.3f}"),
    ("db_cpu_ms_per_move_saturated", "Postgres CPU ms/move saturated", "{:.3f}"),
    ("kb_per_match", "KB/match", "{:.0f}"),
    ("new_matches_saturated", "new matches saturated", "{:,.0f}"),
    ("loadgen_cores", "load generator cores", "{:.2f}"),
)

RATIOS = (
    # (ours, theirs, figure, label, target text)
    ("ours-hvh", "bgio-memory", "cpu_ms_per_move_paced", "CPU per move, paced", "<= 0.8x"),
    ("ours-hvh", "bgio-memory", "cpu_ms_per_move_saturated", "CPU per move, saturated", "<= 0.8x"),
    ("ours-hvh", "bgio-memory", "moves_per_s_saturated", "saturated moves/s", ">= 1.25x"),
    ("ours-hvh", "bgio-memory", "p99_ms", "p99 at the pace", ""),
    ("ours-hvh", "bgio-memory", "kb_per_match", "memory per match", ""),
    ("ours-hvh", "bgio-flatfile", "cpu_ms_per_move_paced", "CPU per move, paced", ""),
    ("ours-hvh", "bgio-flatfile", "cpu_ms_per_move_saturated", "CPU per move, saturated", ""),
    ("ours-hvh", "bgio-flatfile", "moves_per_s_saturated", "saturated moves/s", ">= 4x"),
    ("ours-hvh", "bgio-flatfile", "kb_per_match", "memory per match", ""),
    *(
        (ours, "bgio-memory", key, label, goal)
        for ours in ("ours-pg1", "ours-pg2")
        for key, label, goal in (
            ("cpu_ms_per_move_paced", "CPU per move, paced (ours only)", "<= 0.8x"),
            ("cpu_ms_per_move_saturated", "CPU per move, saturated (ours only)", "<= 0.8x"),
            ("moves_per_s_saturated", "saturated moves/s", ">= 1.25x"),
        )
    ),
    ("ours-hvc", "bgio-memory", "cpu_ms_per_move_paced", "CPU per human action / per move, paced", "<= 1.6x"),
    (
        "ours-hvc",
        "bgio-memory",
        "cpu_ms_per_move_saturated",
        "CPU per human action / per move, saturated",
        "<= 1.6x",
    ),
)


def medians(rounds: Sequence[Figures]) -> dict[str, float | None]:
    """Each figure's median over the rounds (rounds without it left out)."""
    out: dict[str, float | None] = {}
    for key, _, _ in COLUMNS:
        values = [v for f in rounds if (v := asdict(f)[key]) is not None]
        out[key] = statistics.median(values) if values else None
    out["paced_moves"] = statistics.median(f.paced_moves for f in rounds)
    out["saturated_moves"] = statistics.median(f.saturated_moves for f in rounds)
    return out


def _fmt(fmt: str, value: float | None) -> str:
    return "-" if value is None else fmt.format(value)


def format_report(
    results: dict[str, list[Figures]], header: str, targets: dict[str, Target] | None = None
) -> str:
    """``targets``: the targets run, by name (variants of ours among them); TARGETS if None. A
    variant of ours (``ours-hvh@name``) gets the ratios of the target it varies."""
    targets = TARGETS if targets is None else targets
    table = {name: medians(rounds) for name, rounds in results.items() if rounds}
    lines = [header, ""]
    lines.append(
        "| Target | " + " | ".join(label for _, label, _ in COLUMNS) + " | moves paced / saturated | errors |"
    )
    lines.append("|---" * (len(COLUMNS) + 3) + "|")
    for name, row in table.items():
        errors: dict[str, int] = {}
        for f in results[name]:
            for code, n in f.errors.items():
                errors[code] = errors.get(code, 0) + n
            if f.setup_errors:
                errors["setup"] = errors.get("setup", 0) + f.setup_errors
        cells = [_fmt(fmt, row[key]) for key, _, fmt in COLUMNS]
        moves = f"{row['paced_moves']:,.0f} / {row['saturated_moves']:,.0f}"
        err = ", ".join(f"{c} {n}" for c, n in sorted(errors.items())) or "0"
        lines.append(f"| {targets[name].title} | " + " | ".join(cells) + f" | {moves} | {err} |")
    lines += ["", "Ratios (ours / boardgame.io, medians of the rounds; target from issue 14):"]
    for base, theirs, key, label, goal in RATIOS:
        for ours in (n for n in table if n == base or n.startswith(base + "@")):
            if theirs not in table:
                continue
            a, b = table[ours][key], table[theirs][key]
            ratio = "-" if a is None or not b else f"{a / b:.2f}x"
            target = f"  (target {goal})" if goal else ""
            lines.append(f"  {ours} vs {theirs}, {label}: {ratio}{target}")
    return "\n".join(lines)
