"""Dependencies point inward (STYLE.md), checked by reading every module's imports and calls:

- ``server/rules`` and ``server/bots`` do no I/O, read no clock and never use the global random
  generator (a private ``random.Random`` is fine): randomness and time are inputs;
- ``server/service`` imports neither aiohttp nor SQLAlchemy nor the storage or transport
  packages, and takes its time, sleeps and secrets from its ports (:mod:`server.service.clock`,
  :mod:`server.service.ids`), whose real implementations are the only modules allowed them;
  it may use the wire shapes (``server.wire``: pure, no I/O) to store values in their one wire
  form, but not the transport;
- ``server/wire`` does no I/O and imports only the rules, the bots and msgspec: nothing of the
  service, the storage or the transport;
- the clients import nothing from ``server``.

The checker is tested on small bad examples too, so a rule that stopped matching would show.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

IO_MODULES = frozenset(
    {
        "aiohttp",
        "aiosqlite",
        "asyncio",
        "asyncpg",
        "concurrent",
        "http",
        "multiprocessing",
        "os",
        "secrets",
        "selectors",
        "shutil",
        "socket",
        "sqlalchemy",
        "sqlite3",
        "ssl",
        "subprocess",
        "tempfile",
        "threading",
        "time",
        "urllib",
        "websockets",
    }
)
ADAPTERS = frozenset({"aiohttp", "sqlalchemy", "asyncpg", "aiosqlite", "server.storage", "server.transport"})
CLOCK_AND_SECRETS = frozenset({"time", "secrets"})


@dataclass(frozen=True)
class Rules:
    forbidden: frozenset[str]
    """Modules (and their submodules) that may not be imported."""
    global_random: bool = True
    """Whether the global random generator may be used (anything of ``random`` but ``Random``)."""
    wall_clock: bool = True
    """Whether ``datetime.now()`` and the like may be called."""
    asyncio_sleep: bool = True


PURE = Rules(IO_MODULES, global_random=False, wall_clock=False, asyncio_sleep=False)
SERVICE = Rules(ADAPTERS | CLOCK_AND_SECRETS, wall_clock=False, asyncio_sleep=False)
SERVICE_REAL_PORTS = Rules(ADAPTERS)
CLIENT = Rules(frozenset({"server"}))
WIRE = Rules(
    IO_MODULES | {"server.service", "server.storage", "server.transport"},
    global_random=False,
    wall_clock=False,
    asyncio_sleep=False,
)

SERVICE_REAL_IMPLEMENTATIONS = {
    "clock.py": "the real clock",
    "ids.py": "the real ids and secrets",
    "thinking.py": "the worker processes' pool; its watchdog thread sleeps in the worker",
}


def _within(name: str, modules: frozenset[str]) -> bool:
    return any(name == m or name.startswith(m + ".") for m in modules)


def _absolute(module: str | None, level: int, package: str) -> str:
    """The absolute name of ``from <level dots><module> import ..`` inside ``package``."""
    if level == 0:
        return module or ""
    base = package.split(".")
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, module] if module else base)


def violations(source: str, rules: Rules, package: str = "") -> list[str]:
    """What in ``source`` (a module of ``package``) breaks ``rules``."""
    found: list[tuple[int, int, str]] = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _within(alias.name, rules.forbidden):
                    found.append((node.lineno, node.col_offset, f"line {node.lineno}: import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, package)
            names = [a.name for a in node.names]
            if _within(module, rules.forbidden) or any(
                _within(f"{module}.{n}", rules.forbidden) for n in names
            ):
                found.append(
                    (
                        node.lineno,
                        node.col_offset,
                        f"line {node.lineno}: from {module} import {', '.join(names)}",
                    )
                )
            if module == "random" and not rules.global_random and names != ["Random"]:
                found.append(
                    (
                        node.lineno,
                        node.col_offset,
                        f"line {node.lineno}: from random import {', '.join(names)}",
                    )
                )
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner, attr = node.value.id, node.attr
            if owner == "random" and not rules.global_random and attr != "Random":
                found.append((node.lineno, node.col_offset, f"line {node.lineno}: random.{attr}"))
            if owner in ("datetime", "date") and attr in ("now", "utcnow", "today") and not rules.wall_clock:
                found.append((node.lineno, node.col_offset, f"line {node.lineno}: {owner}.{attr}"))
            if owner == "asyncio" and attr == "sleep" and not rules.asyncio_sleep:
                found.append((node.lineno, node.col_offset, f"line {node.lineno}: asyncio.sleep"))
            if _within(owner, rules.forbidden & CLOCK_AND_SECRETS):
                found.append((node.lineno, node.col_offset, f"line {node.lineno}: {owner}.{attr}"))
    return [message for *_, message in sorted(found)]


def _modules(folder: str) -> list[Path]:
    paths = sorted((ROOT / folder).rglob("*.py"))
    assert paths, f"no modules under {folder}"
    return paths


def _package(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])


def _check(path: Path, rules: Rules) -> list[str]:
    return [f"{path.relative_to(ROOT)} {v}" for v in violations(path.read_text(), rules, _package(path))]


@pytest.mark.parametrize("folder", ["server/rules", "server/bots"])
def test_the_rules_and_the_bots_do_no_io_read_no_clock_and_use_no_global_random(folder):
    assert [v for path in _modules(folder) for v in _check(path, PURE)] == []


def test_the_service_imports_no_adapter_and_reads_time_and_secrets_only_through_its_ports():
    found = []
    for path in _modules("server/service"):
        real = path.name in SERVICE_REAL_IMPLEMENTATIONS
        found += _check(path, SERVICE_REAL_PORTS if real else SERVICE)
    assert found == []


def test_the_service_may_import_the_wire_shapes_but_not_the_transport():
    assert (
        violations("from server.wire import convert\nimport server.wire\n", SERVICE, "server.service") == []
    )
    assert violations("from server.transport import present\n", SERVICE, "server.service") == [
        "line 1: from server.transport import present"
    ]
    writer = (ROOT / "server/service/writer.py").read_text()
    assert "from server.wire import convert" in writer  # the stored results' one definition


def test_the_wire_shapes_do_no_io_and_import_neither_service_nor_storage_nor_transport():
    assert [v for path in _modules("server/wire") for v in _check(path, WIRE)] == []
    assert violations("from server.service.ports import MatchMeta\n", WIRE, "server.wire") == [
        "line 1: from server.service.ports import MatchMeta"
    ]


def test_the_clients_import_nothing_from_the_server():
    assert [v for path in _modules("clients") for v in _check(path, CLIENT)] == []
    # The browser client's modules import only each other (relative paths within the client).
    for path in sorted((ROOT / "clients/web").rglob("*.js")):
        for target in re.findall(r"""^\s*import\b[^'"]*['"]([^'"]+)['"]""", path.read_text(), re.M):
            assert target.startswith("./") or target.startswith("../"), f"{path}: {target}"
            assert "server" not in Path(target).parts, f"{path}: {target}"


# --- the checker itself, on bad examples ------------------------------------------------------

BAD_PURE = """
import asyncio
import os.path
from time import monotonic
from random import shuffle
import random
from datetime import datetime

def f(cards):
    random.shuffle(cards)
    return datetime.now(), random.Random(1)
"""


def test_the_checker_catches_io_clocks_and_global_random_in_pure_code():
    found = violations(BAD_PURE, PURE, "server.rules")
    assert found == [
        "line 2: import asyncio",
        "line 3: import os.path",
        "line 4: from time import monotonic",
        "line 5: from random import shuffle",
        "line 10: random.shuffle",
        "line 11: datetime.now",
    ]
    assert violations("import random\nrng = random.Random(3)\n", PURE, "server.bots") == []


BAD_SERVICE = """
import time
import secrets
from sqlalchemy import select
from aiohttp import web
from server.storage import SqlStore
from server import transport
from ..storage.memory import MemoryStore
from .clock import Clock

async def f():
    await asyncio.sleep(time.monotonic())
    return secrets.token_hex(8)
"""


def test_the_checker_catches_adapters_clocks_and_secrets_in_the_service():
    found = violations(BAD_SERVICE, SERVICE, "server.service")
    assert found == [
        "line 2: import time",
        "line 3: import secrets",
        "line 4: from sqlalchemy import select",
        "line 5: from aiohttp import web",
        "line 6: from server.storage import SqlStore",
        "line 7: from server import transport",
        "line 8: from server.storage.memory import MemoryStore",
        "line 12: asyncio.sleep",
        "line 12: time.monotonic",
        "line 13: secrets.token_hex",
    ]


def test_the_checker_catches_a_client_importing_the_server():
    source = "from server.rules import Action\nimport server\nimport json\n"
    assert violations(source, CLIENT, "clients.python") == [
        "line 1: from server.rules import Action",
        "line 2: import server",
    ]
