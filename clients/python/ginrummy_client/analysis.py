"""Explained play, printed: the server's analysis of a match (``GET /api/matches/{id}/analysis``)
as text, one line per decision that differs from Hard's, the biggest mistakes of each hand first.

Values are the server's: expected points of the hand for the player's seat, as Hard reckons them
from what that seat could see at the time (see docs/protocol.md, "Explained play").
"""

from __future__ import annotations

from typing import Any


def action_text(action: dict[str, Any]) -> str:
    """``{"kind": "knock", "card": "7h"}`` -> ``"knock 7h"``."""
    kind = action.get("kind", "?")
    if kind == "draw":
        return f"draw from the {'stock' if action.get('source') == 'stock' else 'discard pile'}"
    if kind == "take_upcard":
        return "take the upcard"
    if kind == "pass":
        return "pass"
    return f"{kind} {action.get('card', '?')}"


def format_analysis(analysis: dict[str, Any], *, every: bool = False) -> str:
    """The analysis as text: the summary line, then per hand its luck, its value lost, its
    mistakes, the biggest first (``every``: every decision that differs from Hard's), the
    value the opponent lost and the opponent's mistakes."""
    lines = [str(analysis.get("summary", ""))]
    for hand in analysis.get("hands", []):
        lines.append(
            f"Hand {hand['number']}: deal worth {hand['start_value']:+.1f}, lost {hand['lost']:.1f}"
            f" ({len(hand['mistakes'])} mistake{'s' if len(hand['mistakes']) != 1 else ''}),"
            f" opponent lost {hand['opponent_lost']:.1f}, result {hand['points']:+d}"
        )
        by_step = {d["step"]: d for d in hand["decisions"]}
        shown = list(hand["mistakes"])
        if every:
            shown += [d["step"] for d in hand["decisions"] if d["loss"] > 0 and d["step"] not in shown]
        for step in shown:
            d = by_step[step]
            lines.append(
                f"  step {step}: you {action_text(d['played'])}, Hard would {action_text(d['best'])}"
                f" (-{d['loss']:.1f}). {d['explanation']}"
            )
        for d in hand["opponent_mistakes"]:
            lines.append(
                f"  step {d['step']}, your opponent: {action_text(d['played'])}, Hard would"
                f" {action_text(d['best'])} (-{d['loss']:.1f}). {d['explanation']}"
            )
    return "\n".join(lines)


__all__ = ["action_text", "format_analysis"]
