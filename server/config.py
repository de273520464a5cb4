"""Server settings: one frozen object built from defaults, environment variables and the command
line (in that order of precedence, the command line winning).

It only reads the environment; it never opens a file, a socket or a database.

Environment variables: ``GINRUMMY_HOST``, ``GINRUMMY_PORT``, ``DATABASE_URL``,
``GINRUMMY_LOG_LEVEL``, ``GINRUMMY_BOT_DELAY`` (seconds of human-like pause before the computer
moves), ``GINRUMMY_ALLOWED_ORIGINS`` (comma-separated browser origins allowed on the WebSocket
besides the server's own; ``*`` allows any), ``GINRUMMY_MIGRATE`` (``0`` to skip the migrations
at startup, when a separate ``python -m server migrate`` job runs them), ``GINRUMMY_BROADCAST``
(``local`` or ``postgres``: how changes reach other server processes; default ``postgres`` on a
Postgres database, else ``local``), ``GINRUMMY_BOT_WORKERS`` (processes that think for the Hard
computer; ``0`` thinks in a thread of the server process; default: one fewer than the usable
cores, at most 4), ``GINRUMMY_TRUSTED_PROXIES`` (comma-separated addresses or networks of the
reverse proxies whose ``X-Forwarded-For``/``-Proto``/``-Host`` are believed; default none),
``GINRUMMY_WS_COMPRESS`` (``1`` to accept WebSocket compression; default off),
``GINRUMMY_UVLOOP`` (``0`` to keep asyncio's event loop when uvloop is installed),
``GINRUMMY_GC_FREEZE_SECONDS`` (at most how often a collection's survivors are frozen out of
the collector's way; default 0.001, after every collection in effect; 0: never),
``GINRUMMY_GC_THAW_SECONDS`` (how often the frozen objects are thawed and collected in full,
freeing any cycle frozen alive; default 86400, a day; 0: never),
``GINRUMMY_GC_THRESHOLDS`` (the collector's three thresholds; default ``1000,1,1000``; ``/`` may
stand for the commas), ``GINRUMMY_GC_YOUNG_MESSAGES`` (a young collection once so many messages
were queued to clients with none between; default 0, only the thresholds'),
``GINRUMMY_SQLITE_INLINE`` (the largest batch of changes a SQLite file's group commit writes on
the event loop's thread when the file is free, rather than on its writer thread; default 4, 0:
none),
``GINRUMMY_SQLITE_SWITCH_INTERVAL`` (the interpreter's switch interval while a SQLite file's
group commit writes on its writer thread while the event loop is busy; default 0, Python's
own),
``GINRUMMY_MALLOC_ARENAS`` (the most malloc arenas the process may use, on glibc; default 2,
0: glibc's own default), ``GINRUMMY_LEADERBOARD_DEVIATION`` (the largest rating deviation on the
leaderboard; default 110), ``GINRUMMY_RATE_LIMIT_STORAGE`` (a ``redis://`` URL where every
process counts the REST rate limits; default: each process in its own memory),
``GINRUMMY_ADMIT_WAIT`` (seconds a commit may take on average before the process refuses new
matches and seeks, as ``503`` to try again later; default 0.1; 0: never).
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from redis.connection import parse_url

from server.service.admission import MAX_WAIT
from server.service.ladder import REFERENCES
from server.service.ratings import ESTABLISHED_DEVIATION
from server.storage.batch_sql import MAX_BATCH

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = Path("data")
DEFAULT_DATABASE_URL = f"sqlite+aiosqlite:///{DEFAULT_DATA_DIR / 'ginrummy.db'}"


def usable_cores(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """The cores this process may use: its CPU affinity (``taskset``, a container's cpuset)
    where the system keeps one, else every core of the machine; fewer under a CPU quota
    (``docker --cpus``, a Kubernetes CPU limit), rounded up."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = cpu_quota(cgroup)
    return max(1, min(cores, math.ceil(quota))) if quota else cores


def cpu_quota(cgroup: Path) -> float | None:
    """Cores' worth of CPU time the process's control group may use, or None if unlimited.
    Reads the container's own view: cgroup v2 ``cpu.max`` (``"200000 100000"``, or ``"max
    100000"``), else cgroup v1 ``cpu/cpu.cfs_quota_us`` over ``cpu.cfs_period_us`` (-1: none)."""
    try:
        quota, period = (cgroup / "cpu.max").read_text().split()
    except (OSError, ValueError):
        try:
            quota = (cgroup / "cpu" / "cpu.cfs_quota_us").read_text().strip()
            period = (cgroup / "cpu" / "cpu.cfs_period_us").read_text().strip()
        except OSError:
            return None
    try:
        q, p = int(quota), int(period)
    except ValueError:  # "max"
        return None
    return q / p if q > 0 and p > 0 else None


def _redis_url(url: str) -> None:
    """Refuse a rate limit storage that is not a ``redis://`` or ``rediss://`` URL redis-py reads."""
    if not url.startswith(("redis://", "rediss://")):
        raise ValueError("GINRUMMY_RATE_LIMIT_STORAGE is a redis:// or rediss:// URL")
    try:
        parse_url(url)  # type: ignore[no-untyped-call]  # (redis-py leaves it unannotated)
    except ValueError as e:
        raise ValueError(f"GINRUMMY_RATE_LIMIT_STORAGE is not a Redis URL redis-py can read: {e}") from None


@dataclass(frozen=True, slots=True)
class Limits:
    """Abuse limits. Rates use the ``limits`` notation ("20/minute")."""

    ws_max_message: int = 4096
    """Largest client message answered normally; bigger ones get a ``too_large`` error."""
    ws_max_frame: int = 64 * 1024
    """Frames over this close the socket with 1009."""
    ws_rate: str = "1000/second"
    """Per-connection message rate; over it a message gets ``rate_limited``."""
    ws_max_errors: int = 50
    """Errors in a row after which the socket is closed with 4008."""
    ws_max_per_address: int = 100
    """Sockets open at once from one client address (per server process); past it the upgrade
    is answered ``429 rate_limited``."""
    ws_max_per_match: int = 50
    """Sockets bound to one match at once for each seat, and for its watchers (per server
    process): each counts apart, so neither the other seat nor a watch link's crowd can keep a
    player out. A ``hello`` past it gets ``rate_limited`` and close 4008."""
    ws_heartbeat: float = 20.0
    """Seconds a WebSocket may send nothing before the server pings it; half as long again
    with no answer and it is dropped (see server/transport/heartbeat.py)."""
    ws_hello_timeout: float = 30.0
    http_max_body: int = 4096
    http_body_seconds: float = 10.0
    """A request body must have arrived within this many seconds (a trickled one is refused)."""
    players_rate: str = "30/minute"
    """New identities per client address."""
    max_waiting_matches: int = 5
    """Matches one player may have waiting for an opponent; one more is ``too_many_matches``."""
    max_active_matches: int = 20
    """Matches one player may have in play (creating or joining one more: ``too_many_matches``)."""
    login_account_rate: str = "10/minute"
    """Password sign-ins tried for one username (right or wrong) without a device key of its
    account; past it ``429 rate_limited`` with ``limit: "login_account"``."""
    login_device_rate: str = "10/minute"
    """Password sign-ins tried with one device key (a device that signed in to the account
    before, held apart from the username's limit): ``limit: "login_device"``."""
    login_address_rate: str = "30/minute"
    """Sign-ins tried (password or passkey) from one client address: ``limit: "login_address"``."""
    signup_rate: str = "10/minute"
    """Usernames and passwords tried from one client address (``POST /api/account/password``,
    ``limit: "signup"``): each costs a password hash, and each taken name answered tells that it
    exists."""
    waiting_match_seconds: float = 7 * 86400.0
    """A match nobody has joined within this long is deleted (its invite stops working)."""
    claim_seconds: float = 60.0
    """How long a human opponent must have been disconnected before the match can be claimed."""
    clock_tick_seconds: float = 1.0
    """How often each server process looks for deadlines that have passed."""
    requests_rate: str = "600/minute"
    """REST requests per player token; a missing or unknown token counts against the client
    address instead."""
    analysis_rate: str = "10/minute"
    """Match analyses computed per player (``GET /api/matches/{id}/analysis``; ``limit:
    "analysis"``); answers from the cache count too."""
    hint_rate: str = "60/minute"
    """Hints per player (``GET /api/matches/{id}/hint``; ``limit: "hint"``)."""
    analysis_per_address: int = 4
    """Analyses and hints being worked out at once for one client address (per process); one
    more is ``429 rate_limited`` with ``limit: "analysis_busy"``: many players from one address
    cannot take every worker's share."""
    analysis_worlds: int = 16
    """Sampled worlds per decision of an analysis or a hint (the CPU budget: at most that many
    playouts per legal action; Hard plays with 40)."""


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8080
    database_url: str = DEFAULT_DATABASE_URL
    log_level: str = "info"
    bot_delay: float = 0.6
    allowed_origins: tuple[str, ...] = ()
    migrate: bool = True
    """Apply the migrations at startup."""
    broadcast: str = ""
    """``local`` (one process) or ``postgres`` (LISTEN/NOTIFY between processes); empty means
    ``postgres`` on a Postgres database, else ``local``."""
    static_dir: Path = ROOT / "clients" / "web"
    limits: Limits = field(default_factory=Limits)
    shutdown_timeout: float = 10.0
    bot_workers: int = -1
    """Worker processes for the Hard computer's thinking (0: a thread of this process; -1: one
    fewer than the usable cores, at most 4)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses or networks (``10.0.0.5``, ``172.30.0.0/24``) of the reverse proxies in front of
    the server: only a request from one of them has its ``X-Forwarded-*`` headers believed (its
    client address, scheme and host); from anywhere else they are ignored."""
    ws_compress: bool = False
    """Accept the permessage-deflate compression browsers offer on the WebSocket. Off: measured
    with the scale benchmark it cost 1.2-1.3x the CPU per move and several times the memory per
    live match (each socket keeps a compressor and a decompressor), for state messages of a few
    kilobytes."""
    gc_freeze_seconds: float = 0.001
    """After a collection, move what survived it into the permanent generation (``gc.freeze``),
    at most once per so many seconds, so no collection walks the live matches again (0: never).
    The default, a millisecond, is after every collection in effect; once a second (the default
    before), a saturated server spent 9-10% of its time in the collector instead of 5%. See
    :mod:`server.transport.gcwatch`."""
    gc_thaw_seconds: float = 86_400.0
    """Once per so many seconds (a day), the freeze first thaws what was frozen and collects it
    in full, freeing any reference cycle that a freeze caught alive (0: never). The server's own
    paths make none (a closed socket's, aiohttp's, is broken at close), so this is a safety net;
    its pause grows with the live matches (about 0.25 s at 1,000), hence its rarity."""
    gc_thresholds: tuple[int, int, int] = (1_000, 1, 1_000)
    """The collector's thresholds (``gc.set_threshold``), set once the server has started. A
    young collection walks what was allocated since the last one, and the live matches' new
    objects survive it: with a first threshold of 10,000 (the default before) the longest
    collection at 1,000 live matches took 76 ms of CPU and at 3,000 up to 195 ms; with 1,000,
    20-23 ms and 41-47 ms. The second: a generation-1 collection walks what survived the
    generation-0 collections since the last one, 25-35 ms at 3,000 live matches after ten of
    them, so one follows every second. The third: the freeze (``gc_freeze_seconds``) does the
    oldest generation's work (it resets the counts), so the collector's own full collections,
    once its younger ones ran more often, only walked a second's survivors, for up to 170 ms at
    10,000 (the scale benchmark, variants interleaved: see the README's Scale section)."""
    gc_young_messages: int = 0
    """A collection of the youngest generation once so many messages have been queued to
    clients with no collection between (0: only the thresholds' own; see
    :class:`server.transport.gcwatch.YoungPace`). A trade, hence off: at 10,000 live matches,
    overloaded, 100 or 300 took the collector's pauses over 20 ms from 1-15 to none in each of
    three runs but carried 8-15% fewer actions a second; at 3,000 at a person's pace (no slow
    pause either way) 100 cost 2-13% more CPU per action, 300 none measurable
    (docs/benchmarks.md, stop 45)."""
    ladder_cpu: float = 0.0
    """The bot ladder's CPU budget: the share of one core its references may use (0.1: a tenth;
    0: the ladder schedules nothing). Set it on one process only (see server/service/ladder.py)."""
    ladder_references: tuple[str, ...] = tuple(REFERENCES)
    """The references that play on the ladder."""
    rate_limit_storage: str = ""
    """A ``redis://`` (or ``rediss://``) URL where the REST rate limits are counted, shared by
    every process behind the balancer; empty: each process counts in its own memory, so N
    replicas allow N times each limit (see :mod:`server.transport.ratelimit`)."""
    leaderboard_deviation: float = ESTABLISHED_DEVIATION
    """The largest rating deviation on the leaderboard (a rating above it is provisional): what
    keeps one player beating throwaway players off it (see :mod:`server.service.ratings`). A
    small club may raise it to list its players sooner."""
    sqlite_inline: int = 4
    """On a SQLite file, the largest batch of changes the group commit writes on the event loop's
    own thread (at a light load, and when no other connection holds the file's write lock) rather
    than on its writer thread: no thread hop each way (see server/storage/sqlite_writer.py). 0: every batch on the
    writer thread."""
    sqlite_switch_interval: float = 0.0
    """On a SQLite file, the interpreter's thread switch interval (``sys.setswitchinterval``)
    while the group commit writes a batch on its writer thread: that thread wins the GIL back
    from a busy event loop after each SQLite call within this long rather than Python's 5 ms
    (see server/storage/sqlite_writer.py). 0: Python's own throughout."""
    malloc_arenas: int = 2
    """The most malloc arenas the process may use (glibc; 0: glibc's default of eight per core):
    each thread's own arena kept freed memory the event loop's thread never reused (see
    :mod:`server.transport.arenas`)."""
    admit_wait: float = MAX_WAIT
    """Seconds a commit may take on average (the database's time and the event loop's backlog)
    before this process refuses new players: a new match, a seek (``503 unavailable`` with
    ``Retry-After``, or the lobby socket's ``unavailable`` error), while the players already
    seated play on. 0: never refuse (see server/service/admission.py)."""
    uvloop: bool = True
    """Run on uvloop when it is installed (the ``fast`` extra); else, or when off, asyncio's own
    event loop."""

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``env`` (default ``os.environ``); keyword ``overrides`` that are not
        None win (the command line passes its options here)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        if "GINRUMMY_HOST" in env:
            values["host"] = env["GINRUMMY_HOST"]
        if "GINRUMMY_PORT" in env:
            values["port"] = _int(env, "GINRUMMY_PORT")
        if env.get("DATABASE_URL"):
            values["database_url"] = normalize_database_url(env["DATABASE_URL"])
        if "GINRUMMY_LOG_LEVEL" in env:
            values["log_level"] = env["GINRUMMY_LOG_LEVEL"]
        if "GINRUMMY_BOT_DELAY" in env:
            values["bot_delay"] = _float(env, "GINRUMMY_BOT_DELAY")
        if "GINRUMMY_ALLOWED_ORIGINS" in env:
            values["allowed_origins"] = tuple(
                o.strip().rstrip("/") for o in env["GINRUMMY_ALLOWED_ORIGINS"].split(",") if o.strip()
            )
        if env.get("GINRUMMY_BROADCAST"):
            values["broadcast"] = env["GINRUMMY_BROADCAST"].strip().lower()
        if "GINRUMMY_MIGRATE" in env:
            values["migrate"] = _flag("GINRUMMY_MIGRATE", env["GINRUMMY_MIGRATE"])
        if "GINRUMMY_TRUSTED_PROXIES" in env:
            values["trusted_proxies"] = tuple(
                p.strip() for p in env["GINRUMMY_TRUSTED_PROXIES"].split(",") if p.strip()
            )
        if "GINRUMMY_WS_COMPRESS" in env:
            values["ws_compress"] = _flag("GINRUMMY_WS_COMPRESS", env["GINRUMMY_WS_COMPRESS"])
        if "GINRUMMY_GC_FREEZE_SECONDS" in env:
            values["gc_freeze_seconds"] = _float(env, "GINRUMMY_GC_FREEZE_SECONDS")
        if "GINRUMMY_GC_THAW_SECONDS" in env:
            values["gc_thaw_seconds"] = _float(env, "GINRUMMY_GC_THAW_SECONDS")
        if "GINRUMMY_GC_THRESHOLDS" in env:
            parts = env["GINRUMMY_GC_THRESHOLDS"].replace("/", ",").split(",")
            try:
                first, second, third = (int(p) for p in parts)
            except ValueError:
                raise ValueError("GINRUMMY_GC_THRESHOLDS is three integers, e.g. 10000,10,10") from None
            values["gc_thresholds"] = (first, second, third)
        if "GINRUMMY_GC_YOUNG_MESSAGES" in env:
            values["gc_young_messages"] = _int(env, "GINRUMMY_GC_YOUNG_MESSAGES")
        if "GINRUMMY_UVLOOP" in env:
            values["uvloop"] = _flag("GINRUMMY_UVLOOP", env["GINRUMMY_UVLOOP"])
        if "GINRUMMY_MALLOC_ARENAS" in env:
            values["malloc_arenas"] = _int(env, "GINRUMMY_MALLOC_ARENAS")
        if "GINRUMMY_ADMIT_WAIT" in env:
            values["admit_wait"] = _float(env, "GINRUMMY_ADMIT_WAIT")
        if "GINRUMMY_SQLITE_SWITCH_INTERVAL" in env:
            values["sqlite_switch_interval"] = _float(env, "GINRUMMY_SQLITE_SWITCH_INTERVAL")
        if "GINRUMMY_SQLITE_INLINE" in env:
            values["sqlite_inline"] = _int(env, "GINRUMMY_SQLITE_INLINE")
        if "GINRUMMY_LADDER_CPU" in env:
            values["ladder_cpu"] = _float(env, "GINRUMMY_LADDER_CPU")
        if env.get("GINRUMMY_RATE_LIMIT_STORAGE"):
            values["rate_limit_storage"] = env["GINRUMMY_RATE_LIMIT_STORAGE"].strip()
        if "GINRUMMY_LEADERBOARD_DEVIATION" in env:
            values["leaderboard_deviation"] = _float(env, "GINRUMMY_LEADERBOARD_DEVIATION")
        if "GINRUMMY_LADDER_REFERENCES" in env:
            values["ladder_references"] = tuple(
                r.strip() for r in env["GINRUMMY_LADDER_REFERENCES"].split(",") if r.strip()
            )
        if "GINRUMMY_BOT_WORKERS" in env:
            values["bot_workers"] = _int(env, "GINRUMMY_BOT_WORKERS")
        # Clock limits (docs/protocol.md, "Clocks, claims and rematches").
        timing: dict[str, Any] = {
            name: _float(env, var)
            for name, var in (
                ("claim_seconds", "GINRUMMY_CLAIM_SECONDS"),
                ("waiting_match_seconds", "GINRUMMY_WAITING_MATCH_SECONDS"),
            )
            if var in env
        }
        if timing:
            values["limits"] = replace(Limits(), **timing)
        for key, value in overrides.items():
            if value is not None:
                values[key] = normalize_database_url(value) if key == "database_url" else value
        settings = Settings(**values)
        settings.validate()
        return settings

    def __post_init__(self) -> None:
        if not self.broadcast:
            postgres = self.database_url.startswith(("postgresql", "postgres"))
            object.__setattr__(self, "broadcast", "postgres" if postgres else "local")
        if self.bot_workers == -1:
            object.__setattr__(self, "bot_workers", min(4, usable_cores() - 1))

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)

    def validate(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port {self.port} is out of range")
        if self.bot_delay < 0:
            raise ValueError("the bot delay cannot be negative")
        if self.gc_freeze_seconds < 0:
            raise ValueError("the collector's freeze period cannot be negative (0: off)")
        if self.gc_thaw_seconds < 0:
            raise ValueError("the collector's thaw period cannot be negative (0: off)")
        if min(self.gc_thresholds) < 1:
            raise ValueError("the collector's thresholds must be positive")
        if self.admit_wait < 0:
            raise ValueError("GINRUMMY_ADMIT_WAIT cannot be negative (0: never refuse)")
        if self.gc_young_messages < 0:
            raise ValueError("GINRUMMY_GC_YOUNG_MESSAGES cannot be negative (0: off)")
        if self.rate_limit_storage:
            _redis_url(self.rate_limit_storage)
        if not 30 <= self.leaderboard_deviation <= 350:
            raise ValueError("GINRUMMY_LEADERBOARD_DEVIATION is 30 to 350 (a new player's deviation)")
        if not 0 <= self.ladder_cpu <= 64:
            raise ValueError("the ladder's CPU share must be from 0 (off) to 64 cores")
        unknown = [r for r in self.ladder_references if r not in REFERENCES]
        if unknown or not self.ladder_references:
            raise ValueError(f"ladder references must be some of {', '.join(REFERENCES)} (not {unknown})")
        if not 0 <= self.sqlite_inline <= MAX_BATCH:
            raise ValueError(f"GINRUMMY_SQLITE_INLINE is 0 (off) to {MAX_BATCH} (the largest batch) changes")
        if not 0 <= self.sqlite_switch_interval <= 0.1:
            raise ValueError("GINRUMMY_SQLITE_SWITCH_INTERVAL is 0 (Python's own) to 0.1 seconds")
        if not 0 <= self.malloc_arenas <= 64:
            raise ValueError("GINRUMMY_MALLOC_ARENAS is 0 (glibc's default) to 64 arenas")
        if self.bot_workers < 0:
            raise ValueError("bot workers cannot be negative (0: think in a thread)")
        if self.broadcast not in ("local", "postgres"):
            raise ValueError(f"broadcast must be 'local' or 'postgres', not {self.broadcast!r}")
        if self.broadcast == "postgres" and not self.database_url.startswith(("postgresql", "postgres")):
            raise ValueError("broadcast 'postgres' needs a Postgres database")
        for proxy in self.trusted_proxies:
            try:
                ipaddress.ip_network(proxy, strict=False)
            except ValueError:
                raise ValueError(f"trusted proxy {proxy!r} is not an address or a network") from None
        if self.log_level.lower() not in {"debug", "info", "warning", "error", "critical"}:
            raise ValueError(f"unknown log level {self.log_level!r}")


def _int(env: Mapping[str, str], name: str) -> int:
    """``env[name]`` as a whole number; else an error that names the variable (a bare
    ``int()`` said only "invalid literal for int() with base 10: 'abc'", and not where)."""
    try:
        return int(env[name])
    except ValueError:
        raise ValueError(f"{name} must be a whole number, not {env[name]!r}") from None


def _float(env: Mapping[str, str], name: str) -> float:
    """``env[name]`` as a number of seconds or a share; else an error that names the variable."""
    try:
        return float(env[name])
    except ValueError:
        raise ValueError(f"{name} must be a number, not {env[name]!r}") from None


def _flag(name: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name} must be 0 or 1, not {value!r}")


def normalize_database_url(url: str) -> str:
    """Accept the usual synchronous spellings and pick the async driver for them:
    ``postgres://`` and ``postgresql://`` use asyncpg, ``sqlite://`` uses aiosqlite.

    >>> normalize_database_url("postgresql://postgres@127.0.0.1/test")
    'postgresql+asyncpg://postgres@127.0.0.1/test'
    >>> normalize_database_url("sqlite:///data/x.db")
    'sqlite+aiosqlite:///data/x.db'
    """
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url[len(prefix) :]
    if url.startswith("sqlite://"):
        return "sqlite+aiosqlite://" + url[len("sqlite://") :]
    return url
