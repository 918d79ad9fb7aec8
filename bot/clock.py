"""Time for the match service: the time source and the one scheduler.

Deadlines are stored as absolute UTC times (bot/store). The scheduler keeps, per match clock,
the next moment something is due (a reminder or the deadline) and wakes once at the
earliest one; the service's callback re-checks the match before doing anything, so a timer
that fired for a decision already made does nothing.

Time comes from a `TimeSource`: the wall clock in production, or the event loop's clock in
tests so that looptime can fast-forward a 90 s timer in milliseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Hashable
from datetime import UTC, datetime, timedelta

log = logging.getLogger(__name__)

TimeSource = Callable[[], datetime]


def wall_clock() -> datetime:
    return datetime.now(UTC)


def loop_clock(start: datetime | None = None) -> TimeSource:
    """A time source that follows the running loop's clock (for looptime tests)."""
    origin = start or datetime(2026, 1, 1, tzinfo=UTC)
    loop_origin: list[float] = []

    def now() -> datetime:
        t = asyncio.get_running_loop().time()
        if not loop_origin:
            loop_origin.append(t)
        return origin + timedelta(seconds=t - loop_origin[0])

    return now


class Scheduler:
    """Calls `on_due(token)` once each token's time has come. One task serves every match."""

    def __init__(self, now: TimeSource, on_due: Callable[[Hashable], Awaitable[None]]) -> None:
        self._now = now
        self._on_due = on_due
        self._due: dict[Hashable, datetime] = {}
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._stopping = False

    def set(self, token: Hashable, when: datetime | None) -> None:
        """Arm (or re-arm) `token` for `when`; None disarms it."""
        if when is None:
            self._due.pop(token, None)
        else:
            self._due[token] = when
        self._changed.set()

    def clear(self, predicate: Callable[[Hashable], bool]) -> None:
        for token in [t for t in self._due if predicate(t)]:
            del self._due[token]
        self._changed.set()

    def when(self, token: Hashable) -> datetime | None:
        return self._due.get(token)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="umpire-scheduler")

    async def stop(self) -> None:
        self._stopping = True
        self._changed.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for task in list(self._running):
            task.cancel()
        for task in list(self._running):
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while not self._stopping:
            self._changed.clear()
            now = self._now()
            due = [t for t, when in self._due.items() if when <= now]
            for token in due:
                del self._due[token]
                task = asyncio.create_task(self._fire(token))
                self._running.add(task)
                task.add_done_callback(self._running.discard)
            if self._due:
                delay = max(0.0, (min(self._due.values()) - self._now()).total_seconds())
                # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a
                # cancellation that arrives as the event is set, and stop() would then hang.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._changed.wait()
            else:
                await self._changed.wait()

    async def _fire(self, token: Hashable) -> None:
        try:
            await self._on_due(token)
        except Exception:  # a failing timer must never stop the scheduler
            log.exception("timer %r failed", token)
