"""Rule presets (``house``, ``classic``), loaded once from the data files in ``seeds/rules/``."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .. import resources

SEEDS_DIR = resources.rules_dir()


class StarterRule(StrEnum):
    ALTERNATE = "alternate"
    """The starting player alternates every hand, a dead hand included (``house``)."""
    WINNER_STARTS = "winner_starts"
    """The loser of a hand deals the next (its winner starts); after a dead hand the same
    dealer deals again (``classic``)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule preset: the numbers of RULES.md for one variant.

    >>> RULES["classic"].box_bonus, RULES["house"].box_bonus, RULES["house"].knock_limit
    (25, 0, 10)
    >>> RULES["house"]
    RULES['house']
    """

    name: str
    label: str
    """What a client shows, e.g. ``"House rules"``."""
    description: str
    target: int
    knock_limit: int
    gin_bonus: int
    undercut_bonus: int
    box_bonus: int
    game_bonus: int
    shutout_bonus: int
    starter_rule: StarterRule
    guide: str = ""

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Rules:
        known = {f.name for f in fields(Rules)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule fields: {sorted(unknown)}")
        return Rules(**{**data, "starter_rule": StarterRule(data["starter_rule"])})

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "description": self.description,
            "target": self.target,
            "knock_limit": self.knock_limit,
            "gin_bonus": self.gin_bonus,
            "undercut_bonus": self.undercut_bonus,
            "box_bonus": self.box_bonus,
            "game_bonus": self.game_bonus,
            "shutout_bonus": self.shutout_bonus,
            "starter_rule": self.starter_rule.value,
        }

    def __repr__(self) -> str:
        return f"RULES[{self.name!r}]"


def _load() -> dict[str, Rules]:
    presets = {}
    for path in sorted(SEEDS_DIR.glob("*.json")):
        rules = Rules.from_dict(json.loads(path.read_text(encoding="utf-8")))
        presets[rules.name] = rules
    return presets


RULES: MappingProxyType[str, Rules] = MappingProxyType(_load())
