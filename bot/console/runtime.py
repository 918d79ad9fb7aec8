"""Starting the service on a database for local use (a temporary SQLite file by default)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from bot.clock import TimeSource, wall_clock
from bot.store.database import create_engine, database_url
from bot.store.repository import Repository
from bot.transport import Transport
from bot.umpire import MatchService

__all__ = ["database_url", "local_service", "sqlite_file"]


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (None for other databases and in-memory SQLite)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(database_url(url))
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


@contextlib.asynccontextmanager
async def local_service(transport: Transport, *, db: str | None = None, bot_think: float = 0.0,
                        now: TimeSource = wall_clock,
                        setup: Callable[[MatchService], object] | None = None,
                        ) -> AsyncIterator[MatchService]:
    """A running MatchService on `db` (a path or URL), or on a temporary SQLite file.
    `setup` is called with the service before it starts (and resumes stored matches): what
    hooks into it (an event runner) then hears of every resumed match's end."""
    with tempfile.TemporaryDirectory(prefix="umpire-") as tmp:
        url = database_url(db or str(Path(tmp) / "umpire.db"))
        engine = create_engine(url)
        service = MatchService(Repository(engine), transport, bot_think=bot_think, now=now)
        if setup is not None:
            setup(service)
        try:
            await service.start()
        except BaseException:
            await engine.dispose()
            raise
        try:
            yield service
        finally:
            await service.delivery.drain()
            await service.stop()
            await engine.dispose()
