"""``python -m server``: settings from options and environment, and ``migrate``."""

from __future__ import annotations

import math
import sqlite3

import pytest

from server.__main__ import main
from server.config import DEFAULT_DATABASE_URL, Settings
from server.storage.batch_sql import MAX_BATCH


def test_options_win_over_the_environment_which_wins_over_defaults():
    env = {
        "GINRUMMY_PORT": "9001",
        "GINRUMMY_HOST": "0.0.0.0",
        "GINRUMMY_BOT_DELAY": "0",
        "DATABASE_URL": "postgresql://u@h/db",
    }
    s = Settings.from_env(env, port=9002)
    assert (s.host, s.port, s.bot_delay) == ("0.0.0.0", 9002, 0.0)
    assert s.database_url == "postgresql+asyncpg://u@h/db"
    d = Settings.from_env({})
    assert (d.host, d.port, d.database_url, d.bot_delay) == ("127.0.0.1", 8080, DEFAULT_DATABASE_URL, 0.6)
    o = Settings.from_env({"GINRUMMY_ALLOWED_ORIGINS": "https://a.example/, https://b.example"})
    assert o.allowed_origins == ("https://a.example", "https://b.example")


def test_the_collectors_thresholds_come_from_the_environment():
    assert Settings.from_env({}).gc_thresholds == (1_000, 1, 1_000)
    assert Settings.from_env({"GINRUMMY_GC_THRESHOLDS": "2000,5,10"}).gc_thresholds == (2000, 5, 10)
    assert Settings.from_env({"GINRUMMY_GC_THRESHOLDS": "2000/5/10"}).gc_thresholds == (2000, 5, 10)
    assert Settings.from_env({}).gc_thaw_seconds == 86_400
    assert Settings.from_env({"GINRUMMY_GC_THAW_SECONDS": "0"}).gc_thaw_seconds == 0
    assert Settings.from_env({"GINRUMMY_GC_YOUNG_MESSAGES": "0"}).gc_young_messages == 0
    assert Settings.from_env({"GINRUMMY_GC_YOUNG_MESSAGES": "250"}).gc_young_messages == 250


def test_the_malloc_arena_cap_comes_from_the_environment():
    assert Settings.from_env({}).malloc_arenas == 2
    assert Settings.from_env({"GINRUMMY_MALLOC_ARENAS": "0"}).malloc_arenas == 0


def test_the_leaderboards_deviation_line_comes_from_the_environment():
    assert Settings.from_env({}).leaderboard_deviation == 110.0
    assert Settings.from_env({"GINRUMMY_LEADERBOARD_DEVIATION": "350"}).leaderboard_deviation == 350.0


def test_the_sqlite_batches_written_on_the_loops_thread_come_from_the_environment():
    from server.storage.sqlite_writer import INLINE_MAX

    assert Settings.from_env({}).sqlite_inline == INLINE_MAX
    assert Settings.from_env({"GINRUMMY_SQLITE_INLINE": "0"}).sqlite_inline == 0
    assert Settings.from_env({"GINRUMMY_SQLITE_INLINE": str(MAX_BATCH)}).sqlite_inline == MAX_BATCH


def test_migrations_at_startup_can_be_left_to_a_separate_job():
    assert Settings.from_env({}).migrate is True
    assert Settings.from_env({"GINRUMMY_MIGRATE": "0"}).migrate is False
    assert Settings.from_env({"GINRUMMY_MIGRATE": "1"}).migrate is True


def test_the_hard_computer_thinks_in_one_worker_per_spare_core_unless_told(monkeypatch, tmp_path):
    import os

    import server.config

    # The cores the process may use (its affinity), not every core of the machine.
    monkeypatch.setattr(server.config, "cpu_quota", lambda cgroup: None)
    for cores, workers in (({0}, 0), ({0, 1}, 1), ({2, 3, 5}, 2), (set(range(16)), 4)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, cores=cores: cores)
        assert Settings.from_env({}).bot_workers == workers
    # Nor more than a CPU quota allows (docker --cpus=2.5 on a 16-core host: 3 cores, 2 workers).
    monkeypatch.setattr(server.config, "cpu_quota", lambda cgroup: 2.5)
    assert Settings.from_env({}).bot_workers == 2
    assert Settings.from_env({"GINRUMMY_BOT_WORKERS": "0"}).bot_workers == 0
    assert Settings.from_env({"GINRUMMY_BOT_WORKERS": "3"}).bot_workers == 3


