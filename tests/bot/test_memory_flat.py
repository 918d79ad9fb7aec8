"""A service that runs for months keeps no memory per finished match: finished matches leave
`service.matches` once their messages are out (the last few stay for status and export),
delivery drops their channels' queues and tasks, and the bots' bookkeeping drops their
entries. Measured with tracemalloc over a long-lived service playing 2,000 short bot matches
on a store that keeps nothing in memory (so only the service's own memory is counted)."""

from __future__ import annotations

import asyncio
import gc
import itertools
import tracemalloc
from datetime import datetime, timedelta
from typing import Any

from bot.store.repository import MatchWrite, StoredMatch, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService
from tests.support.register import register_duel

PER_MATCH_BOUND = 1024  # bytes of growth allowed per finished match (found: +37-40 KB before)


class ForgetfulRepository:
    """A store that writes nothing down (ids only): the memory measured is the service's."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._messages = itertools.count(1)

    async def migrate(self) -> None: ...
    async def close(self) -> None: ...
    async def beat(self, now: datetime) -> None: ...
    async def flush_delivered(self) -> None: ...

    async def last_heartbeat(self) -> datetime | None:
        return None

    async def create_match(self, **_: Any) -> int:
        return next(self._ids)

    async def reserve_match(self, **_: Any) -> int:
        return next(self._ids)

    def forget_match(self, match_id: int) -> None: ...
    async def resume_clocks(self, downtime: timedelta, now: datetime) -> None: ...

    async def active_ids(self) -> list[int]:
        return []

    async def load_many(self, ids: list[int]) -> list[StoredMatch]:
        return []

    async def match_rows(self, ids: list[int]) -> list[Any]:
        return []

    async def commit(self, write: MatchWrite, now: datetime) -> list[int]:
        return [next(self._messages) for _ in write.outbox]

    async def commit_many(self, writes: list[MatchWrite], now: datetime) -> None: ...

    async def load_active(self) -> list[StoredMatch]:
        return []

    async def load_match(self, match_id: int) -> StoredMatch | None:
        return None

    async def undelivered(self) -> list[StoredMessage]:
        return []

    def queue_delivered(self, ids: list[int], now: datetime) -> None: ...


class NullTransport:
    sent = 0

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.sent += 1


async def _play(service: MatchService, count: int, start: int) -> None:
    for batch in range(start, start + count, 50):
        started = [await service.start_match(
            "duel", [PlayerRef(f"a{i}", "A", bot="random"), PlayerRef(f"b{i}", "B", bot="random")],
            settings={"rounds": 1}, seed=f"m{i}") for i in range(batch, batch + 50)]
        await service.wait_finished([m.id for m in started], timeout=60)
        await service.delivery.drain()
        for _ in range(3):  # let the channels' workers end and retire their matches
            await asyncio.sleep(0)


def _measure() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


async def _run() -> tuple[int, int, MatchService, NullTransport]:
    transport = NullTransport()
    service = MatchService(ForgetfulRepository(), transport)  # type: ignore[arg-type]
    await service.start()
    try:
        await _play(service, 500, 0)
        at_500 = _measure()
        await _play(service, 1500, 500)
        at_2000 = _measure()
        return at_500, at_2000, service, transport
    finally:
        await service.stop()


def test_memory_stays_flat_over_2000_finished_matches() -> None:
    register_duel()
    tracemalloc.start()
    try:
        at_500, at_2000, service, transport = asyncio.run(_run())
    finally:
        tracemalloc.stop()
    growth = (at_2000 - at_500) / 1500
    print(f"memory growth per finished match: {growth:.0f} bytes; "
          f"{len(service.matches)} matches kept")
    assert transport.sent >= 2000 * 3, "the matches were played and their messages sent"
    assert len(service.matches) <= service.keep_ended
    assert not service._bot_tries and not service._unseen and not service._held
    assert not service.delivery._queues and not service.delivery._workers
    assert growth < PER_MATCH_BOUND, f"{growth:.0f} bytes kept per finished match"
