"""A read statement compiled once for the engine's dialect, to run on a connection of the store's
own (the one-step reads: :mod:`.sqlite_read`, :mod:`.pg_read`): its SQL, the order of its
parameters, and its columns' names and converters, SQLAlchemy's own result processor for each
(the stored times as UTC-aware datetimes, say), so the values read are the engine's."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy import Select
from sqlalchemy.engine import Dialect


class ReadStatement:
    def __init__(self, statement: Select[*tuple[Any, ...]], dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = compiled.string
        self.params = tuple(compiled.positiontup or ())
        columns = list(statement.selected_columns)
        self.names = [str(c.key) for c in columns]
        self.convert: list[Callable[[Any], Any] | None] = [
            c.type.dialect_impl(dialect).result_processor(dialect, None) for c in columns
        ]

    def args(self, **values: Any) -> list[Any]:
        """The parameters' values in the statement's order."""
        return [values[p] for p in self.params]

    def converted(self, raws: Iterable[Sequence[Any]]) -> list[list[Any]]:
        """The rows read, each column as the engine would give it (None stays None)."""
        return [
            [v if f is None or v is None else f(v) for f, v in zip(self.convert, raw, strict=True)]
            for raw in raws
        ]
