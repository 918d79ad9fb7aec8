"""A worker process for the event kill test (`python -m tests.tournament.event_worker DB`):
runs (or resumes) an 8-bot knockout on the SQLite file DB, printing each line as it goes."""

from __future__ import annotations

import asyncio
import sys

from bot.console.tournament import run_tournament
from tests.tournament.knockout import Knockout

if __name__ == "__main__":
    asyncio.run(run_tournament("rps-poker", ["heuristic", "random"] * 4, "knockout",
                               seed=11, db=sys.argv[1], bot_think=float(sys.argv[2]),
                               formats=lambda name: Knockout()))