async def test_a_server_that_does_not_migrate_uses_the_schema_a_migrate_job_made(make_client, tmp_path):
    import asyncio

    url = f"sqlite+aiosqlite:///{tmp_path / 'job.db'}"
    unmigrated = await make_client(database_url=url, migrate=False)
    r = await unmigrated.post("/api/players", json={"name": "Ada"})
    assert r.status == 500  # no tables: it really did not migrate
    await unmigrated.close()
    assert await asyncio.to_thread(main, ["migrate", "--database-url", url]) == 0
    client = await make_client(database_url=url, migrate=False)
    r = await client.post("/api/players", json={"name": "Ada"})
    assert r.status == 201


@pytest.mark.parametrize(
    ("files", "quota"),
    [
        ({"cpu.max": "250000 100000\n"}, 2.5),  # cgroup v2, docker --cpus=2.5
        ({"cpu.max": "max 100000\n"}, None),  # cgroup v2, no limit
        ({"cpu/cpu.cfs_quota_us": "150000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 1.5),  # v1
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),  # v1, none
        ({}, None),  # no cgroup files (not Linux, or not mounted)
    ],
)
def test_a_cpu_quota_is_read_from_either_cgroup_version(tmp_path, files, quota):
    from server.config import cpu_quota, usable_cores

    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    assert cpu_quota(tmp_path) == quota
    assert 1 <= usable_cores(tmp_path) <= (math.ceil(quota) if quota else 1024)


@pytest.mark.parametrize(
    "env",
    [
        {"GINRUMMY_MIGRATE": "maybe"},
        {"GINRUMMY_PORT": "70000"},
        {"GINRUMMY_BOT_DELAY": "-1"},
        {"GINRUMMY_LOG_LEVEL": "loud"},
        {"GINRUMMY_BOT_WORKERS": "-2"},
        {"GINRUMMY_BOT_WORKERS": "some"},
        {"GINRUMMY_GC_THRESHOLDS": "700,10"},
        {"GINRUMMY_GC_THAW_SECONDS": "-1"},
        {"GINRUMMY_GC_THRESHOLDS": "0,10,10"},
        {"GINRUMMY_GC_THRESHOLDS": "many,10,10"},
        {"GINRUMMY_GC_YOUNG_MESSAGES": "-1"},
        {"GINRUMMY_GC_YOUNG_MESSAGES": "often"},
        {"GINRUMMY_SQLITE_INLINE": "-1"},
        {"GINRUMMY_SQLITE_INLINE": str(MAX_BATCH + 1)},
        {"GINRUMMY_SQLITE_INLINE": "some"},
        {"GINRUMMY_MALLOC_ARENAS": "-1"},
        {"GINRUMMY_MALLOC_ARENAS": "65"},
        {"GINRUMMY_LEADERBOARD_DEVIATION": "20"},
        {"GINRUMMY_RATE_LIMIT_STORAGE": "memcached://127.0.0.1:11211"},
        {"GINRUMMY_RATE_LIMIT_STORAGE": "redis://127.0.0.1:notaport/0"},
        {"GINRUMMY_LEADERBOARD_DEVIATION": "351"},
    ],
)
def test_bad_settings_are_refused(env):
    with pytest.raises(ValueError):
        Settings.from_env(env)


@pytest.fixture(autouse=True)
def keep_pytest_logging(monkeypatch):
    """``main`` installs the JSON log handler on the root logger; not inside the test run."""
    monkeypatch.setattr("server.service.logs.configure", lambda level: None)


def test_migrate_creates_the_schema(tmp_path):
    db = tmp_path / "sub" / "m.db"
    assert main(["migrate", "--database-url", f"sqlite:///{db}", "--log-level", "warning"]) == 0
    with sqlite3.connect(db) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    assert {"players", "matches", "actions", "hands", "alembic_version"} <= tables
    assert mode == "wal"


def test_a_bad_option_exits_with_status_2(capsys):
    assert main(["--port", "99999", "--database-url", "sqlite:///x.db"]) == 2
    assert "port" in capsys.readouterr().err
