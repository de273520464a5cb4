"""``python -m server`` (or ``ginrummy-server``): run the match server, or migrate its database.

    python -m server [serve] [--host H] [--port P] [--database-url URL] [--log-level L]
    python -m server migrate [--database-url URL] [--revision head]

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

if TYPE_CHECKING:
    from aiohttp import web

log = logging.getLogger("server")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server", description="Gin Rummy match server")
    sub = parser.add_subparsers(dest="command")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--database-url", help="SQLAlchemy async URL (default: SQLite in ./data/ginrummy.db)")
    common.add_argument("--log-level", help="debug, info, warning, error")
    serve_opts = argparse.ArgumentParser(add_help=False)
    serve_opts.add_argument("--host", help="interface to listen on (default 127.0.0.1)")
    serve_opts.add_argument("--port", type=int, help="port (default 8080)")
    serve_opts.add_argument("--bot-delay", type=float, help="seconds the computer pauses before moving")
    sub.add_parser("serve", parents=[common, serve_opts], help="serve (the default)")
    migrate = sub.add_parser("migrate", parents=[common], help="apply the database migrations")
    migrate.add_argument("--revision", default="head")
    # The same options without a subcommand mean "serve".
    for action in [*common._actions, *serve_opts._actions]:
        if action.option_strings and action.dest != "help":
            parser._add_action(action)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    from server.service import logs

    try:
        settings = Settings.from_env(
            host=getattr(args, "host", None),
            port=getattr(args, "port", None),
            database_url=args.database_url,
            log_level=args.log_level,
            bot_delay=getattr(args, "bot_delay", None),
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    logs.configure(settings.log_level)
    if args.command == "migrate":
        return asyncio.run(_migrate(settings, args.revision))
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
    app = create_app(settings)
    app.on_startup.append(_settle_gc)
    loop = event_loop(settings.uvloop)
    file_limit = raise_file_limit()
    sock = listening_socket(settings.host, settings.port)
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
    web.run_app(
        app,
        loop=loop,
        sock=sock,
        shutdown_timeout=settings.shutdown_timeout,
        print=None,
        access_log=None,
    )
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
