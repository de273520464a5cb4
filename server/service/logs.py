"""Structured logging: one JSON object per line, with the match id and other context fields
passed as ``extra``.

Callers must never pass a card of a hand, the stock or a seed: log an action's ``kind``, never
its card. :data:`HIDDEN_FIELDS` are dropped by the formatter as a second line of defence.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from .clock import Clock

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}
HIDDEN_FIELDS = frozenset({"hand", "hands", "stock", "seed", "card", "cards", "token", "view"})
SECRET_BEARING_LOGGERS = ("sqlalchemy", "aiosqlite", "asyncpg")
"""Libraries whose debug logs carry the values they handle (SQL parameters: seeds, hashes)."""


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in HIDDEN_FIELDS and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return msgspec.json.encode(out, enc_hook=str).decode()


def log_failure(logger: logging.Logger, message: str, unreachable: bool, **extra: Any) -> None:
    """Log a failed background step: with its traceback when it is a bug, as one warning line
    when the store was unreachable (``unreachable``: the store's judgement of the error)."""
    if unreachable:
        logger.warning("%s: the database is unreachable", message, extra=extra)
    else:
        logger.exception(message, extra=extra)


async def repeat(
    clock: Clock,
    seconds: float,
    step: Callable[[], Awaitable[object]],
    what: str,
    unreachable: Callable[[BaseException], bool],
    logger: logging.Logger,
    after: Callable[[], None] | None = None,
) -> None:
    """Run ``step`` every ``seconds`` on ``clock`` until cancelled: a failure is logged (as
    :func:`log_failure` does, ``what`` naming it) and the loop goes on; ``after`` runs after each
    step, failed or not."""
    while True:
        try:
            await step()
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log_failure(logger, what, unreachable(e))
        if after is not None:
            after()
        await clock.sleep(seconds)


def configure(level: str = "info") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # The database drivers log every statement with its parameters at INFO/DEBUG: a match's seed
    # (which decides every deal) and token hashes would reach the log. Never below WARNING.
    for name in SECRET_BEARING_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    # aiohttp's access log repeats what our middleware records; keep it for debugging only.
    # Alembic announces every plugin at INFO on each start.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    logging.getLogger("aiohttp.access").setLevel(
        logging.WARNING if level.lower() != "debug" else logging.DEBUG
    )
