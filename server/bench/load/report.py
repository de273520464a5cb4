"""The report: each target beside its figure (the verdict), and the report as printed."""

from __future__ import annotations

from typing import Any

TARGETS = {"matches": 1000, "p99_ack_ms": 100.0, "floor_ratio": 0.30, "kb_per_match": 100.0}


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    """Each target beside its figure: met, missed, or not measured."""
    game = report["game"]
    paced = game["paced"]
    saturated = game.get("saturated")
    echo = report.get("echo")
    opts = report["options"]
    out: dict[str, Any] = {}
    p99 = paced["ack_latency"]["p99_ms"]
    out["concurrent_matches"] = {"figure": game.get("live_matches"), "target": TARGETS["matches"]}
    out["p99_ack_ms"] = {
        "figure": p99,
        "target": TARGETS["p99_ack_ms"],
        "met": p99 is not None and p99 <= TARGETS["p99_ack_ms"],
    }
    errors = paced["error_count"] + (saturated["error_count"] if saturated else 0) + game["setup_failures"]
    out["errors"] = {"figure": errors, "target": 0, "met": errors == 0 and game["stuck_players"] == 0}
    out["lost_actions"] = {"figure": game["lost"], "target": 0, "met": game["lost"] == 0}
    if saturated and echo:
        ratio = saturated["actions_per_second"] / echo["round_trips_per_second"]
        out["floor_ratio"] = {"figure": ratio, "target": TARGETS["floor_ratio"], "met": ratio >= 0.30}
    per_match = [x for x in (game.get("rss", {}).get("kb_per_live_match"),) if x is not None]
    if "tracemalloc" in report:
        per_match.append(report["tracemalloc"]["bytes_per_match"] / 1024)
    if per_match:
        worst = max(per_match)
        out["kb_per_match"] = {"figure": worst, "target": TARGETS["kb_per_match"], "met": worst <= 100}
    out["at_target_scale"] = opts["matches"] >= TARGETS["matches"]
    return out


def _ms(summary: dict[str, Any]) -> str:
    def f(x: Any) -> str:
        return "-" if x is None else f"{x:.1f}"

    return (
        f"p50 {f(summary['p50_ms'])} p95 {f(summary['p95_ms'])} p99 {f(summary['p99_ms'])} "
        f"max {f(summary['max_ms'])} ms (n={summary['count']})"
    )


