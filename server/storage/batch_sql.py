"""The group commit's SQL: a batch of changes as driver values, and the few statements that
write it, on SQLite (:meth:`BatchSql.sqlite_write`) or on Postgres (:attr:`BatchSql.postgres`,
one statement). See :mod:`.group_commit`."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from typing import Any, NamedTuple

from sqlalchemy import JSON, Integer

from server.service.ports import Change

from .models import ACTIONS, HANDS, MATCHES
from .notify import encode_payload
from .repository import ROW_COLUMNS, row_values

MAX_BATCH = 1000
"""The most changes one batch holds. A thousand saturating matches keep about as many changes in
flight, and at 200 (the cap before) each batch waited behind four others: on SQLite every one
paid a dozen waits for the interpreter's lock (taken back after each of SQLite's steps, up to
the 5 ms switch interval while the loop is busy), so the writer, not the loop, set the pace. At
1,000 the writer takes what waits, 330-400 changes a batch: 5-6% more moves a second at 5% less
CPU a move (docs/benchmarks.md, stop 41)."""
EXACT_ROWS = 16
"""Statements of up to this many rows are written for their exact count; longer runs of rows are
cut into powers of two (32, 64, 128...) and a rest, so a connection prepares few distinct
statements (see :func:`_chunks`)."""
MAX_STATEMENTS = 128
"""A connection's statement cache: for each of the five statements, a size from 1 to
:data:`EXACT_ROWS`, the powers of two past it and the bound's own cut, with room for the
transaction's own (``BEGIN``, ``COMMIT``)."""
KEYED = tuple(
    col
    for col in ROW_COLUMNS
    if col
    in {c.name for ix in MATCHES.indexes for c in ix.columns}
    | {c.name for con in MATCHES.constraints for c in getattr(con, "columns", ())}
)
"""The match row's changing columns that an index or a constraint covers (``status``,
``seat1_id``, ``deadline_at``). SQLite rewrites the index entries of (and checks the constraints
on) every column an ``UPDATE`` assigns, even to the value it already holds: assigned on every
action, they cost four index rewrites and a foreign-key lookup per row, about 75 of 95
microseconds a row (docs/benchmarks.md). Most actions change none of them, and
their rows are written without them."""
_KEYED_AT = tuple(ROW_COLUMNS.index(col) for col in KEYED)
_UNKEYED_AT = tuple(i for i, col in enumerate(ROW_COLUMNS) if col not in KEYED)
UNKEYED = tuple(ROW_COLUMNS[i] for i in _UNKEYED_AT)


class Rows(NamedTuple):
    """One change as driver values."""

    match_id: str
    expected: int
    """The version its compare-and-set expects."""
    columns: tuple[Any, ...]
    """The match row's changing columns, in ``ROW_COLUMNS`` order."""
    action: tuple[Any, ...] | None
    hands: list[tuple[Any, ...]]
    notice: str
    """Its notification payload (Postgres)."""
    narrow: bool | None = None
    """Its :data:`KEYED` values are those of the row it replaces (written without them); None:
    the row it replaces is not known (the batch reads the stored ones)."""


