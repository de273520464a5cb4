"""The arena: your strategy against the server's computer players, for N matches, with figures.

Run from the shell::

    python -m ginrummy_client arena --server http://127.0.0.1:8080 \\
        --strategy mymodule:choose --difficulty hard --matches 10

or from code with :func:`run_arena`. A strategy is named ``module:function`` (a module on the
Python path, or a ``path/to/file.py``); ``quick`` and ``random`` name the built-in ones.
Figures come from the server's own match summaries (``GET /api/matches/{id}``), not from
counting on the client side.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .connection import Strategy
from .models import MatchSummary
from .rest import GinRummyClient
from .strategies import make_random, quick

__all__ = ["ArenaReport", "MatchLine", "load_strategy", "run_arena"]


def load_strategy(spec: str) -> Strategy:
    """``"quick"``, ``"random"``, ``"pkg.module:function"`` or ``"path/to/file.py:function"``
    (the function defaults to ``choose``)."""
    if spec == "quick":
        return quick
    if spec == "random":
        return make_random(0)
    target, _, attr = spec.partition(":")
    attr = attr or "choose"
    if target.endswith(".py") or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise ValueError(f"no strategy file {target!r}")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise ValueError(f"cannot load {target!r}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[path.stem] = module
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            # Only the module named (or a package of it) missing: an import error inside a
            # module that does exist is the strategy's own bug, left to show itself.
            missing = getattr(exc, "name", None)
            if missing is None or not (target == missing or target.startswith(missing + ".")):
                raise
            raise ValueError(
                f"no strategy module {target!r} (expected module:function, path/file.py:function, quick or random)"
            ) from exc
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ValueError(f"{target} has no function {attr!r}")
    return fn  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class MatchLine:
    """One finished arena match, from the seat of the strategy."""

    match_id: str
    seat: int
    won: bool
    scores: tuple[int, int]
    """(strategy, computer)."""
    hands: int
    hands_won: int
    gins: int
    undercuts_scored: int
    undercuts_suffered: int
    dead: int
    points_for: int
    points_against: int

    @staticmethod
    def from_summary(summary: MatchSummary, seat: int) -> MatchLine:
        other = 1 - seat
        results = summary.hands
        won = (
            summary.winner == seat
            if summary.winner is not None
            else (summary.outcome is not None and summary.outcome.winner == seat)
        )
        return MatchLine(
            match_id=summary.match_id,
            seat=seat,
            won=won,
            scores=(summary.scores[seat], summary.scores[other]),
            hands=len(results) or summary.hand_number,
            hands_won=sum(r.winner == seat for r in results),
            gins=sum(r.kind == "gin" and r.winner == seat for r in results),
            undercuts_scored=sum(r.kind == "undercut" and r.winner == seat for r in results),
            undercuts_suffered=sum(r.kind == "undercut" and r.winner == other for r in results),
            dead=sum(r.kind == "dead" for r in results),
            points_for=sum(r.points for r in results if r.winner == seat),
            points_against=sum(r.points for r in results if r.winner == other),
        )

    def __str__(self) -> str:
        verdict = "won " if self.won else "lost"
        return (
            f"{verdict} {self.scores[0]:>3}-{self.scores[1]:<3} in {self.hands:>2} hands "
            f"({self.hands_won} won, {self.gins} gin, {self.undercuts_scored} undercut)  {self.match_id}"
        )


@dataclass(slots=True)
class ArenaReport:
    strategy: str
    difficulty: str
    rules: str
    matches: list[MatchLine] = field(default_factory=list)

    @property
    def wins(self) -> int:
        return sum(m.won for m in self.matches)

    @property
    def hands(self) -> int:
        return sum(m.hands for m in self.matches)

    def per_hand(self, points: int) -> float:
        return points / self.hands if self.hands else 0.0

    def format(self) -> str:
        n = len(self.matches)
        hands = self.hands
        pf = sum(m.points_for for m in self.matches)
        pa = sum(m.points_against for m in self.matches)
        lines = [
            f"{self.strategy} vs the computer ({self.difficulty}), {self.rules} rules: {n} matches",
            f"  matches  won {self.wins}  lost {n - self.wins}  ({100 * self.wins / n:.0f}% won)"
            if n
            else "  no match",
            f"  hands    {hands}  won {sum(m.hands_won for m in self.matches)}"
            f"  gins {sum(m.gins for m in self.matches)}"
            f"  undercuts scored {sum(m.undercuts_scored for m in self.matches)}"
            f" / suffered {sum(m.undercuts_suffered for m in self.matches)}"
            f"  dead {sum(m.dead for m in self.matches)}",
            f"  points per hand  {self.per_hand(pf):.2f} scored, {self.per_hand(pa):.2f} conceded,"
            f" net {self.per_hand(pf - pa):+.2f}",
        ]
        return "\n".join(lines)


async def run_arena(
    base_url: str,
    strategy: Strategy,
    *,
    difficulty: str = "normal",
    rules: str = "house",
    matches: int = 10,
    name: str = "Arena bot",
    token: str | None = None,
    strategy_name: str | None = None,
    write: Callable[[str], None] = print,
    level: str | None = None,
) -> ArenaReport:
    """Play ``matches`` matches of ``strategy`` against the computer at ``difficulty`` (any name
    the server offers: ``GET /api/difficulties``); prints one line per match through ``write``
    and returns the report (``report.format()`` for the table). ``level`` is the old name of
    ``difficulty``."""
    if level is not None:
        difficulty = level
    client = GinRummyClient(base_url, token)
    if token is None:
        await client.create_player(name)
    label = strategy_name or getattr(strategy, "__qualname__", None) or repr(strategy)
    report = ArenaReport(label, difficulty, rules)
    for i in range(1, matches + 1):
        ticket = await client.create_match(opponent="computer", difficulty=difficulty, rules=rules)
        async with client.connect(ticket) as conn:
            await conn.play(strategy)
        line = MatchLine.from_summary(await client.get_match(ticket.match_id), ticket.seat)
        report.matches.append(line)
        write(f"  match {i:>3}: {line}")
    write(report.format())
    return report
