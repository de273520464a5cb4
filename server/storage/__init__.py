"""Storage adapter: SQLAlchemy models, the SQL :class:`SqlStore` behind the service's ``Store``
port (and :class:`MemoryStore`, the same in memory), engine setup (SQLite by default, Postgres
from any ``DATABASE_URL``) and migrations.

It stores what the service hands it and never decides anything about the game."""

from .engine import create_engine, dispose, error_code, reachable, store_unreachable, upgrade
from .memory import MemoryStore
from .repository import SqlStore

__all__ = [
    "MemoryStore",
    "SqlStore",
    "create_engine",
    "dispose",
    "error_code",
    "reachable",
    "store_unreachable",
    "upgrade",
]
