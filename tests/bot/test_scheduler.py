"""The one scheduler on its own, under looptime: order, re-arming, disarming, many tokens."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Hashable
from datetime import timedelta

import pytest

from bot.clock import Scheduler, loop_clock

pytestmark = pytest.mark.looptime


def _scheduler() -> tuple[Scheduler, list[tuple[Hashable, float]]]:
    fired: list[tuple[Hashable, float]] = []
    now = loop_clock()

    async def on_due(token: Hashable) -> None:
        fired.append((token, asyncio.get_running_loop().time()))

    return Scheduler(now, on_due), fired


async def test_tokens_fire_in_time_order_at_their_time():
    scheduler, fired = _scheduler()
    now = loop_clock()
    start = now()
    loop_start = asyncio.get_running_loop().time()
    scheduler.start()
    for token, seconds in (("c", 30), ("a", 10), ("b", 20)):
        scheduler.set(token, start + timedelta(seconds=seconds))
    await asyncio.sleep(31)
    assert [t for t, _ in fired] == ["a", "b", "c"]
    assert [round(at - loop_start) for _, at in fired] == [10, 20, 30]
    await scheduler.stop()


async def test_rearming_earlier_wakes_the_scheduler_and_later_postpones():
    scheduler, fired = _scheduler()
    now = loop_clock()
    start = now()
    scheduler.start()
    scheduler.set("x", start + timedelta(seconds=60))
    scheduler.set("y", start + timedelta(seconds=5))
    await asyncio.sleep(1)
    scheduler.set("x", start + timedelta(seconds=2))   # earlier than what it sleeps towards
    scheduler.set("y", start + timedelta(seconds=50))  # later: the old 5 s entry is stale
    await asyncio.sleep(10)
    assert [t for t, _ in fired] == ["x"], "x at 2 s; y's stale 5 s entry must not fire"
    assert scheduler.when("y") == start + timedelta(seconds=50)
    await asyncio.sleep(45)
    assert [t for t, _ in fired] == ["x", "y"]
    assert scheduler.when("x") is None and scheduler.when("y") is None
    await scheduler.stop()


async def test_disarmed_and_cleared_tokens_never_fire():
    scheduler, fired = _scheduler()
    now = loop_clock()
    start = now()
    scheduler.start()
    for i in range(10):
        scheduler.set((1, i), start + timedelta(seconds=5 + i))
        scheduler.set((2, i), start + timedelta(seconds=5 + i))
    scheduler.set((1, 0), None)
    scheduler.clear(lambda t: isinstance(t, tuple) and t[0] == 2)
    await asyncio.sleep(30)
    assert sorted(t for t, _ in fired) == [(1, i) for i in range(1, 10)]
    await scheduler.stop()


async def test_many_rearmings_fire_each_token_once_at_its_last_time():
    scheduler, fired = _scheduler()
    now = loop_clock()
    start = now()
    scheduler.start()
    rng = random.Random(5)
    last: dict[int, int] = {}
    for _ in range(5000):  # far more re-arms than tokens: stale entries get compacted away
        token, seconds = rng.randrange(50), rng.randrange(1, 100)
        scheduler.set(token, start + timedelta(seconds=seconds))
        last[token] = seconds
    assert len(scheduler._heap) <= 2 * 50 + 64 + 1
    await asyncio.sleep(101)
    assert sorted(t for t, _ in fired) == sorted(last)
    loop_start = asyncio.get_running_loop().time() - 101
    assert {t: round(at - loop_start) for t, at in fired} == last
    await scheduler.stop()


async def test_armed_counts_the_tokens_that_will_fire() -> None:
    """(the tests' driver reads it: tests/support/driver.py)"""
    scheduler, fired = _scheduler()
    start = loop_clock()()
    scheduler.start()
    assert scheduler.armed == 0
    for i in range(3):
        scheduler.set(i, start + timedelta(seconds=5 + i))
    scheduler.set(0, start + timedelta(seconds=20))  # re-armed: still one token
    scheduler.set(2, None)
    assert scheduler.armed == 2
    await asyncio.sleep(30)
    assert sorted(t for t, _ in fired) == [0, 1] and scheduler.armed == 0
    await scheduler.stop()
