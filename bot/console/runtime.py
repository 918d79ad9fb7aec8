"""Starting the service on a database for local use (a temporary SQLite file by default)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from bot.bots import resolve_bot
from bot.clock import TimeSource, wall_clock
from bot.store.database import create_engine, database_url
from bot.store.repository import Repository
from bot.tournament.runner import EventRecorder
from bot.transport import Transport
from bot.umpire import MatchService
from games.core import BotFactory, Game

__all__ = ["database_url", "local_service", "sqlite_file", "watched_bot_files"]


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
    hooks into it (an event runner) then hears of every resumed match's end; without one,
    an `EventRecorder` records the end of any event's match it resumes."""
    with tempfile.TemporaryDirectory(prefix="umpire-") as tmp:
        url = database_url(db or str(Path(tmp) / "umpire.db"))
        engine = create_engine(url)
        service = MatchService(Repository(engine), transport, bot_think=bot_think, now=now)
        if setup is not None:
            setup(service)
        if not service.end_hooks:  # a stored event's matches resumed here are recorded too
            EventRecorder(service)
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


def watched_bot_files(failed: Callable[[str, str], None]
                      ) -> Callable[[Game, str], BotFactory | None]:
    """`resolve_bot`, calling `failed(file name, why)` each time a bot file fails on a
    decision (an error, an invalid answer: the arena plays a random card instead), so that
    the failure is told instead of passing in silence. A failure counts once, at the
    decision where the failing call was first made (see games/rps_poker/bots.py)."""
    def resolve(game: Game, name: str) -> BotFactory | None:
        factory = resolve_bot(game, name)
        if factory is None or not name.startswith("file:"):
            return factory
        made = factory

        def make() -> Any:
            seat = made()
            choose = seat.choose

            def choose_watched(view: Any, prompt: Any, rng: Any) -> Any:
                before = getattr(seat, "errors", 0)
                command = choose(view, prompt, rng)
                if getattr(seat, "errors", 0) > before:
                    failed(name[len("file:"):], getattr(seat, "error", ""))
                return command
            seat.choose = choose_watched  # type: ignore[method-assign]  # this one bot's, watched
            return seat
        return make
    return resolve
