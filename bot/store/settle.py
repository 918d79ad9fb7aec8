"""Run a command's coroutine so that aiosqlite's worker threads finish before the loop closes.

When aiosqlite fails to open a file (a missing folder, a file it may not read) it asks its
worker thread to stop but does not wait for it; the thread then hands its answer to an event
loop that `asyncio.run` may already have closed, and prints a traceback from the thread
("Event loop is closed") after the command's own one-line error. Every command that touches a
database runs through `run_settled`, which waits for those threads while the loop is still open.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_WORKER_NAME = "_connection_worker_thread"  # aiosqlite names its threads after this function
_WAIT_SECONDS = 5.0


def _sqlite_workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate()
            if _WORKER_NAME in t.name and t is not threading.current_thread()]


async def settle_sqlite_workers(wait: float = _WAIT_SECONDS) -> None:
    """Wait (at most `wait` seconds in all) for aiosqlite worker threads to end; their last
    callbacks run on this loop meanwhile. A worker of a connection still open is left alone
    after the wait: only stopped connections end."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    for worker in _sqlite_workers():
        left = deadline - loop.time()
        if left <= 0:
            return
        await asyncio.to_thread(worker.join, left)
    await asyncio.sleep(0)  # let the callbacks the workers scheduled run


def run_settled(work: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(work)`, then wait for stopped aiosqlite workers before the loop closes."""

    async def settled() -> T:
        try:
            return await work
        finally:
            await settle_sqlite_workers()

    return asyncio.run(settled())
