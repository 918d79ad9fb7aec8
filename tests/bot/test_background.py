"""Work the service starts and does not wait for (bot/service/stops.py `Background`)."""

from __future__ import annotations

import asyncio
import inspect

from bot.service.stops import Background


async def test_a_retry_cancelled_while_it_waits_closes_its_work_unrun() -> None:
    """A clock write retried `later` and cancelled (its shard dropped) never runs, and its
    coroutine is closed, not left to the collector ('was never awaited')."""
    ran: list[int] = []

    async def write() -> None:
        ran.append(1)

    work = write()
    task = asyncio.create_task(Background().later(work))
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled() and ran == []
    assert inspect.getcoroutinestate(work) == inspect.CORO_CLOSED
