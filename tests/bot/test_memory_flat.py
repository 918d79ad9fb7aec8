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

import pytest

from bot.store.repository import MatchWrite, StoredMatch, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService
from games.registry import all_games, installed_games
from tests.support.driver import drive
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

    async def commit(self, write: MatchWrite, now: datetime, *, at_once: bool = False) -> list[int]:
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
        await drive(service).drain()
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


GAMES = installed_games()
WAVE = 50  # finished matches per wave: more than `keep_ended` (lowered below), so each wave retires as many


async def _play_game(service: MatchService, game: str, first: int) -> None:
    for batch in range(first, first + WAVE, 50):  # short matches (the game's quick
        # settings); bots answer at once, so timers never fire
        started = [await service.start_match(
            game, [PlayerRef(f"a{i}", "A", bot="random"), PlayerRef(f"b{i}", "B", bot="random")],
            settings=all_games()[game].quick_settings(), seed=f"{game}{i}") for i in range(batch, batch + 50)]
        await service.wait_finished([m.id for m in started], timeout=120)
        await drive(service).drain()
        for _ in range(3):
            await asyncio.sleep(0)


async def _run_game(game: str) -> tuple[float, MatchService]:
    service = MatchService(ForgetfulRepository(), NullTransport())  # type: ignore[arg-type]
    service.keep_ended = min(service.keep_ended, WAVE // 4)
    await service.start()
    try:
        await _play_game(service, game, 0)  # warms the caches, fills the ended-match list
        before = _measure()
        await _play_game(service, game, WAVE)
        await _play_game(service, game, 2 * WAVE)
        return (_measure() - before) / (2 * WAVE), service
    finally:
        await service.stop()


@pytest.mark.parametrize("game", GAMES)
def test_memory_stays_flat_over_finished_matches_of_every_game(game: str) -> None:
    """Issue 15: no game keeps memory per finished match (a game's caches stay bounded by
    far less than a match's worth each, its bots keep no per-match entries)."""
    tracemalloc.start()
    try:
        growth, service = asyncio.run(_run_game(game))
    finally:
        tracemalloc.stop()
    print(f"{game}: memory growth per finished match: {growth:.0f} bytes")
    assert all(m.status not in ("active", "paused") for m in drive(service).matches())
    assert len(service.matches) <= service.keep_ended
    assert not drive(service).leftovers()
    assert growth < PER_MATCH_BOUND, f"{game}: {growth:.0f} bytes kept per finished match"


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
    assert not drive(service).leftovers()
    assert growth < PER_MATCH_BOUND, f"{growth:.0f} bytes kept per finished match"
