"""The one door through which tests drive the match service (issue 44).

A test that exercises the service as a whole (the service, Discord, console and tournament
tests) asks this driver, not the service's parts: whether delivery is idle, drain and wake
it, the matches in memory, a match's clocks, its stored messages and actions, what is left
undelivered, the delivery failures. The driver uses only public methods and reads of the
service and its parts, so that a part can change inside without touching every test; where a
test needed something only a private attribute gave, the part has a public read for it
(`Delivery.idle`, `Delivery.channels()`, `Scheduler.armed`). tests/test_driver_door.py keeps
the other tests from reaching past it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from bot.live import LiveMatch
from bot.store.fence import Fence
from bot.store.models import ActionRow, MatchRow
from bot.store.repository import StoredMatch, StoredMessage
from bot.store.writer import BatchWriter
from bot.umpire import MatchService


class Driver:
    """Drives one `MatchService` for a test. Cheap to make: it holds only the service."""

    def __init__(self, service: MatchService) -> None:
        self.service = service

    # -- delivery -------------------------------------------------------------------------

    def idle(self) -> bool:
        """Nothing enqueued is left to send (marks may still be unstored: `drain` stores them)."""
        return self.service.delivery.idle

    async def drain(self) -> None:
        """Wait until every pending message was handled, and store the delivery marks."""
        await self.service.delivery.drain()

    def wake(self, match_id: int | None = None) -> None:
        """Cut short the backoff of a failing channel (of one match, or of every match)."""
        self.service.delivery.wake(match_id)

    @property
    def failures(self) -> list[tuple[int, str]]:
        """(message id, reason) of every message given up on (never delivered)."""
        return self.service.delivery.failures

    def down_since(self, match_id: int, audience: str) -> datetime | None:
        """Since when the match's channel `audience` has been failing (None: it is not)."""
        return self.service.delivery.down_since(match_id, audience)

    def sending(self) -> set[tuple[int, str]]:
        """The (match id, audience) channels with a queue or a sending task now."""
        return self.service.delivery.channels()

    def down(self) -> set[tuple[int, str]]:
        """The (match id, audience) channels whose sends are failing now."""
        return self.service.delivery.channels_down()

    def set_backoff(self, backoff: float | None = None, max_backoff: float | None = None,
                    *, stall_after: float | None = None) -> None:
        """Change how long a failing channel waits before its next try, at first and at
        most, and after how long failing the hosts are told (seconds; None: unchanged)."""
        delivery = self.service.delivery
        if backoff is not None:
            delivery.backoff = backoff
        if max_backoff is not None:
            delivery.max_backoff = max_backoff
        if stall_after is not None:
            delivery.stall_after = stall_after

    # -- matches in memory ----------------------------------------------------------------

    def matches(self) -> list[LiveMatch]:
        """The matches in memory, oldest first (as the service keeps them)."""
        return list(self.service.matches.values())

    def match(self, match_id: int) -> LiveMatch | None:
        """The match in memory with this id, or None."""
        return self.service.matches.get(match_id)

    # -- clocks and prompts ---------------------------------------------------------------

    def deadline(self, match_id: int, key: str) -> datetime | None:
        """When the clock of the match's decision `key` is armed to fire (None: it is not)."""
        return self.service.scheduler.when((match_id, key))

    def armed(self) -> int:
        """How many clocks (and other timers) the scheduler has armed."""
        return self.service.scheduler.armed

    def open_prompts(self, match_id: int) -> list[str]:
        """The keys of the decisions the match asks now (empty if not in memory)."""
        match = self.match(match_id)
        return [] if match is None else [p.key for p in match.prompts]

    async def fire(self, match_id: int, key: str) -> None:
        """Fire the clock of decision `key` now, as the scheduler would at its time."""
        await self.service.clocks.on_due((match_id, key))

    def stopped_clocks(self) -> set[tuple[int, str]]:
        """The (match id, decision key) whose clocks are stopped because a channel they need
        is down."""
        return set(self.service.clocks.stops.stopped)

    def downtime_seconds(self) -> float:
        """The downtime the clocks were shifted by at the last start, in seconds."""
        return self.service.downtime.total_seconds()

    def leftovers(self) -> dict[str, Any]:
        """What the service still keeps per match or per channel, by what keeps it (empty
        once every match ended and everything was delivered: no memory grows with the
        number of matches played)."""
        found: dict[str, Any] = {
            "bot tries": self.service.bots.tries,
            "unseen prompts": self.service.clocks.unseen,
            "held timeouts": self.service.clocks.held,
            "stopped clocks": self.service.clocks.stops.stopped,
            "delivery channels": self.sending(),
            "channels down": self.down(),
        }
        return {name: kept for name, kept in found.items() if kept}

    def bot_tasks(self) -> int:
        """How many bot moves are under way."""
        return len(self.service.bots.tasks)

    def acting(self, match: LiveMatch) -> bool:
        """Whether this process may act for the match now (its shard's lease)."""
        return self.service.resumer.acting(match)

    def shards(self) -> set[int] | None:
        """The shards whose matches this process owns (sharded: its leases; None: every
        shard, an unsharded process)."""
        return self.service.repo.shards

    def set_shard_count(self, count: int) -> None:
        """Spread new matches over `count` shards (as a sharded deployment does)."""
        self.service.repo.shard_count = count

    def set_fence(self, fence: Fence | None) -> None:
        """Fence the store's writes as a sharded process's are (None: unfenced)."""
        self.service.repo.fence = fence

    # -- the store ------------------------------------------------------------------------

    async def actions(self, match_id: int) -> list[ActionRow]:
        """The match's stored actions, in order."""
        return await self.service.repo.actions(match_id)

    async def messages(self, match_id: int) -> list[StoredMessage]:
        """The match's stored outbox messages (delivered or not), in order."""
        return await self.service.repo.messages(match_id)

    async def undelivered(self) -> list[StoredMessage]:
        """The messages not yet delivered, of the shards this process owns."""
        return await self.service.repo.undelivered()

    async def count_undelivered(self) -> int:
        """How many stored messages are not yet delivered (every shard)."""
        return await self.service.repo.count_undelivered()

    async def stored(self, match_id: int) -> StoredMatch | None:
        """The match as stored (its row, snapshot, later actions and clocks), or None."""
        return await self.service.repo.load_match(match_id)

    async def stored_many(self, ids: list[int]) -> list[StoredMatch]:
        """These matches as stored, in one go."""
        return await self.service.repo.load_many(ids)

    async def rows(self, ids: list[int]) -> list[MatchRow]:
        """Just the stored rows of these matches (who plays, where)."""
        return await self.service.repo.match_rows(ids)

    async def stored_matches(self, limit: int = 50) -> list[MatchRow]:
        """The newest stored match rows, newest first."""
        return await self.service.repo.list_matches(limit)

    async def ended_with_open_places(self) -> list[MatchRow]:
        """Ended matches whose places (channels) were never closed."""
        return await self.service.repo.ended_with_open_places()

    @property
    def engine(self) -> AsyncEngine:
        """The store's database engine, for reads of other tables (events, ratings)."""
        return self.service.repo.engine

    @property
    def writer(self) -> BatchWriter[Any]:
        """The store's write queue (batches the writes of concurrent commands)."""
        return self.service.repo.writer


def drive(service: MatchService) -> Driver:
    """The driver of `service` (a new one each time: it keeps no state of its own)."""
    return Driver(service)


__all__ = ["Driver", "drive"]
