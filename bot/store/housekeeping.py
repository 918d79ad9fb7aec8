"""Keeping storage bounded for a bot that runs for months.

The action log is kept forever (it is the record). What is only a cache or a queue is
pruned: outbox rows delivered more than `database.outbox_retention_days` ago (a match's
export then lists only the messages still kept), every snapshot of an ended match but its
latest (matches that end from now on drop them in their last transaction), and every clock
row of an ended match (one per decision ever made, read only while the match runs). The
service prunes once on start and then every `PRUNE_EVERY_SECONDS`; `umpire vacuum` prunes on
demand and then gives the space back to the file system (SQLite VACUUM).

A retention of None keeps every delivered message ("forever"); a retention of 0 deletes
every message delivered so far.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.store.repository import Pruned, Repository

log = logging.getLogger(__name__)

PRUNE_EVERY_SECONDS = 3600.0


def cutoff(now: datetime, retention: timedelta | None) -> datetime | None:
    """Outbox rows delivered before this are deleted (None: keep them all; a retention of
    0: every row delivered until now)."""
    return None if retention is None else now - max(retention, timedelta(0))


async def prune_forever(repo: Repository, retention: timedelta | None,
                        now: Callable[[], datetime],
                        every: float = PRUNE_EVERY_SECONDS) -> None:
    """Prune now, then every `every` seconds, until cancelled. A failure is logged and
    retried at the next round: pruning is never worth stopping the bot for."""
    while True:
        try:
            pruned = await repo.prune(cutoff(now(), retention))
            if pruned.messages or pruned.snapshots or pruned.clocks:
                log.info("pruned %d delivered messages, %d snapshots and %d clock rows of "
                         "ended matches", pruned.messages, pruned.snapshots, pruned.clocks)
        except Exception:
            log.exception("pruning the store failed; trying again later")
        await asyncio.sleep(every)


async def vacuum(url: str, retention: timedelta | None, now: datetime) -> Pruned:
    """`umpire vacuum`: migrate, prune, then VACUUM. Beside a running bot, its writes wait
    for the VACUUM without stalling its loop, and are refused after database.store_wait_seconds
    (bot/store/writer.py): vacuum a large file while the bot is stopped."""
    from bot.store.database import create_engine

    engine = create_engine(url)
    repo = Repository(engine)
    try:
        await repo.migrate()
        pruned = await repo.prune(cutoff(now, retention))
        await repo.close()
        await repo.vacuum()
    finally:
        await repo.close()
        await engine.dispose()
    return pruned
