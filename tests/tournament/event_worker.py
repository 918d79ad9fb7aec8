"""A worker process for the event kill test (`python -m tests.tournament.event_worker DB`):
runs (or resumes) an 8-bot single elimination on the SQLite file DB, printing each line as it goes.

A kill can land after the event has ended but before the process exits (while it prints the
standings); the run after it then finds the event over and says who won, rather than
beginning a second event, as `umpire tournament` itself would."""

from __future__ import annotations

import asyncio
import sys

from bot.console.tournament import run_tournament
from bot.store.database import create_engine, database_url
from bot.store.migrate import migrate
from bot.tournament import store
from bot.tournament.event import Event, champion
from bot.tournament.formats import format_named


async def ended_event(db: str) -> Event | None:
    """The event of DB if it has ended, read from the store alone. Not through a service: a
    service started without the event runner resumes the event's running matches, and a bot
    that ends one there stores its result without the event's record of it (the pairing is
    then played again: twice, with two winners)."""
    engine = create_engine(database_url(db))
    try:
        await migrate(engine)
        events = await store.of_guild(engine, 0)
    finally:
        await engine.dispose()
    return events[0] if events and events[0].status == "ended" else None


async def main(db: str, think: float) -> None:
    event = await ended_event(db)
    if event is not None:
        print(f"Event #{event.id} had ended: "
              f"{event.name_of(champion(event, format_named(event.format)))} is the champion.",
              flush=True)
        return
    await run_tournament("rps-poker", ["heuristic", "random"] * 4, "single", seed=11, db=db,
                         bot_think=think)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], float(sys.argv[2])))