def format_report(report: dict[str, Any]) -> str:
    o, g = report["options"], report["game"]
    lines = [
        f"load: {o['matches']} concurrent matches vs the computer ({o['difficulty']}), "
        f"database {o['database']}, {len(report['servers'])} server process(es), "
        f"think {o['think']} s, bot delay {o['bot_delay']} s, {report['cores']} cores",
        f"setup: {o['matches']} players, matches and sockets in {g['setup_seconds']} s "
        f"({g['setup_failures']} failed)",
    ]
    for name in ("paced", "saturated"):
        ph = g.get(name)
        if not ph:
            continue
        lines.append(
            f"{name} ({ph['seconds']} s): {ph['actions_per_second']:.0f} player actions/s acked, "
            f"{ph['matches_finished']} matches finished, errors {ph['error_count']} {ph['errors'] or ''}"
        )
        if ph.get("server_cores") is not None:
            per = ""
            if ph.get("server_cpu_ms_per_action") is not None:
                per = (
                    f"; per player action (with the computer's reply): server "
                    f"{ph['server_cpu_ms_per_action']:.2f} ms, load generator {ph['client_cpu_ms_per_action']:.2f} ms"
                )
            lines.append(
                f"  CPU: server {ph['server_cores']:.2f} cores, load generator {ph['client_cores']:.2f} cores{per}"
            )
        lines.append(f"  action -> ack:           {_ms(ph['ack_latency'])}")
        lines.append(f"  action -> computer reply: {_ms(ph['reply_latency'])}")
    lines.append(
        f"live on the server(s) after the paced phase: {g['live_matches']:.0f} matches, "
        f"{g['connections']:.0f} sockets"
    )
    s = g["server"]
    if s["commits"]:
        lines.append(
            f"server: {s['commits']:.0f} commits, mean {s['commit_mean_ms']:.2f} ms; "
            f"{s['bot_moves']:.0f} computer moves, mean think {s['bot_think_mean_ms'] or 0:.2f} ms"
            + (f", {s['bot_lighter']:.0f} made lighter (workers behind)" if s.get("bot_lighter") else "")
        )
    echo = report.get("echo")
    if echo:
        lines.append(
            f"echo floor (bare aiohttp WebSocket, {echo['clients']} clients, {echo['seconds']} s): "
            f"{echo['round_trips_per_second']:.0f} round trips/s, {_ms(echo['latency'])}"
        )
        if echo.get("server_cpu_ms_per_round_trip") is not None:
            lines.append(f"  CPU: echo server {echo['server_cpu_ms_per_round_trip']:.3f} ms per round trip")
        saturated = g.get("saturated")
        if saturated:
            ratio = saturated["actions_per_second"] / echo["round_trips_per_second"]
            lines.append(f"throughput / echo floor: {ratio:.2f}")
            echo_cpu, game_cpu = (
                echo.get("server_cpu_ms_per_round_trip"),
                saturated.get("server_cpu_ms_per_action"),
            )
            if echo_cpu and game_cpu:
                lines.append(
                    f"  server CPU per player action (its ack, its state and the computer's reply) / per "
                    f"echo round trip: {game_cpu / echo_cpu:.0f}x"
                )
            work = report.get("game_work")
            if echo_cpu and work:
                work_cpu = work["cpu_ms_per_action"]
                lines.append(
                    f"  of which the game work alone (rules, views, the computer's choice; in process, "
                    f"no socket, no database): {work_cpu:.3f} ms = {work_cpu / echo_cpu:.0f}x: "
                    f"throughput / echo floor <= {echo_cpu / work_cpu:.2f} even with free I/O and commits"
                )
    lines.append(
        f"lost actions: {g['lost']} of {g['acked_total']} acknowledged "
        f"({g['matches_checked']} matches checked against their records)"
        + (f" e.g. {g['lost_examples']}" if g["lost_examples"] else "")
    )
    if g["stuck_players"] or g["failures"]:
        lines.append(f"stuck players: {g['stuck_players']}; failures: {g['failures']}")
    if "hidden" in g:
        h = g["hidden"]
        lines.append(
            f"hidden cards: {h['leaks']} leaks in {h['states_checked']} state messages checked"
            + (f" e.g. {h['examples']}" if h["examples"] else "")
        )
    if "rss" in g:
        r = g["rss"]
        lines.append(
            f"memory: server RSS {r['before_mb']} -> {r['live_mb']} MB: "
            f"{r['kb_per_live_match']:.1f} KB per live match (with its socket)"
        )
    if "tracemalloc" in report:
        t = report["tracemalloc"]
        lines.append(
            f"memory: tracemalloc in-process: {t['bytes_per_match'] / 1024:.1f} KB per live match "
            f"({t['matches']} matches)"
        )
    if report.get("profile"):
        lines.append("server profile (cProfile, all server processes):")
        lines += ["  " + line for line in report["profile"]]
    if "server_tracebacks" in report:
        lines.append(f"tracebacks in the server logs: {report['server_tracebacks']}")
    lines.append("targets:")
    for name, v in report["verdict"].items():
        if isinstance(v, dict):
            met = v.get("met")
            mark = "-" if met is None else ("met" if met else "MISSED")
            fig = v["figure"]
            fig_s = f"{fig:.2f}" if isinstance(fig, float) else str(fig)
            lines.append(f"  {name}: {fig_s} (target {v['target']}) {mark}")
    if not report["verdict"]["at_target_scale"]:
        lines.append(f"  (this run is below the target scale of {TARGETS['matches']} matches)")
    return "\n".join(lines)
