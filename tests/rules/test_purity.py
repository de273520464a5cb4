"""``server.rules`` is pure: it imports nothing that does I/O, reads no clock, and never touches the
global random generator (STYLE.md: the core does no I/O; randomness is an input)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import server.rules

RULES_DIR = Path(server.rules.__file__).parent
MODULES = sorted(RULES_DIR.glob("*.py"))

# Modules whose presence would mean the rules can reach the network, the disk beyond the preset
# files, other processes, threads, the clock or the logging system.
FORBIDDEN = {
    "aiohttp",
    "aiosqlite",
    "asyncio",
    "asyncpg",
    "concurrent",
    "datetime",
    "email",
    "http",
    "logging",
    "multiprocessing",
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
    "urllib",
    "websockets",
}


def test_importing_server_rules_loads_no_module_that_does_io():
    code = (
        "import sys, json; before = set(sys.modules); import server.rules; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert "server.rules" in loaded
    loaded.remove("server.resources")  # where the preset files are; what it imports is still checked
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert bad == []
    outside = sorted(m for m in loaded if m.startswith("server.") and not m.startswith("server.rules"))
    assert outside == [], "rules must not depend on the rest of the server"


def imported_names(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_rules_modules_read_no_clock_and_use_only_private_random_generators():
    assert len(MODULES) >= 9
    for path in MODULES:
        tree = ast.parse(path.read_text(), filename=str(path))
        names = imported_names(tree)
        assert not names & (FORBIDDEN | {"time", "os", "sys", "io"}), (
            f"{path.name} imports {names & FORBIDDEN}"
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                assert [a.name for a in node.names] == ["Random"], f"{path.name}: from random import ..."
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{path.name} calls the global random.{node.attr}"


def test_only_the_preset_loader_reads_a_file_and_nothing_prints():
    for path in MODULES:
        tree = ast.parse(path.read_text(), filename=str(path))
        calls = {
            n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)
        }
        assert not calls & {"print", "input", "open"}, path.name
        if path.name != "presets.py":
            assert not calls & {"read_text", "read_bytes", "write_text", "write_bytes"}, path.name
