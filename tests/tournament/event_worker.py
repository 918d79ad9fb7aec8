"""A worker process for the event kill test (`python -m tests.tournament.event_worker DB`):
runs (or resumes) an 8-bot single elimination on the SQLite file DB, printing each line as it goes."""

from __future__ import annotations

import asyncio
import sys

from bot.console.tournament import run_tournament

if __name__ == "__main__":
    asyncio.run(run_tournament("rps-poker", ["heuristic", "random"] * 4, "single",
                               seed=11, db=sys.argv[1], bot_think=float(sys.argv[2])))
