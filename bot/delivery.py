"""Delivering the outbox: in order within a match, matches independent of each other.

A message is marked delivered only after the transport accepted it, so after a crash every
message not yet marked is sent again on start (transports de-duplicate with the message id:
Discord's nonce). Failed sends are retried with backoff; a permanent failure (a channel that
cannot be reached) is logged and not retried, and never stops the match.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime

from bot.store.repository import Repository, StoredMessage
from bot.transport import MatchInfo, Transport, TransportError

log = logging.getLogger(__name__)


class Delivery:
    def __init__(self, repo: Repository, transport: Transport, now: Callable[[], datetime],
                 *, retries: int = 5, backoff: float = 0.5, flush_every: float = 0.5) -> None:
        self.repo = repo
        self.transport = transport
        self.now = now
        self.retries = retries
        self.backoff = backoff
        self.flush_every = flush_every
        self._queues: dict[int, asyncio.Queue[tuple[MatchInfo, StoredMessage]]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._pending = 0
        self.failures: list[tuple[int, str]] = []  # (message id, reason) of permanent failures

    def enqueue(self, match: MatchInfo, message: StoredMessage) -> None:
        queue = self._queues.get(match.id)
        if queue is None:
            queue = self._queues[match.id] = asyncio.Queue()
            self._workers[match.id] = asyncio.create_task(self._work(queue),
                                                          name=f"deliver-{match.id}")
        self._pending += 1
        self._idle.clear()
        queue.put_nowait((match, message))
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush_loop(), name="deliver-flush")

    async def drain(self) -> None:
        """Wait until every enqueued message was handled and marked."""
        await self._idle.wait()
        await self.flush()

    async def flush(self) -> None:
        """Store the delivery marks not yet stored (normally they ride along with the next
        command's transaction; this commits them when no command came)."""
        await self.repo.flush_delivered()

    async def stop(self) -> None:
        tasks = [*self._workers.values(), *([self._flusher] if self._flusher else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._workers.clear()
        self._queues.clear()
        self._flusher = None
        with contextlib.suppress(Exception):
            await self.flush()

    async def _work(self, queue: asyncio.Queue[tuple[MatchInfo, StoredMessage]]) -> None:
        while True:
            match, message = await queue.get()
            try:
                await self._send(match, message)
            finally:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()

    async def _send(self, match: MatchInfo, message: StoredMessage) -> None:
        for attempt in range(self.retries + 1):
            try:
                await self.transport.send(match, message)
            except TransportError as exc:
                if exc.permanent or attempt == self.retries:
                    log.warning("message %s of match %s not delivered: %s", message.id, match.id, exc)
                    self.failures.append((message.id, str(exc)))
                    break
                await asyncio.sleep(self.backoff * (2 ** attempt))
            except Exception as exc:  # a bug in a transport must not stop delivery
                log.exception("transport failed on message %s", message.id)
                if attempt == self.retries:
                    self.failures.append((message.id, repr(exc)))
                    break
                await asyncio.sleep(self.backoff * (2 ** attempt))
            else:
                break
        self.repo.queue_delivered([message.id], self.now())

    async def _flush_loop(self) -> None:
        while True:
            await asyncio.sleep(self.flush_every)
            try:
                await self.flush()
            except Exception:
                log.exception("could not mark messages delivered (will retry)")