class BatchSql:
    """The batch's SQL and its rows as driver values. Each value goes through its column type's
    own bind processor (the one SQLAlchemy would apply), so rows written here read back exactly
    like rows written by :class:`SqlStore`; a test compares the two."""

    ACTION_COLUMNS = ("match_id", "seq", "seat", "action", "client_id", "version", "created_at")
    HAND_COLUMNS = (
        "match_id",
        "number",
        "starter",
        "kind",
        "winner",
        "knocker",
        "points",
        "result",
        "finished_at",
    )

    def __init__(self, dialect: Any) -> None:
        self.dialect = dialect
        m, a, h = MATCHES, ACTIONS, HANDS
        self._row_bind = self._binders(m, ROW_COLUMNS)
        self._action_bind = self._binders(a, self.ACTION_COLUMNS)
        self._hand_bind = self._binders(h, self.HAND_COLUMNS)
        self.postgres = self._postgres_statement()

    def _binders(self, table: Any, columns: tuple[str, ...]) -> tuple[tuple[int, Callable[[Any], Any]], ...]:
        """The columns whose type has a bind processor (dates, JSON), by position, with it."""
        binders = ((i, table.c[col].type.bind_processor(self.dialect)) for i, col in enumerate(columns))
        return tuple((i, b) for i, b in binders if b is not None)

    @staticmethod
    def _row(
        binders: tuple[tuple[int, Callable[[Any], Any]], ...], values: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        out = list(values)
        for i, bind in binders:
            v = out[i]
            if v is not None:
                out[i] = bind(v)
        return tuple(out)

    def rows(self, change: Change) -> Rows:
        """One change's rows, as driver values."""
        meta = change.meta
        # The repository's own mapping of a row's changing columns: both paths write alike.
        values = row_values(meta)
        columns = self._row(self._row_bind, tuple(values[col] for col in ROW_COLUMNS))
        a = change.action
        action = None
        if a is not None:
            action = self._row(
                self._action_bind,
                (meta.match_id, a.seq, a.seat, a.action, a.client_id, a.version, a.created_at),
            )
        hands = [
            self._row(
                self._hand_bind,
                (
                    meta.match_id,
                    h.number,
                    h.starter,
                    h.kind,
                    h.winner,
                    h.knocker,
                    h.points,
                    h.result,
                    h.finished_at,
                ),
            )
            for h in change.hands
        ]
        notice = encode_payload(meta.match_id, meta.version)
        narrow = None
        previous = change.previous
        if previous is not None and previous.version == change.expected_version:
            before = row_values(previous)
            narrow = all(values[col] == before[col] for col in KEYED)
        return Rows(meta.match_id, change.expected_version, columns, action, hands, notice, narrow)

    # --- SQLite ---------------------------------------------------------------------------------------

    def sqlite_write(self, conn: sqlite3.Connection, rows: list[Rows]) -> list[bool]:
        """Inside the writer's transaction (``BEGIN IMMEDIATE``): compare-and-set every row,
        insert the actions and hands of those that held; which held.

        A few statements whatever the batch's size, each over many rows (multi-row ``VALUES``;
        ``UPDATE .. FROM``, SQLite 3.33 or later), never one per row: the sqlite3 module lets
        go of the GIL around every step of a statement, and taking it back waits out the
        interpreter's switch interval (5 ms) whenever the event loop is busy, which is exactly
        when batches are big. Row by row, a 100-change batch took 0.2 ms on an idle server and
        about 90 ms on a busy one.

        When every change knows the row it replaces (:attr:`Rows.narrow`, the service's writes),
        the updates run at once and their count says whether every compare-and-set held (it
        nearly always does: a match has one writer); only when one failed, because another
        process wrote that match first, is the transaction begun again and the stored versions
        read first, to learn which."""
        limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        if all(r.narrow is not None for r in rows):
            if self._update_rows(conn, [(r, bool(r.narrow)) for r in rows], limit) == len(rows):
                return self._insert_landed(conn, rows, [True] * len(rows), limit)
            conn.execute("ROLLBACK")
            conn.execute("BEGIN IMMEDIATE")
        stored: dict[str, tuple[int, str]] = {}
        for ids in _chunks([r.match_id for r in rows], 1, limit):
            (found,) = conn.execute(_sqlite_versions(len(ids)), ids).fetchone()
            for record in (found or "").split(_ROWS):
                if record:
                    match_id, version, keyed = record.split(_FIELDS, 2)
                    stored[match_id] = (int(version), keyed)
        ok = [stored.get(r.match_id, (None, ""))[0] == r.expected for r in rows]
        landed = [(r, _keyed(r.columns) == stored[r.match_id][1]) for r, good in zip(rows, ok) if good]
        self._update_rows(conn, landed, limit)
        return self._insert_landed(conn, rows, ok, limit)

    @staticmethod
    def _update_rows(conn: sqlite3.Connection, rows: list[tuple[Rows, bool]], limit: int) -> int:
        """Compare-and-set each row, without its keyed columns where the flag says they are
        unchanged; how many held."""
        whole: list[tuple[Any, ...]] = []  # a keyed column changes: every column
        rest: list[tuple[Any, ...]] = []  # the others, without the keyed columns
        for r, narrow in rows:
            if narrow:
                rest.append((r.match_id, *(r.columns[i] for i in _UNKEYED_AT), r.expected))
            else:
                whole.append((r.match_id, *r.columns, r.expected))
        held = 0
        for columns, table_rows in ((ROW_COLUMNS, whole), (UNKEYED, rest)):
            for chunk in _chunks(table_rows, len(columns) + 2, limit):
                sql = _sqlite_update(columns, len(chunk))
                held += conn.execute(sql, [v for row in chunk for v in row]).rowcount
        return held

    def _insert_landed(
        self, conn: sqlite3.Connection, rows: list[Rows], ok: list[bool], limit: int
    ) -> list[bool]:
        """Insert the actions and hands of the rows whose compare-and-set held; ``ok``."""
        landed = [r for r, good in zip(rows, ok) if good]
        for table, columns, table_rows in (
            (
                ACTIONS.name,
                self.ACTION_COLUMNS,
                [r.action for r in landed if r.action is not None],
            ),
            (HANDS.name, self.HAND_COLUMNS, [h for r in landed for h in r.hands]),
        ):
            for chunk in _chunks(table_rows, len(columns), limit):
                conn.execute(_sqlite_insert(table, columns, len(chunk)), [v for row in chunk for v in row])
        return ok

    # --- Postgres ---------------------------------------------------------------------------------

    def _postgres_statement(self) -> str:
        """One statement for the whole batch, its rows passed as one array per column: the
        compare-and-set of every match row (``UPDATE .. WHERE version = expected``, which a
        concurrent writer's commit makes fail rather than overwrite), then, for the matches whose
        row it updated, their actions, their hands and one notification each."""
        params = iter(range(1, 1000))

        def arrays(
            table: Any, columns: tuple[str, ...], alias: str, extra: str = ""
        ) -> tuple[str, dict[str, str]]:
            """``unnest($i::type[], ..) AS alias(columns)``, and each column's value expression;
            ``extra`` names one more int array (not a column)."""
            unnest, exprs = [], {}
            for col in columns:
                kind = table.c[col].type
                pg = "int" if isinstance(kind, Integer) else "timestamptz" if col.endswith("_at") else "text"
                unnest.append(f"${next(params)}::{pg}[]")
                exprs[col] = f"{alias}.{col}::json" if isinstance(kind, JSON) else f"{alias}.{col}"
            names = list(columns)
            if extra:
                unnest.append(f"${next(params)}::int[]")
                names.append(extra)
            return f"unnest({', '.join(unnest)}) AS {alias}({', '.join(names)})", exprs

        m, a, h = MATCHES, ACTIONS, HANDS
        v_from, v = arrays(m, ("id", *ROW_COLUMNS), "v", extra="expected")
        sets = ", ".join(f"{col} = {v[col]}" for col in ROW_COLUMNS)
        a_from, a_exprs = arrays(a, self.ACTION_COLUMNS, "a")
        h_from, h_exprs = arrays(h, self.HAND_COLUMNS, "h")
        channel, ids, payloads = next(params), next(params), next(params)
        return (
            f"WITH v AS (SELECT * FROM {v_from}), "
            f"upd AS (UPDATE {m.name} AS m SET {sets} FROM v "
            f"WHERE m.id = v.id AND m.version = v.expected RETURNING m.id), "
            f"new_actions AS (INSERT INTO {a.name} ({', '.join(self.ACTION_COLUMNS)}) "
            f"SELECT {', '.join(a_exprs.values())} FROM {a_from} "
            f"WHERE a.match_id IN (SELECT id FROM upd) RETURNING 1), "
            f"new_hands AS (INSERT INTO {h.name} ({', '.join(self.HAND_COLUMNS)}) "
            f"SELECT {', '.join(h_exprs.values())} FROM {h_from} "
            f"WHERE h.match_id IN (SELECT id FROM upd) RETURNING 1), "
            f"notes AS (SELECT pg_notify(${channel}::text, n.p) "
            f"FROM unnest(${ids}::text[], ${payloads}::text[]) WITH ORDINALITY AS n(id, p, i) "
            f"WHERE ${channel}::text <> '' AND n.id IN (SELECT id FROM upd) ORDER BY n.i) "
            f"SELECT id, (SELECT count(*) FROM notes) FROM upd"
        )

    def postgres_args(self, rows: list[Rows], channel: str) -> list[Any]:
        """The arrays of :attr:`postgres`, in order."""
        match_rows = [(r.match_id, *r.columns, r.expected) for r in rows]
        actions = [r.action for r in rows if r.action is not None]
        hands = [h for r in rows for h in r.hands]
        args: list[Any] = []
        for table_rows, width in (
            (match_rows, len(ROW_COLUMNS) + 2),
            (actions, len(self.ACTION_COLUMNS)),
            (hands, len(self.HAND_COLUMNS)),
        ):
            args += [list(col) for col in zip(*table_rows)] if table_rows else [[] for _ in range(width)]
        return [*args, channel, [r.match_id for r in rows], [r.notice for r in rows]]


_FIELDS, _ROWS = "\x1f", "\x1e"
"""The unit and record separators of :func:`_sqlite_versions`' one value (in no match id, and
in no quoted value of a :data:`KEYED` column)."""


def _quote(value: Any) -> str:
    """A driver value as SQLite's ``quote()`` prints it (text, an integer or NULL: what the
    :data:`KEYED` columns hold).

    >>> _quote("active"), _quote("it's"), _quote(None), _quote(7)
    ("'active'", "'it''s'", 'NULL', '7')
    """
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def _keyed(columns: tuple[Any, ...]) -> str:
    """A row's :data:`KEYED` values as :func:`_sqlite_versions` gives the stored ones."""
    return _FIELDS.join(_quote(columns[i]) for i in _KEYED_AT)


@functools.cache
def _sqlite_versions(n: int) -> str:
    """The stored version and :data:`KEYED` values of ``n`` matches as one value (one
    statement step, however many rows): per match ``id``, ``version`` and each keyed column
    ``quote()``d, joined by the unit separator; the matches joined by the record separator."""
    marks = ", ".join("?" for _ in range(n))
    fields = " || char(31) || ".join(["id", "version", *(f"quote({col})" for col in KEYED)])
    return f"SELECT group_concat({fields}, char(30)) FROM {MATCHES.name} WHERE id IN ({marks})"


@functools.cache
def _sqlite_update(columns: tuple[str, ...], n: int) -> str:
    """Compare-and-set ``n`` match rows, each given as ``(id, *columns, expected)``."""
    width = len(columns) + 2
    sets = ", ".join(f"{col} = v.column{i}" for i, col in enumerate(columns, start=2))
    m = MATCHES.name
    return (
        f"UPDATE {m} SET {sets} FROM (VALUES {_values(n, width)}) AS v "
        f"WHERE {m}.id = v.column1 AND {m}.version = v.column{width}"
    )


@functools.cache
def _sqlite_insert(table: str, columns: tuple[str, ...], n: int) -> str:
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES {_values(n, len(columns))}"


def _values(n: int, width: int) -> str:
    row = f"({', '.join('?' for _ in range(width))})"
    return ", ".join(row for _ in range(n))


def _chunks(rows: list[Any], width: int, limit: int) -> list[list[Any]]:
    """``rows`` of ``width`` parameters each, cut so no statement binds more than ``limit``, and
    into few distinct lengths: while more than :data:`EXACT_ROWS` are left, the largest power of
    two that fits (or the bound's cut), then the rest as it is. A prepared statement grows with
    its rows (about 1 KB a row) and the sqlite3 module keeps each one its connection ran: with a
    statement for every batch size, the writer's cache held 6.7 MB at 1,000 live matches (up to
    about 60 MB at its 800 statements); now at most a few dozen, about 1 MB, at the cost of a
    statement or two more for a batch of over 16 changes.

    >>> [len(c) for c in _chunks(list(range(100)), 1, 1000)]
    [64, 32, 4]
    >>> [len(c) for c in _chunks(list(range(30)), 2, 20)]
    [10, 10, 10]
    >>> [len(c) for c in _chunks(list(range(16)), 1, 1000)]
    [16]
    """
    cap = max(1, limit // width)
    out: list[list[Any]] = []
    i, n = 0, len(rows)
    while i < n:
        left = n - i
        size = min(left if left <= EXACT_ROWS else 1 << (left.bit_length() - 1), cap)
        out.append(rows[i : i + size])
        i += size
    return out
