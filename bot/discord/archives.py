"""What one bot keeps of its matches' channel work under way: a lock per match (archiving,
and making a deleted room or table again, never run at once for one match), the delayed
archives scheduled, and the channels named by `/match start`s not yet indexed.

It lives on the bot (`UmpireBot.archives`), not in a module: two bots in one process (a
test's restart, the shards' rehearsal) must not share locks or cancel each other's tasks.
"""

from __future__ import annotations

import asyncio
from typing import Any


class Archives:
    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: Channels named by starts under way (not yet indexed as a running match's).
        self.starting: set[int] = set()

    def lock(self, match_id: int) -> asyncio.Lock:
        return self._locks.setdefault(match_id, asyncio.Lock())

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a scheduled archive until it is done (so it is neither collected nor lost
        to `wait` and `cancel`)."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait(self) -> None:
        """Wait for the archives scheduled so far (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()
