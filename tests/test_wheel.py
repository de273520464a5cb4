"""The package works installed from a built wheel, not only from this checkout: build the sdist
and, from it, the wheel (``python -m build``); install the wheel in a fresh virtual environment
outside the checkout with its runtime dependencies only; play a little over REST and the
WebSocket there, fetch the web client and the rule presets, and import every module of the
installed package (so nothing in it needs the test extras at import time)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import venv
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from server import resources
from server.bench.load import free_port
from server.transport.page import Page

ROOT = Path(__file__).resolve().parents[1]

# What the installed package must not import: the test and bench extras (and what they bring).
TEST_ONLY = ["pytest", "_pytest", "hypothesis", "playwright", "pyspiel", "open_spiel", "rlcard", "websockets"]
TEST_ONLY += ["yaml", "numpy", "build", "ruff"]

IMPORT_ALL = """
import importlib, json, pkgutil, sys
import server
from server import resources
from server.rules import RULES

def fail(name):
    raise
names = []
for info in pkgutil.walk_packages(server.__path__, "server.", onerror=fail):
    importlib.import_module(info.name)
    names.append(info.name)
print(json.dumps({
    "file": server.__file__,
    "modules": names,
    "loaded": sorted(sys.modules),
    "rules": sorted(RULES),
    "paths": {name: str(resources.path(name)) for name in resources.LAYOUT},
}))
"""


def run(*args: str | Path, **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert out.returncode == 0, f"{args} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would point Python back at the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "GINRUMMY_"))}
    env.pop("DATABASE_URL", None)
    return {**env, **extra}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the fresh venv's python, a working folder outside the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    # GINRUMMY_COMPILE=1: a wheel that cannot compile its hot paths fails here instead of
    # falling back to pure Python.
    run(sys.executable, "-m", "build", "--outdir", dist, ROOT, cwd=tmp, env=clean_env(GINRUMMY_COMPILE="1"))
    (wheel,) = dist.glob("*.whl")
    venv.create(tmp / "venv", with_pip=True)
    python = tmp / "venv" / "bin" / "python"
    run(python, "-m", "pip", "install", "-q", wheel, cwd=tmp, env=clean_env())
    return python, tmp


def test_the_wheel_ships_every_module_and_data_file_and_imports_no_test_extra(installed):
    python, tmp = installed
    info = json.loads(run(python, "-c", IMPORT_ALL, cwd=tmp, env=clean_env()).stdout)
    site = Path(info["file"]).parents[1]
    assert site.is_relative_to(tmp / "venv"), info["file"]  # the installed copy, not the checkout
    checkout = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in (ROOT / "server").rglob("*.py")
    } - {"server"}
    assert set(info["modules"]) == checkout
    assert [m for m in info["loaded"] if m.split(".")[0] in TEST_ONLY] == []
    assert {"house", "classic"} <= set(info["rules"])
    for name, where in info["paths"].items():
        assert Path(where) == site / "server" / "_data" / name
    for rel in ("rules/house.json", "rules/classic.json", "alembic.ini", "web/index.html"):
        assert (site / "server" / "_data" / rel).is_file(), rel
    assert sorted(p.name for p in (site / "server/_data/migrations/versions").glob("*.py")) == sorted(
        p.name for p in (ROOT / "migrations/versions").glob("*.py")
    )


def test_the_wheel_runs_its_hot_paths_compiled_and_a_checkout_runs_them_as_python(installed):
    python, tmp = installed
    code = (
        "import json; from server.compiled import MODULES, compiled; print(json.dumps([MODULES, compiled()]))"
    )
    modules, compiled = json.loads(run(python, "-c", code, cwd=tmp, env=clean_env()).stdout)
    assert compiled == modules
    # The documents the installed server serves are the repository's (mypyc would replace the
    # docstring of an enum defined in a compiled module, and the documents print them).
    code = "import json; from server.transport import documents as d; "
    code += "print(json.dumps({n: d.dumps(f()) for n, f in d.JSON_DOCUMENTS.items()}))"
    served = json.loads(run(python, "-c", code, cwd=tmp, env=clean_env()).stdout)
    assert served and all(text == (ROOT / "docs" / name).read_text() for name, text in served.items())
    from server.compiled import MODULES
    from server.compiled import compiled as here

    assert here() == []  # this checkout (an editable install): edits show at once
    setup = (ROOT / "setup.py").read_text()
    listed = re.search(r"^COMPILED = \((.*?)\)$", setup, re.M | re.S)
    assert listed is not None
    paths = re.findall(r'"(server/[\w/]+)\.py"', listed.group(1))
    assert [p.replace("/", ".") for p in paths] == list(MODULES) == modules


WORKER_DECISIONS = """
import asyncio, json
from server.bots import make_bot
from server.rules import RULES, deal
from server.service.thinking import ThinkingPool

