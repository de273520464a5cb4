"""Why the server could not start, in one line an operator can act on: the port in use, the
database unreachable, refusing the login, missing, or named by a URL that is no URL. Anything
else (a bug) keeps its traceback: these return None for it."""

from __future__ import annotations

import errno
import sqlite3


def listen_problem(host: str, port: int, error: OSError) -> str:
    """One line on why the server cannot listen on ``host:port``, and what to change."""
    if error.errno == errno.EADDRINUSE:
        why = "the port is in use (another server there?)"
    elif error.errno == errno.EACCES:
        why = "not allowed to use that port (below 1024 needs privileges)"
    else:
        why = error.strerror or str(error)
    return f"cannot listen on {host}:{port}: {why}; choose another with --host/--port (GINRUMMY_HOST/GINRUMMY_PORT)"


_DATABASE_MODULES = ("sqlalchemy", "asyncpg", "aiosqlite", "sqlite3", "alembic", "server.storage")


def database_problem(error: BaseException) -> str | None:
    """One line on why the database cannot be used, if ``error`` is the database being
    unreachable, refusing the login, missing, or named by a URL that is no URL; None for any
    other error (a failed migration's own bug, say), which keeps its traceback."""
    import asyncpg
    from sqlalchemy.exc import ArgumentError

    from server.storage.engine import store_unreachable

    chain: list[BaseException] = []
    e: BaseException | None = error
    while e is not None and e not in chain:
        chain.append(e)
        e = getattr(e, "orig", None) or e.__cause__ or e.__context__
    fix = "check --database-url (DATABASE_URL) and that the database is up"
    for e in chain:
        if isinstance(e, ArgumentError):
            return f"the database URL is not one SQLAlchemy can use ({e}); {fix}"
        if isinstance(e, asyncpg.InvalidAuthorizationSpecificationError):
            return f"the database refused the login ({e}); {fix}"
        if isinstance(e, asyncpg.InvalidCatalogNameError):
            return f"no such database ({e}); {fix}"
        if isinstance(e, sqlite3.OperationalError) and "unable to open" in str(e):
            return f"cannot open the SQLite file ({e}); {fix}"
    last = chain[-1]
    if any(store_unreachable(e) for e in chain) and _raised_in(chain, _DATABASE_MODULES):
        return f"cannot reach the database ({type(last).__name__}: {last}); {fix}"
    return None


def _raised_in(chain: list[BaseException], modules: tuple[str, ...]) -> bool:
    """Whether any of these errors passed through a frame of one of ``modules`` (an OSError is
    the database's only if it came from talking to the database)."""
    for e in chain:
        tb = e.__traceback__
        while tb is not None:
            name = tb.tb_frame.f_globals.get("__name__", "")
            if name.startswith(modules):
                return True
            tb = tb.tb_next
    return False


def shown_url(url: str) -> str:
    """The database URL without its password, for a log line."""
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a URL)"
