"""Starting the service on a database for local use (a temporary SQLite file by default)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

from bot.clock import TimeSource, wall_clock
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.transport import Transport
from bot.umpire import MatchService


@contextlib.asynccontextmanager
async def local_service(transport: Transport, *, db: str | None = None, bot_think: float = 0.0,
                        now: TimeSource = wall_clock) -> AsyncIterator[MatchService]:
    """A running MatchService on `db` (a path or URL), or on a temporary SQLite file."""
    with tempfile.TemporaryDirectory(prefix="umpire-") as tmp:
        url = db if db and "://" in db else f"sqlite+aiosqlite:///{db or Path(tmp) / 'umpire.db'}"
        engine = create_engine(url)
        service = MatchService(Repository(engine), transport, bot_think=bot_think, now=now)
        try:
            await service.start()
            yield service
        finally:
            await service.delivery.drain()
            await service.stop()
            await engine.dispose()