async def main():
    hand, bots, views = deal(RULES["house"], starter=0, seed=5), [make_bot("normal", s) for s in (0, 1)], []
    while not hand.is_over and len(views) < 40:
        view = hand.view(hand.to_act)
        views.append(view)
        hand.apply(bots[hand.to_act].choose(view), hand.to_act)
    pool = ThinkingPool(1, queue_limit=100)
    try:
        there = await asyncio.gather(*(pool.choose("hard", "m:bot", v) for v in views))
    finally:
        pool.close()
    here = make_bot("hard", "m:bot")
    print(json.dumps({"views": len(views), "melds": sum(bool(v.arrangement and v.arrangement.melds) for v in views),
                      "same": there == [here.choose(v) for v in views]}))

asyncio.run(main())
"""


def test_the_wheels_bot_workers_receive_views_and_choose_as_here(installed):
    """Views (their arrangements' melds: classes of a compiled module) travel to the computer's
    worker processes by pickle, and the worker's choice is the in-process one."""
    python, tmp = installed
    out = json.loads(run(python, "-c", WORKER_DECISIONS, cwd=tmp, env=clean_env()).stdout)
    assert out["same"] and out["views"] >= 20 and out["melds"] > 0, out


def test_compiled_and_pure_python_play_the_same_actions(installed):
    """The same tournament (Hard against the MARJJ-style player, fixed deals) played by the
    wheel's compiled modules and by this checkout's Python gives the same hands and points."""
    python, tmp = installed
    args = ["-m", "server.bench", "tournament", "hard", "marjj", "--matches", "2", "--rules", "house"]
    args += ["--seed", "compiled", "--workers", "1", "--hard-worlds", "12"]

    def outcome(out: str) -> list[str]:
        lines = [
            line for line in out.splitlines() if "win rate" in line or "points" in line or "hands (" in line
        ]
        assert len(lines) == 3, out
        return lines

    wheel = outcome(run(python, *args, cwd=tmp, env=clean_env()).stdout)
    checkout = outcome(run(sys.executable, *args, cwd=ROOT).stdout)
    assert wheel == checkout


MESSAGES = """
import asyncio, json, tempfile
from pathlib import Path
from server.bench.moves import play
out = {}
for opponent in ("human", "normal"):
    with tempfile.TemporaryDirectory() as folder:
        out[opponent] = asyncio.run(play(Path(folder), 4, 80, 7, opponent, digest=True))
print(json.dumps({o: [r["digest"], r["moves"], r["messages"]] for o, r in out.items()}))
"""


def test_compiled_and_pure_python_send_the_same_state_messages(installed, tmp_path):
    """The same seeded games through the match service (between two people, and against Normal)
    send every seat the same ``state`` messages (their JSON, less the clock's fields), whether
    the rules and the views' conversion run compiled (the wheel) or as this checkout's
    Python."""
    python, tmp = installed
    wheel = json.loads(run(python, "-c", MESSAGES, cwd=tmp, env=clean_env()).stdout)
    checkout = json.loads(run(sys.executable, "-c", MESSAGES, cwd=tmp_path).stdout)
    assert wheel == checkout
    assert all(moves > 100 and messages > 1 for _, moves, messages in wheel.values()), wheel


@contextlib.contextmanager
def server_process(python: Path, tmp: Path) -> Iterator[str]:
    port = free_port()
    log = (tmp / "server.log").open("wb")
    args = ["-m", "server", "--port", str(port), "--database-url", f"sqlite+aiosqlite:///{tmp / 'x.db'}"]
    env = clean_env(GINRUMMY_BOT_DELAY="0", GINRUMMY_BOT_WORKERS="0")
    process = subprocess.Popen([python, *args], cwd=tmp, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    output = (tmp / "server.log").read_text
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                pytest.fail(f"the server exited with {process.returncode}:\n{output()}")
            with contextlib.suppress(OSError), urllib.request.urlopen(url + "/healthz", timeout=1) as r:
                if r.status == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not start in 30 s:\n{output()}")
            time.sleep(0.1)
        yield url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()
    assert process.returncode == 0, output()


async def test_the_installed_server_plays_serves_the_web_client_and_lists_the_rules(installed):
    python, tmp = installed
    with server_process(python, tmp) as url:
        async with aiohttp.ClientSession(url, timeout=aiohttp.ClientTimeout(total=20)) as http:
            async with http.get("/") as r:
                assert r.status == 200
                page = await r.text()
            # the page as the checkout's files make it: the wheel ships the same files
            expected = Page.build((ROOT / "clients" / "web").resolve())
            assert "<!doctype html>" in page.lower() and page == expected.html
            async with http.get(f"/v/{expected.version}/app.css") as r:
                assert r.status == 200 and await r.read() == expected.stylesheet
            async with http.get("/api/rules") as r:
                assert r.status == 200
                names = json.dumps(await r.json())
            assert '"house"' in names and '"classic"' in names

            async with http.post("/api/players", json={"name": "Ada"}) as r:
                assert r.status == 201, await r.text()
                token = (await r.json())["token"]
            auth = {"Authorization": f"Bearer {token}"}
            async with http.post("/api/matches", json={"difficulty": "easy"}, headers=auth) as r:
                assert r.status == 201, await r.text()
                match_id = (await r.json())["match_id"]

            async with http.ws_connect("/ws") as ws:
                await ws.send_json({"type": "hello", "match": match_id, "token": token})
                state = await ws.receive_json(timeout=10)
                assert state["type"] == "state", state
                while state["view"]["hand"]["to_act"] != state["view"]["seat"]:  # the computer starts
                    state = await ws.receive_json(timeout=10)
                legal = state["view"]["hand"]["legal_actions"]
                assert legal
                version = state["version"]
                await ws.send_json({"type": "act", "id": "a1", "version": version, "action": legal[0]})
                ack = await ws.receive_json(timeout=10)
                assert ack == {"type": "ack", "id": "a1", "version": version + 1}


def test_a_checkout_reads_its_own_folders_live():
    """Here (an editable install or the source tree) nothing is copied: developers' edits show."""
    assert not resources.PACKAGED.exists()
    assert resources.path("web") == ROOT / "clients" / "web"
    assert resources.rules_dir() == ROOT / "seeds" / "rules"
    assert resources.path("migrations") == ROOT / "migrations"
    assert resources.path("alembic.ini") == ROOT / "alembic.ini"


def test_missing_rule_presets_fail_loudly_at_import(tmp_path, monkeypatch):
    (tmp_path / "rules").mkdir()
    monkeypatch.setattr(resources, "PACKAGED", tmp_path)
    with pytest.raises(FileNotFoundError, match=r"classic\.json, house\.json"):
        resources.rules_dir()
    (tmp_path / "rules" / "house.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"presets classic\.json not found"):
        resources.rules_dir()
    code = "import server.resources as r, pathlib; r.PACKAGED = pathlib.Path(r'%s'); import server.rules"
    out = subprocess.run([sys.executable, "-c", code % tmp_path], capture_output=True, text=True)
    assert out.returncode != 0 and "FileNotFoundError: rule presets classic.json not found" in out.stderr
