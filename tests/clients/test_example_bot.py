"""The example bot finds its server as the README says (``--server``, else ``$GINRUMMY_SERVER``,
else the invite URL's server, else the local one) and says in one line when it cannot reach it."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys

from .live import CLIENT_ROOT

EXAMPLE = CLIENT_ROOT / "examples" / "example_bot.py"


def _example():
    spec = importlib.util.spec_from_file_location("example_bot", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_server_comes_from_the_option_the_environment_the_invite_or_the_local_default(monkeypatch):
    bot = _example()
    invite = "https://gin.example:8443/?match=m_1&invite=XYZ"
    monkeypatch.delenv("GINRUMMY_SERVER", raising=False)
    assert bot.parse_args(["--invite", invite]).server == "https://gin.example:8443"
    assert bot.parse_args(["--invite", "m_1:XYZ"]).server == "http://127.0.0.1:8080"
    assert bot.parse_args(["--seek"]).server == "http://127.0.0.1:8080"
    assert bot.parse_args(["--invite", invite, "--server", "http://h:1"]).server == "http://h:1"
    monkeypatch.setenv("GINRUMMY_SERVER", "http://env:2")
    assert bot.parse_args(["--invite", invite]).server == "http://env:2"
    assert bot.parse_args(["--ladder"]).server == "http://env:2"
    assert bot.parse_args(["--seek", "--server", "http://h:1"]).server == "http://h:1"


def test_a_server_it_cannot_reach_is_one_line_not_a_traceback():
    server = f"http://127.0.0.1:{_closed_port()}"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--seek"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "GINRUMMY_SERVER": server},
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot reach the server at {server}: "), lines
