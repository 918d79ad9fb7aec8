from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.clock import loop_clock
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.support.memory_repo import MemoryRepository
from tests.support.transport import RecordingTransport

ANN = PlayerRef("u:ann", "Ann")
BOB = PlayerRef("u:bob", "Bob")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'umpire.db'}"


@pytest.fixture
async def sqlite_service(db_url: str) -> AsyncIterator[tuple[MatchService, RecordingTransport]]:
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
