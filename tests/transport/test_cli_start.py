"""``python -m server`` as an operator meets it: options work before or after the subcommand,
and a start that fails for a reason the operator can fix (the port taken, the database
unreachable, a setting that is no number) says what to fix in one line and exits non-zero,
rather than a traceback."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from server.__main__ import _parser, main

ROOT = Path(__file__).resolve().parents[2]
BOGUS_POSTGRES = "postgresql+asyncpg://u@127.0.0.1:1/x"  # nothing listens on port 1


@pytest.mark.parametrize(
    ("argv", "command", "values"),
    [
        (["--database-url", "sqlite:///a.db", "migrate"], "migrate", {"database_url": "sqlite:///a.db"}),
        (["migrate", "--database-url", "sqlite:///a.db"], "migrate", {"database_url": "sqlite:///a.db"}),
        (["--log-level", "warning", "migrate", "--revision", "0001"], "migrate", {"log_level": "warning"}),
        (["--port", "9000", "serve"], "serve", {"port": 9000}),
        (["serve", "--port", "9000"], "serve", {"port": 9000}),
        (["--port", "9000"], None, {"port": 9000}),
        (["--host", "0.0.0.0", "serve", "--port", "9000"], "serve", {"host": "0.0.0.0", "port": 9000}),
        (["--port", "9000", "serve", "--port", "9001"], "serve", {"port": 9001}),  # the later wins
    ],
)
def test_options_count_before_the_subcommand_as_after_it(argv, command, values):
    args = _parser().parse_args(argv)
    assert args.command == command
    for name, value in values.items():
        assert getattr(args, name) == value, f"{argv}: {name}"


def test_serving_options_given_to_migrate_are_refused_not_ignored(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--port", "9000", "migrate"])
    assert exit.value.code == 2
    assert "--port" in capsys.readouterr().err


def test_migrate_uses_the_database_named_before_the_subcommand(tmp_path, monkeypatch):
    monkeypatch.setattr("server.service.logs.configure", lambda level: None)
    monkeypatch.chdir(tmp_path)  # where the default database would land, were the URL lost
    db = tmp_path / "named.db"
    assert main(["--database-url", f"sqlite:///{db}", "migrate"]) == 0
    with sqlite3.connect(db) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "alembic_version" in tables
    assert not (tmp_path / "data").exists()


def start(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m server`` with these arguments, in ``tmp_path``; it is expected to give up."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GINRUMMY_") and k != "DATABASE_URL"}
    environ.update({"GINRUMMY_BOT_WORKERS": "0", "PYTHONPATH": str(ROOT), **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


def errors_of(stderr: str) -> list[str]:
    """The error lines of the server's JSON log on stderr (every line must be JSON)."""
    lines = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    return [line["msg"] for line in lines if line["level"] in ("error", "critical")]


def test_a_port_in_use_is_one_line_that_names_the_port(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = start(tmp_path, "--port", str(port), "--database-url", f"sqlite:///{tmp_path / 's.db'}")
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (error,) = errors_of(done.stderr)
    assert f"127.0.0.1:{port}" in error and "in use" in error and "--port" in error


def test_an_unreachable_database_is_one_line_that_says_which_setting_to_fix(tmp_path):
    done = start(tmp_path, "--port", "0", "--database-url", BOGUS_POSTGRES)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (error,) = errors_of(done.stderr)
    assert "cannot reach the database" in error and "DATABASE_URL" in error
    assert len(done.stderr.splitlines()) <= 2, done.stderr  # at most the "serving" line before it


def test_a_migration_against_an_unreachable_database_is_one_line_too(tmp_path):
    done = start(tmp_path, "migrate", env={"DATABASE_URL": BOGUS_POSTGRES})
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    (error,) = errors_of(done.stderr)
    assert "cannot reach the database" in error


@pytest.mark.parametrize(
    "variable", ["GINRUMMY_PORT", "GINRUMMY_BOT_DELAY", "GINRUMMY_BOT_WORKERS", "GINRUMMY_CLAIM_SECONDS"]
)
def test_a_setting_that_is_no_number_is_named(tmp_path, variable):
    done = start(tmp_path, env={variable: "abc"})
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {variable} must be a whole number, not 'abc'" or (
        done.stderr.strip() == f"error: {variable} must be a number, not 'abc'"
    ), done.stderr
