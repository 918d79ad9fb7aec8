"""A worker process for the event kill test (`python -m tests.tournament.event_worker DB`):
runs (or resumes) an 8-bot single elimination on the SQLite file DB, printing each line as it goes.

A kill can land after the event has ended but before the process exits (while it prints the
standings); the run after it then finds the event over and says who won, rather than
beginning a second event, as `umpire tournament` itself would."""

from __future__ import annotations

import asyncio
import io
import sys

from bot.console.demo import PrintTransport
from bot.console.runtime import local_service
from bot.console.tournament import run_tournament
from bot.tournament import store
from bot.tournament.event import champion
from bot.tournament.formats import format_named


async def main(db: str, think: float) -> None:
    async with local_service(PrintTransport(io.StringIO(), quiet=True), db=db) as service:
        events = await store.of_guild(service.repo.engine, 0)
    if events and events[0].status == "ended":
        event = events[0]
        print(f"Event #{event.id} had ended: "
              f"{event.name_of(champion(event, format_named(event.format)))} is the champion.",
              flush=True)
        return
    await run_tournament("rps-poker", ["heuristic", "random"] * 4, "single", seed=11, db=db,
                         bot_think=think)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], float(sys.argv[2])))
