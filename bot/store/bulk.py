"""Bulk statements for the group-commit writer, compiled once.

The writer's transaction is the hot path of every move. Building and compiling SQLAlchemy
statements per transaction costs more than SQLite's work itself, so on SQLite each statement
is compiled once per dialect and run as one `executemany` on the connection's own DB-API
cursor (no compile step, no per-statement result set-up; SQLAlchemy still owns the connection
and its transaction). Values go through the columns' own SQLAlchemy bind processors, so what
is stored is exactly what SQLAlchemy would store. With `echo` on, statements go through
`exec_driver_sql` so that they are logged. Other databases use `Connection.execute` as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql import Executable
from sqlalchemy.types import TypeEngine

Processor = Callable[[Any], Any] | None


class Bulk:
    """One statement with named bind parameters of known types."""

    def __init__(self, statement: Executable, types: Mapping[str, TypeEngine[Any]]) -> None:
        self.statement = statement
        self.types = dict(types)
        self._compiled: dict[str, tuple[str, list[str], list[Processor]]] = {}

    def _compile(self, dialect: Dialect) -> tuple[str, list[str], list[Processor]]:
        found = self._compiled.get(dialect.name)
        if found is None:
            # (every statement given is a ClauseElement too: an insert, update or select)
            compiled = self.statement.compile(dialect=dialect)  # type: ignore[attr-defined]  # ^
            names = list(compiled.positiontup or [])
            processors: list[Processor] = [self.types[n].dialect_impl(dialect).bind_processor(dialect)
                          for n in names]
            found = self._compiled[dialect.name] = (compiled.string, names, processors)
        return found

    def run(self, conn: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        if not rows:
            return
        if conn.dialect.name != "sqlite":
            conn.execute(self.statement, list(rows))
            return
        sql, names, processors = self._compile(conn.dialect)
        pairs = list(zip(names, processors, strict=True))
        run_raw(conn, sql, [_values(pairs, row) for row in rows])


class Query(Bulk):
    """One SELECT with named bind parameters, compiled once: its rows as tuples. On SQLite
    it runs on the DB-API cursor, so its columns must be ones SQLite returns as they are
    (numbers, text: no result conversion); `rows` refuses any other."""

    def _compile(self, dialect: Dialect) -> tuple[str, list[str], list[Processor]]:
        if dialect.name not in self._compiled:
            for column in self.statement.selected_columns:  # type: ignore[attr-defined]  # (a Query's statement is a select)
                if column.type.dialect_impl(dialect).result_processor(dialect, None):
                    raise TypeError(f"Query: column {column.name} needs result conversion "
                                    f"on {dialect.name}; select it with Connection.execute")
        return super()._compile(dialect)

    def rows(self, conn: Connection, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        if conn.dialect.name != "sqlite" or conn.engine.echo:
            return [tuple(row) for row in conn.execute(self.statement, dict(params))]
        sql, names, processors = self._compile(conn.dialect)
        cursor = conn.connection.cursor()
        try:
            cursor.execute(sql, _values(list(zip(names, processors, strict=True)), params))
            return cursor.fetchall()  # type: ignore[return-value]  # sqlite3 returns a list of tuples
        finally:
            cursor.close()


def _values(pairs: list[tuple[str, Processor]], row: Mapping[str, Any]) -> tuple[Any, ...]:
    """A row's parameters in the compiled statement's order, each through its type's bind
    processor (if it has one)."""
    return tuple([p(row[n]) if p else row[n] for n, p in pairs])


def run_raw(conn: Connection, sql: str, params: list[tuple[Any, ...]]) -> None:
    """executemany on the DB-API cursor of `conn` (inside its transaction)."""
    if conn.engine.echo:
        conn.exec_driver_sql(sql, params)
        return
    cursor = conn.connection.cursor()
    try:
        cursor.executemany(sql, params)
    finally:
        cursor.close()


def scalar_raw(conn: Connection, sql: str) -> Any:
    """The first column of the first row of a parameterless query, on the DB-API cursor."""
    if conn.engine.echo:
        return conn.exec_driver_sql(sql).scalar()
    cursor = conn.connection.cursor()
    try:
        cursor.execute(sql)
        row = cursor.fetchone()
        return row[0] if row else None
    finally:
        cursor.close()


def insert_of(table: Any, columns: Sequence[str]) -> Bulk:
    """INSERT INTO table (columns) VALUES (:column, ...)."""
    cols = {c: table.c[c] for c in columns}
    statement = table.insert().values({c: bindparam(c, type_=col.type) for c, col in cols.items()})
    return Bulk(statement, {c: col.type for c, col in cols.items()})


def select_of(table: Any, columns: Sequence[str],
              where: Mapping[str, str | tuple[str, ...]]) -> Query:
    """SELECT columns FROM table WHERE column = :parameter AND ... (`where`: column ->
    parameter name; a tuple of names matches any of them: column IN (:a, :b))."""
    conditions = []
    types: dict[str, TypeEngine[Any]] = {}
    for column, parameter in where.items():
        col = table.c[column]
        names = (parameter,) if isinstance(parameter, str) else parameter
        types.update({n: col.type for n in names})
        params = [bindparam(n, type_=col.type) for n in names]
        conditions.append(col.in_(params) if isinstance(parameter, tuple) else col == params[0])
    statement = select(*(table.c[c] for c in columns)).where(*conditions)
    return Query(statement, types)


def update_of(table: Any, keys: Sequence[str], columns: Sequence[str]) -> Bulk:
    """UPDATE table SET column = :set_column ... WHERE key = :key_key AND ..."""
    where = [table.c[k] == bindparam(f"key_{k}", type_=table.c[k].type) for k in keys]
    values = {c: bindparam(f"set_{c}", type_=table.c[c].type) for c in columns}
    types = {f"key_{k}": table.c[k].type for k in keys}
    types.update({f"set_{c}": table.c[c].type for c in columns})
    return Bulk(table.update().where(*where).values(values), types)
