"""The async engine: SQLite (WAL, synchronous=FULL) by default, PostgreSQL by URL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event
from sqlalchemy import create_engine as sa_create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def create_engine(url: str, *, echo: bool = False) -> AsyncEngine:
    """An engine for `url`. SQLite gets one connection (SQLite has one writer anyway, and a
    single connection makes transactions queue in asyncio instead of failing as busy)."""
    if not is_sqlite(url):
        return create_async_engine(url, echo=echo, pool_pre_ping=True)
    kwargs: dict[str, Any] = {}
    database = make_url(url).database
    if not database or database == ":memory:":
        kwargs["poolclass"] = StaticPool
    else:
        kwargs.update(pool_size=1, max_overflow=0, pool_timeout=60)
    engine = create_async_engine(url, echo=echo, **kwargs)
    event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def sync_writer_engine(url: str) -> Engine | None:
    """For an SQLite file: a synchronous engine on the same file for the group-commit writer
    (which commits on the event loop, bot/store/writer.py) and its WAL checkpoint thread: two
    connections, with automatic checkpoints off (bot/store/checkpoint.py says why).
    None for other databases (they write through the async engine)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    # (timeout: the driver's busy timeout while the connection is set up, before the pragmas)
    engine = sa_create_engine(parsed.set(drivername="sqlite+pysqlite"), pool_size=2,
                              max_overflow=0,
                              connect_args={"check_same_thread": False, "timeout": 0.002})
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "connect", _writer_pragmas)
    return engine


def _writer_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """No automatic checkpoints, and no waiting for a lock: the writer commits on the event
    loop, so a file locked by another process must fail its transaction at once (nothing
    stored), and the writer tries again after an asyncio pause (writer.py). The checkpoint
    thread's PASSIVE checkpoints never wait for a lock either way."""
    dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")
    dbapi_connection.execute("PRAGMA busy_timeout=0")
