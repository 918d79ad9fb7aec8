"""Pacing the bot's REST requests under Discord's rate limits before sending, not after a 429.

Two limits, both kept at the moment aiohttp sends a request (an `aiohttp` trace hook, after
discord.py's own waits and on each of its retries too), so what is counted is requests on
the wire:

- **The global limit.** Discord allows a bot token about 50 REST requests per second in all
  (interaction callbacks and an interaction's webhook aside). discord.py learns of it only
  from a 429, and many 429s get a token banned for a while. So the requests go out at most
  `per_second` (40: a fifth to spare, for requests that reach Discord bunched: with 45 the
  bench, its event loop late by up to 150 ms, still got global 429s) a second, evenly
  spaced: a burst lets the first through at once and the rest follow one by one. Spaced,
  not 40 at once then none for a second: requests sent together reach Discord a little apart, and a window that
  ends among them would count two bursts.
- **Each route's bucket** (e.g. 5 messages per 5 s in a channel, channels made per server).
  discord.py waits ahead of an exhausted bucket by Discord's headers, but under load it let
  through requests Discord refused (`python -m bench.discord --matches 200`, 25 matches
  started at once on each server, the event loop busy: 292 × 429 on the channel-creation
  route in two minutes; each waiter that wakes at a reset may reset discord.py's count
  again). Here a request waits while its bucket, as Discord's last answer on it left it
  less the requests in flight since, has nothing left, until the bucket's reset.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import aiohttp

GLOBAL_PER_SECOND = 40
#: Requests outside the global limit: interaction callbacks and an interaction's webhook.
EXEMPT = ("/interactions/", "/webhooks/")
API = re.compile(r"^.*?/api/v\d+")  # a REST URL's path up to the API's version
POLL = 0.05  # a bucket whose first answer is awaited is looked at again after this long
PRUNE_EVERY = 1000  # requests between two sweeps of the buckets at rest


@dataclass
class _Bucket:
    limit: int = 1
    remaining: int = 1  # as of Discord's last answer
    reset_at: float | None = None  # loop time of the bucket's reset (None: not known yet)
    inflight: int = 0  # requests sent on it and not yet answered


def bucket_key(method: str, path: str) -> str:
    """The bucket a request counts against (`path` from after /api/v10): its route with
    every id but the major one (the channel, server, or webhook and its token) left out, as
    Discord keys its buckets."""
    parts = path.strip("/").split("/")
    keep = {"channels": 2, "guilds": 2, "webhooks": 3}.get(parts[0], 0)
    tail = ["{id}" if part.isdigit() else part for part in parts[keep:]]
    return f"{method} /" + "/".join([*parts[:keep], *tail])


class Pacer:
    """Requests `window / per_second` seconds apart at least, in the order they asked, and
    none on a bucket with nothing left."""  # (one event loop: no locks needed)

    def __init__(self, per_second: int = GLOBAL_PER_SECOND, window: float = 1.0) -> None:
        self.per_second = per_second
        self.window = window
        self._next = 0.0  # loop time from which the next request may go
        self._sent: deque[float] = deque()  # loop times the requests of the last window went
        self._buckets: dict[str, _Bucket] = {}
        self.waits = 0  # requests that waited for the global limit (for the bench and tests)
        self.bucket_waits = 0  # ...and for their bucket
        self._taken = 0

    async def wait(self) -> None:
        """Wait for the global limit: each request takes the next free slot at once (no
        await between reading and moving `_next`, so slots go in the order asked) and sleeps
        until it. A waker that is late does not delay the slots after its own: handing a
        lock from one request to the next cost a turn of a busy event loop each, and capped
        the bench at 31 requests a second where 45 were allowed."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        slot = max(now, self._next)
        self._next = slot + self.window / self.per_second
        if slot > now:
            self.waits += 1
            await asyncio.sleep(slot - now)
        # Woken late (the loop was held), many slots end at once: never more than
        # `per_second` in the last `window` all the same.
        while True:
            now = loop.time()
            while self._sent and self._sent[0] <= now - self.window:
                self._sent.popleft()
            if len(self._sent) < self.per_second:
                break
            await asyncio.sleep(self._sent[0] + self.window - now)
        self._sent.append(now)

    async def take(self, key: str) -> None:
        """Wait until the bucket `key` has a request left, and count this one in flight."""
        loop = asyncio.get_running_loop()
        waited = False
        while True:
            bucket = self._buckets.setdefault(key, _Bucket())
            now = loop.time()
            if bucket.reset_at is not None and now >= bucket.reset_at:
                bucket.remaining, bucket.reset_at = bucket.limit, None
            if bucket.remaining - bucket.inflight > 0:
                break
            if not waited:
                self.bucket_waits += 1
                waited = True
            await asyncio.sleep(bucket.reset_at - now if bucket.reset_at is not None else POLL)
        bucket.inflight += 1
        self._taken += 1
        if self._taken % PRUNE_EVERY == 0:
            self._prune(now)

    def held_for(self, key: str) -> float:
        """Seconds until the bucket `key` takes a request again, as far as Discord's last
        answer on it and the requests in flight since tell (0: it has one left, or is not
        known). A post to a channel whose message bucket is held waits that long anyway:
        Delivery takes what its channel queues meanwhile into the same post."""
        bucket = self._buckets.get(key)
        if bucket is None or bucket.reset_at is None:
            return 0.0
        left = bucket.reset_at - asyncio.get_running_loop().time()
        return left if left > 0 and bucket.remaining - bucket.inflight <= 0 else 0.0

    def _prune(self, now: float) -> None:
        """Forget the buckets at rest (nothing in flight, past their reset): a channel's
        bucket is not kept for the months a bot runs."""
        self._buckets = {k: b for k, b in self._buckets.items()
                         if b.inflight or (b.reset_at is not None and b.reset_at > now)}

    def answered(self, key: str, headers: Any | None) -> None:
        """Discord answered a request on `key` (headers None: it failed on the way)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            return
        bucket.inflight = max(0, bucket.inflight - 1)
        if headers is None:
            return
        remaining, after = headers.get("X-RateLimit-Remaining"), \
            headers.get("X-RateLimit-Reset-After")
        if remaining is None or after is None:  # not a limited route
            if bucket.inflight == 0:
                del self._buckets[key]
            return
        bucket.limit = int(headers.get("X-RateLimit-Limit", bucket.limit))
        bucket.remaining = int(remaining)
        bucket.reset_at = asyncio.get_running_loop().time() + float(after)

    def install(self, http: Any) -> None:
        """Pace the REST requests of a discord.py `HTTPClient` before it logs in (its
        session is made at login, with the client's `http_trace`)."""
        trace = http.http_trace
        if trace is None:
            trace = http.http_trace = aiohttp.TraceConfig()
        trace.on_request_start.append(self._on_request_start)
        trace.on_request_end.append(self._on_request_end)
        trace.on_request_exception.append(self._on_request_exception)

    async def _on_request_start(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                                params: aiohttp.TraceRequestStartParams) -> None:
        path = params.url.path
        if not API.match(path) or "/interactions/" in path:
            return
        key = bucket_key(params.method, API.sub("", path))
        await self.take(key)
        context.bucket = key
        if not any(p in path for p in EXEMPT):
            await self.wait()

    async def _on_request_end(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                              params: aiohttp.TraceRequestEndParams) -> None:
        key = getattr(context, "bucket", None)
        if key is not None:
            self.answered(key, params.response.headers)

    async def _on_request_exception(self, session: aiohttp.ClientSession,
                                    context: SimpleNamespace,
                                    params: aiohttp.TraceRequestExceptionParams) -> None:
        key = getattr(context, "bucket", None)
        if key is not None:
            self.answered(key, None)
