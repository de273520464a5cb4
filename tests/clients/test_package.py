"""The Python client is a separate package that speaks only the public protocol."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import tomllib
from pathlib import Path

import ginrummy_client

CLIENT_ROOT = Path(__file__).resolve().parents[2] / "clients" / "python"


def _python_files() -> list[Path]:
    files = sorted(CLIENT_ROOT.rglob("*.py"))
    assert len(files) >= 8, files  # the package and the example bot are really there
    return files


def test_client_imports_nothing_from_the_server():
    offenders = []
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path}: {n}" for n in names if n == "server" or n.startswith("server.")]
    assert offenders == []


def test_client_depends_on_websockets_only():
    project = tomllib.loads((CLIENT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert [d.split(">")[0].split("=")[0].strip() for d in project["dependencies"]] == ["websockets"]


def test_public_api_is_pinned():
    assert sorted(ginrummy_client.__all__) == sorted(
        [
            "DRAW_DISCARD",
            "DRAW_STOCK",
            "PASS",
            "TAKE_UPCARD",
            "Action",
            "BadRequest",
            "Conflict",
            "ConnectionLost",
            "DealReport",
            "Event",
            "Forbidden",
            "GinRummyClient",
            "GinRummyError",
            "HandCheck",
            "HandResult",
            "HandView",
            "IllegalAction",
            "Invite",
            "LadderMatch",
            "LadderStanding",
            "MatchClock",
            "Rematch",
            "SeatClock",
            "TimeControl",
            "MatchConnection",
            "MatchSummary",
            "MatchTicket",
            "MatchView",
            "NotFound",
            "NotYourTurn",
            "Outcome",
            "Pairing",
            "PlayerIdentity",
            "PlayerInfo",
            "ProtocolError",
            "RateLimited",
            "RulesInfo",
            "SeatTotal",
            "Seek",
            "ServerError",
            "Session",
            "SignedIn",
            "StaleVersion",
            "Strategy",
            "TooLarge",
            "Unauthorized",
            "Unavailable",
            "best_melds",
            "deadwood",
            "discard",
            "knock",
            "parse_invite",
            "play_ladder",
            "verify",
        ]
    )
    for name in ginrummy_client.__all__:
        assert hasattr(ginrummy_client, name), name


def test_docstring_examples_hold():
    tried = 0
    for info in pkgutil.walk_packages(ginrummy_client.__path__, "ginrummy_client."):
        module = importlib.import_module(info.name)
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, info.name
        tried += result.attempted
    assert tried >= 20
