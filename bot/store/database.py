"""The async engine: SQLite (WAL, synchronous=FULL) by default, PostgreSQL by URL.

A PostgreSQL server that cannot be reached (refused, restarting, shutting down, the
connection lost) is retried for `UNREACHABLE_WAIT_SECONDS` (`reconnecting`), then reported
as `StoreUnavailable`; every later statement gets a fresh connection (the pool pings each
connection it hands out and drops the dead ones), so the store reconnects on its own.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import asyncpg
from sqlalchemy import Engine, event
from sqlalchemy import create_engine as sa_create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from bot.store.errors import StoreUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How long a write or a read waits for an unreachable PostgreSQL server (retrying with a
#: growing pause) before it is refused as `StoreUnavailable`: a move waits this long at most.
UNREACHABLE_WAIT_SECONDS = 3.0
#: How long opening one PostgreSQL connection may take (asyncpg's own default is 60 s).
CONNECT_TIMEOUT_SECONDS = 2.0
#: The pauses between two attempts: the first, and the longest.
_FIRST_PAUSE, _LONGEST_PAUSE = 0.05, 0.5


#: The URL schemes the bot takes, and the async driver each one is mapped to.
DRIVERS = {"sqlite": "sqlite+aiosqlite", "sqlite+aiosqlite": "sqlite+aiosqlite",
           "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg",
           "postgresql+asyncpg": "postgresql+asyncpg"}
SUPPORTED = ("a file path (games.db), sqlite:///games.db, postgresql://user:password@host/db "
             "or postgres://...")


class DatabaseURLError(ValueError):
    """A database setting the bot cannot use, as one sentence naming the supported ones."""


def database_url(db: str) -> str:
    """A database as the bot's async URL: a plain file path ("games.db") is an SQLite file;
    `postgresql://` and `postgres://` get asyncpg, `sqlite://` aiosqlite (the drivers the bot
    ships with). Any other scheme is a DatabaseURLError."""
    from sqlalchemy.exc import ArgumentError

    text = db.strip()
    if "://" not in text:
        if not text:
            raise DatabaseURLError(f"the database setting is empty: give {SUPPORTED}.")
        return f"sqlite+aiosqlite:///{text}"
    try:
        parsed = make_url(text)
    except (ArgumentError, ValueError):
        raise DatabaseURLError(f"{shown_url(text)!r} is not a database URL this bot can read: "
                               f"give {SUPPORTED}.") from None
    driver = DRIVERS.get(parsed.drivername)
    if driver is None:
        raise DatabaseURLError(f"{shown_url(text)!r} is not a database this bot can use "
                               f"(scheme {parsed.drivername!r}): give {SUPPORTED}.")
    if driver == parsed.drivername:
        return text
    return parsed.set(drivername=driver).render_as_string(hide_password=False)


def shown_url(url: str) -> str:
    """A database URL as it may be printed or logged: the password replaced by ***
    (SQLAlchemy's render_as_string(hide_password=True); a URL it cannot read loses
    everything between `://` and `@`)."""
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return re.sub(r"(://)[^/@]*@", r"\1***@", url)


def is_sqlite(url: str) -> bool:
    return make_url(database_url(url)).get_backend_name() == "sqlite"


def create_engine(url: str, *, echo: bool = False) -> AsyncEngine:
    """An engine for `url` (a path or URL, see `database_url`). SQLite gets one connection
    (SQLite has one writer anyway, and a single connection makes transactions queue in
    asyncio instead of failing as busy)."""
    url = database_url(url)
    if not is_sqlite(url):
        return create_async_engine(url, echo=echo, pool_pre_ping=True,
                                   connect_args={"timeout": CONNECT_TIMEOUT_SECONDS})
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
    parsed = make_url(database_url(url))
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


def unreachable(exc: BaseException) -> bool:
    """Whether `exc` says the database server could not be reached or was lost (refused,
    starting up, shutting down, the connection closed): worth retrying on a new connection.
    A statement the server refused on a good connection (a constraint, a syntax error) is not."""
    for cause in _causes(exc):
        if isinstance(cause, DBAPIError) and cause.connection_invalidated:
            return True
        if isinstance(cause, asyncpg.PostgresConnectionError | asyncpg.CannotConnectNowError
                      | asyncpg.AdminShutdownError | asyncpg.CrashShutdownError
                      | asyncpg.TooManyConnectionsError | OSError | TimeoutError):
            return True
        if isinstance(cause, asyncpg.InterfaceError) and "connection is closed" in str(cause):
            return True
    return False


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and what it wraps (SQLAlchemy's `orig`, `__cause__`, `__context__`)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        cause = todo.pop()
        if cause is None or id(cause) in seen:
            continue
        seen.add(id(cause))
        yield cause
        orig = getattr(cause, "orig", None)
        todo += [orig if isinstance(orig, BaseException) else None, cause.__cause__,
                 cause.__context__]


async def reconnecting(attempt: Callable[[], Awaitable[T]],
                       wait: float = UNREACHABLE_WAIT_SECONDS) -> T:
    """`attempt()`, tried again on a new connection while the server cannot be reached,
    for `wait` seconds at most (and once more when the first try alone took that long);
    then `StoreUnavailable`. A write is retried only when it
    was not stored: the server aborts what it was running when it shuts down, and a
    retried write that was stored after all is refused by the tables' unique keys."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    pause = _FIRST_PAUSE
    tries = 0
    while True:
        tries += 1
        try:
            return await attempt()
        except Exception as exc:
            if not unreachable(exc):
                raise
            left = deadline - loop.time()
            if left <= 0 and tries == 1:  # the one try outlasted the wait (the process was
                left = _FIRST_PAUSE       # paused, say): once more, on a new connection
            if left <= 0:
                raise StoreUnavailable(f"the database server cannot be reached: "
                                       f"{type(exc).__name__}: {exc}") from exc
            log.info("the database server cannot be reached (%s); trying again", exc)
            await asyncio.sleep(min(pause, left))
            pause = min(pause * 2, _LONGEST_PAUSE)
