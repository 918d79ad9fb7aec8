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
import heapq
import itertools
import logging
from collections.abc import Awaitable, Callable, Hashable
from datetime import UTC, datetime, timedelta

from bot import metrics

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
    """Calls `on_due(token)` once each token's time has come. One task serves every match.

    Due times sit in a heap (stale entries are skipped when they surface), so arming a clock
    is O(log n) and the task only wakes when the earliest time moves earlier, however many
    matches are running.
    """

    def __init__(self, now: TimeSource, on_due: Callable[[Hashable], Awaitable[None]]) -> None:
        self._now = now
        self._on_due = on_due
        self._due: dict[Hashable, tuple[datetime, int]] = {}
        self._heap: list[tuple[datetime, int, Hashable]] = []
        self._counter = itertools.count()
        self._changed = asyncio.Event()
        self._waiting_until: datetime | None = None  # what the task sleeps towards
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._firing: dict[asyncio.Task[None], Hashable] = {}  # calls under way: their tokens
        self._stopping = False

    def set(self, token: Hashable, when: datetime | None) -> None:
        """Arm (or re-arm) `token` for `when`; None disarms it."""
        if when is None:
            self._due.pop(token, None)
            return
        current = self._due.get(token)
        if current is not None and current[0] == when:
            return
        number = next(self._counter)
        self._due[token] = (when, number)
        heapq.heappush(self._heap, (when, number, token))
        if len(self._heap) > 2 * len(self._due) + 64:
            self._compact()
        if self._waiting_until is None or when < self._waiting_until:
            self._changed.set()

    def clear(self, predicate: Callable[[Hashable], bool]) -> None:
        for token in [t for t in self._due if predicate(t)]:
            del self._due[token]

    def cancel(self, predicate: Callable[[Hashable], bool]) -> list[asyncio.Task[None]]:
        """Disarm the tokens for which `predicate` holds and cancel their calls under way
        (e.g. a timeout waiting for, or holding, its match's lock); those calls' tasks."""
        self.clear(predicate)
        tasks = [task for task, token in self._firing.items() if predicate(token)]
        for task in tasks:
            task.cancel()
        return tasks

    def _fired(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._firing.pop(task, None)

    @property
    def armed(self) -> int:
        """How many tokens are armed (0: nothing will fire)."""
        return len(self._due)

    def when(self, token: Hashable) -> datetime | None:
        found = self._due.get(token)
        return found[0] if found else None

    def _compact(self) -> None:
        self._heap = [(when, number, token) for token, (when, number) in self._due.items()]
        heapq.heapify(self._heap)

    def _next(self) -> datetime | None:
        """The earliest live due time (dropping stale heap entries on the way)."""
        while self._heap:
            when, number, token = self._heap[0]
            if self._due.get(token) == (when, number):
                return when
            heapq.heappop(self._heap)
        return None

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
            while (when := self._next()) is not None and when <= now:
                metrics.clock_late((now - when).total_seconds())
                _, _, token = heapq.heappop(self._heap)
                del self._due[token]
                task = asyncio.create_task(self._fire(token))
                self._running.add(task)
                self._firing[task] = token
                task.add_done_callback(self._fired)
            self._waiting_until = when
            try:
                if when is not None:
                    delay = max(0.0, (when - self._now()).total_seconds())
                    # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a
                    # cancellation that arrives as the event is set, and stop() would then hang.
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(delay):
                            await self._changed.wait()
                else:
                    await self._changed.wait()
            finally:
                self._waiting_until = None

    async def _fire(self, token: Hashable) -> None:
        try:
            await self._on_due(token)
        except Exception:  # a failing timer must never stop the scheduler
            log.exception("timer %r failed", token)
