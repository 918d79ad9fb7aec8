"""Pacing the bot's REST requests under Discord's global limit, before sending, not after a 429.

Discord allows a bot token about 50 REST requests per second in all (interaction callbacks
and an interaction's webhook aside). discord.py paces each route's bucket by its headers,
but learns of the global limit only from a 429, and many 429s get a token banned for a while.
So the requests to the REST API go out at most `per_second` a second, evenly spaced
(1/45 s apart): a burst lets the first through at once and the rest follow one by one. The
wait is taken at the moment aiohttp sends a request (an `aiohttp` trace hook, after
discord.py's own bucket waits and on each of its retries too), so what is counted is
requests on the wire. Spaced, not 45 at once then none for a second: requests sent together
reach Discord a little apart, and a window that ends among them would count two bursts. 45,
not 50: a few to spare for the network's jitter.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import aiohttp

GLOBAL_PER_SECOND = 45
#: Requests outside the global limit: interaction callbacks and an interaction's webhook.
EXEMPT = ("/interactions/", "/webhooks/")


class GlobalPacer:
    """Requests `window / per_second` seconds apart at least, in the order they asked."""

    def __init__(self, per_second: int = GLOBAL_PER_SECOND, window: float = 1.0) -> None:
        self.per_second = per_second
        self.window = window
        self._next = 0.0  # loop time from which the next request may go
        self._lock = asyncio.Lock()  # FIFO: the first to wait goes first
        self.waits = 0  # requests that had to wait (for the bench and tests)

    async def wait(self) -> None:
        async with self._lock:
            loop = asyncio.get_running_loop()
            now = loop.time()
            if now < self._next:
                self.waits += 1
                await asyncio.sleep(self._next - now)
                now = loop.time()
            self._next = max(now, self._next) + self.window / self.per_second

    def install(self, http: Any) -> None:
        """Pace the REST requests of a discord.py `HTTPClient` before it logs in (its
        session is made at login, with the client's `http_trace`)."""
        trace = http.http_trace
        if trace is None:
            trace = http.http_trace = aiohttp.TraceConfig()
        trace.on_request_start.append(self._on_request_start)

    async def _on_request_start(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                                params: aiohttp.TraceRequestStartParams) -> None:
        path = params.url.path
        if "/api/" in path and not any(p in path for p in EXEMPT):
            await self.wait()
