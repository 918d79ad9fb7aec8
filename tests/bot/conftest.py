from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.clock import loop_clock
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from testbed import pg_server
from tests.support.memory_repo import MemoryRepository
from tests.support.transport import RecordingTransport

ANN = PlayerRef("u:ann", "Ann")
BOB = PlayerRef("u:bob", "Bob")


#: The databases the store, service, clock and restart suites run on (`db_url`).
DATABASES = ("sqlite", "postgresql")
_pg_names = itertools.count()


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """One throwaway PostgreSQL server per test session (per xdist worker): a URL template
    with "{db}". Without the server the PostgreSQL cases skip, or fail under CI=true."""
    if not pg_server.available():
        pg_server.unavailable("PostgreSQL binaries are not installed on this machine")
    try:
        server = pg_server.postgres_server()
        template = server.__enter__()
    except Exception as exc:
        pg_server.unavailable(f"could not start a PostgreSQL server: {exc}")
        raise
    try:
        yield template
    finally:
        server.__exit__(None, None, None)


@pytest.fixture
async def pg_url(pg_template: str) -> str:
    """A fresh, empty database on the session's server."""
    return await pg_server.create_database(pg_template, f"umpire_test_{next(_pg_names)}")


@pytest.fixture(params=DATABASES)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'umpire.db'}"
    template = request.getfixturevalue("pg_template")
    return await pg_server.create_database(template, f"umpire_test_{next(_pg_names)}")


@pytest.fixture(params=DATABASES)
def process_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """`db_url` for synchronous tests that hand the database to worker processes (the
    kill-and-restart suites): a fresh database, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'crash.db'}"
    template = request.getfixturevalue("pg_template")
    return asyncio.run(pg_server.create_database(template, f"umpire_test_{next(_pg_names)}"))


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite database, for tests of SQLite's own behaviour (WAL, VACUUM, files)."""
    return f"sqlite+aiosqlite:///{tmp_path / 'umpire.db'}"


@pytest.fixture
async def sqlite_service(db_url: str) -> AsyncIterator[tuple[MatchService, RecordingTransport]]:
    """The service on a real store: each test runs on SQLite and on PostgreSQL (`db_url`)."""
    engine = create_engine(db_url)
    transport = RecordingTransport()
    service = MatchService(Repository(engine), transport)
    await service.start()
    yield service, transport
    await service.stop()
    await engine.dispose()


@pytest.fixture
async def memory_service() -> AsyncIterator[tuple[MatchService, RecordingTransport, MemoryRepository]]:
    """The service on the in-memory store with loop time (for looptime clock tests)."""
    repo = MemoryRepository()
    transport = RecordingTransport()
    service = MatchService(repo, transport, now=loop_clock())  # type: ignore[arg-type]
    await service.start()
    yield service, transport, repo
    await service.stop()
