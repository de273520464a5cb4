"""The computer levels' published ratings, from ``seeds/ratings.json`` (measured by a round robin
of the project's tournament; the file records the command, seeds and sample sizes)."""

from __future__ import annotations

import functools
import json

from server import resources


@functools.cache
def computer_ratings() -> dict[str, float]:
    """Each level's fixed rating, by difficulty name."""
    with open(resources.path("ratings.json"), encoding="utf-8") as f:
        return {name: float(r["rating"]) for name, r in json.load(f)["levels"].items()}
