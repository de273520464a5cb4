"""``python -m server`` (or ``ginrummy-server``): run the match server, or migrate its database.

    python -m server [serve] [--host H] [--port P] [--database-url URL] [--log-level L]
    python -m server migrate [--database-url URL] [--revision head]

Options may come before the subcommand or after it. A start that fails for a reason the
operator can fix (the port in use, the database unreachable, a setting that is no number) says
so in one line and exits non-zero, instead of a traceback.

Options win over the environment (GINRUMMY_HOST, GINRUMMY_PORT, DATABASE_URL,
GINRUMMY_LOG_LEVEL, GINRUMMY_BOT_DELAY, GINRUMMY_ALLOWED_ORIGINS, GINRUMMY_TRUSTED_PROXIES,
GINRUMMY_BROADCAST, GINRUMMY_WS_COMPRESS, GINRUMMY_UVLOOP).
Migrations are also applied at every start, unless GINRUMMY_MIGRATE=0 (replicas behind a
separate migration job).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
from typing import TYPE_CHECKING

from server.config import Settings
from server.start_problems import database_problem, listen_problem, shown_url

if TYPE_CHECKING:
    from aiohttp import web

log = logging.getLogger("server")


SERVE_ONLY = ("host", "port", "bot_delay")
"""Options that mean something only to ``serve``."""


def _common_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--database-url", default=default, help="SQLAlchemy async URL (default: SQLite in ./data/ginrummy.db)"
    )
    parser.add_argument("--log-level", default=default, help="debug, info, warning, error, critical")


def _serve_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument("--host", default=default, help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=default, help="port (default 8080)")
    parser.add_argument(
        "--bot-delay", type=float, default=default, help="seconds the computer pauses before moving"
    )


def _parser() -> argparse.ArgumentParser:
    """Options may come before the subcommand or after it (``--port 9000 serve``, ``serve
    --port 9000``). The subcommands' own copies of the options default to SUPPRESS: argparse
    copies everything a subparser parsed, defaults included, over what the main parser had
    already read, so with a default of None an option given before the subcommand was silently
    reset to None."""
    parser = argparse.ArgumentParser(prog="python -m server", description="Gin Rummy match server")
    _common_options(parser, None)
    _serve_options(parser, None)  # the same options without a subcommand mean "serve"
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="serve (the default)")
    _common_options(serve, argparse.SUPPRESS)
    _serve_options(serve, argparse.SUPPRESS)
    migrate = sub.add_parser("migrate", help="apply the database migrations")
    _common_options(migrate, argparse.SUPPRESS)
    migrate.add_argument("--revision", default="head", help="the Alembic revision to reach (default head)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "migrate":
        given = [f"--{name.replace('_', '-')}" for name in SERVE_ONLY if getattr(args, name) is not None]
        if given:
            parser.error(f"{', '.join(given)}: for serving, not for migrate")
    from server.service import logs

    try:
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            database_url=args.database_url,
            log_level=args.log_level,
            bot_delay=args.bot_delay,
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    logs.configure(settings.log_level)
    if args.command == "migrate":
        try:
            return asyncio.run(_migrate(settings, args.revision))
        except Exception as e:
            if (problem := database_problem(e)) is None:
                raise
            log.error(problem, extra={"database": shown_url(settings.database_url)})
            return 1
    return _serve(settings)


async def _migrate(settings: Settings, revision: str) -> int:
    from server.storage import create_engine, upgrade

    engine = create_engine(settings.database_url)
    try:
        await upgrade(engine, revision)
    finally:
        await engine.dispose()
    log.info("database migrated", extra={"revision": revision})
    return 0


def _serve(settings: Settings) -> int:
    from aiohttp import web

    from server.compiled import compiled
    from server.transport.app import create_app
    from server.transport.arenas import limit_arenas
    from server.transport.listen import listening_socket, raise_file_limit

    arenas_capped = limit_arenas(settings.malloc_arenas)  # before any thread starts
    file_limit = raise_file_limit()
    try:
        sock = listening_socket(settings.host, settings.port)
    except OSError as e:
        log.error(listen_problem(settings.host, settings.port, e))
        return 1
    app = create_app(settings)
    app.on_startup.append(_settle_gc)
    started: list[bool] = []

    async def mark_started(app: web.Application) -> None:
        started.append(True)

    app.on_startup.append(mark_started)  # after the database and the service are up
    loop = event_loop(settings.uvloop)
    log.info(
        "serving",
        extra={
            "host": settings.host,
            "port": settings.port,
            "loop": type(loop).__module__.split(".")[0],
            "file_limit": file_limit,
            "compiled": len(compiled()),
            "malloc_arenas": settings.malloc_arenas if arenas_capped else None,
        },
    )
    try:
        web.run_app(
            app,
            loop=loop,
            sock=sock,
            shutdown_timeout=settings.shutdown_timeout,
            print=None,
            access_log=None,
        )
    except Exception as e:
        # At start only: an operator's mistake (a wrong URL, the database down) is one line that
        # says what to fix, where it was a traceback of 141 lines; anything else keeps its
        # traceback, as a bug should.
        if started or (problem := database_problem(e)) is None:
            raise
        log.error(problem, extra={"database": shown_url(settings.database_url)})
        return 1
    return 0


def event_loop(use_uvloop: bool) -> asyncio.AbstractEventLoop:
    """uvloop's event loop when wanted and installed (the ``fast`` extra), else asyncio's.
    Measured with the load benchmark: see the README's Hosting section."""
    if use_uvloop:
        try:
            import uvloop
        except ImportError:
            pass
        else:
            return uvloop.new_event_loop()
    return asyncio.new_event_loop()


async def _settle_gc(app: web.Application) -> None:
    """Once started (modules imported, database migrated): freeze what exists into the
    permanent generation, and set the collector's thresholds (``gc_thresholds``). A full
    collection walks every tracked object; with a thousand live matches and their sockets each
    one took about 200 ms, the worst pause a player saw. Frozen start-up objects are never
    walked again. While serving, what survives each of the collector's collections is frozen
    too, at most once per ``gc_freeze_seconds``, so the older generations stay small; a young
    collection's length is then set by the first two thresholds (see the setting), once per
    ``gc_thaw_seconds`` the frozen objects are thawed and collected in full (any cycle a freeze
    caught alive), and every pause is timed (:mod:`server.transport.gcwatch`)."""
    from server.transport.gcwatch import GcWatch
    from server.transport.keys import METRICS, SETTINGS

    settings = app[SETTINGS]
    gc.collect()
    gc.freeze()
    gc.set_threshold(*settings.gc_thresholds)
    GcWatch(app[METRICS].registry, settings.gc_freeze_seconds, settings.gc_thaw_seconds).install(
        asyncio.get_running_loop()
    )


if __name__ == "__main__":
    raise SystemExit(main())
