"""Pacing the bot's REST requests under Discord's rate limits before sending, not after a 429.

Two limits, both kept at the moment aiohttp sends a request (an `aiohttp` trace hook, after
discord.py's own waits and on each of its retries too), so what is counted is requests on
the wire:

- **The global limit.** Discord allows a bot token about 50 REST requests per second in all
  (interaction callbacks and an interaction's webhook aside). discord.py learns of it only
  from a 429, and many 429s get a token banned for a while. So the requests go out at most
  `per_second` (40: a fifth to spare, for requests that reach Discord bunched: with 45 the
  bench, its event loop late by up to 150 ms, still got global 429s) a second, evenly
  spaced: spaced, not 40 at once then none for a second, as requests sent together reach
  Discord a little apart and a window that ends among them would count two bursts. While
  nothing waits a request goes at once; when the budget is short they wait in line by
  `Priority` (a decision's prompt and a refusal, then room and table announcements, then
  the host log, the feed and closing channels), and within a class the servers take turns,
  so a busy server's log never delays another server's prompt; a request that waited its
  class's `PATIENCE` goes first, so no class starves while the budget stays short. What a request is for is
  told by the transport around a post (`sending`, a context variable: the pacer sits in
  aiohttp, below discord.py, and sees only URLs). A post may take its slot ahead (`turn`)
  and take what its channel queued meanwhile into it (bot/delivery.py).
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
import contextlib
import re
from collections import OrderedDict, deque
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from enum import IntEnum
from types import SimpleNamespace
from typing import Any

import aiohttp

GLOBAL_PER_SECOND = 40
#: Requests outside the global limit: interaction callbacks and an interaction's webhook.
EXEMPT = ("/interactions/", "/webhooks/")
API = re.compile(r"^.*?/api/v\d+")  # a REST URL's path up to the API's version
POLL = 0.05  # a bucket whose first answer is awaited is looked at again after this long
PRUNE_EVERY = 1000  # requests between two sweeps of the buckets at rest
#: Slots a busy event loop made the releaser miss are caught up on, as far back as this.
CATCH_UP = 0.25
#: A slot taken ahead of a post (`Pacer.turn`) is kept this long for it.
GRANT_SECONDS = 1.0


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


class Priority(IntEnum):
    """Who goes first when the token's global budget is short (lower first)."""

    PROMPT = 0  # a decision's prompt (or a post carrying a deadline), a refusal
    ROOM = 1  # an announcement to a room or a table; any request not marked otherwise
    LOG = 2  # the host log, a spectator feed, closing a match's channels


#: A request of a class that has waited this many windows goes before the classes above it:
#: when the budget stays short, the log and the announcements are not starved (the bench,
#: 120 matches on one token, strict order: the host log waited 185 s behind the rooms).
#: The log's is 3 windows: an entry waits at most one batch (5 s) and its hand-over (1 s)
#: before it asks for a slot, and the hosts are promised it within 10 s (with 5 windows a
#: 20-match server saw an entry at 10.4 s).
PATIENCE = {Priority.ROOM: 2.0, Priority.LOG: 3.0}


@dataclass(frozen=True)
class Sending:
    """What the requests of the current task are for: their class and their server (0: not
    known). Set by the transport around a post (`sending`); read by the pacer."""

    priority: Priority = Priority.ROOM
    server: int = 0
    #: Loop time the work these requests serve began asking (a host-log batch: its check,
    #: read-back and posts go one after another); patience counts from it, so that each of
    #: a batch's requests does not wait out a class's patience again.
    since: float | None = None


SENDING: ContextVar[Sending] = ContextVar("umpire_sending", default=Sending())  # noqa: B039 (frozen)


@contextlib.contextmanager
def sending(priority: Priority, server: int = 0, since: float | None = None) -> Iterator[None]:
    """The requests made inside go at `priority`, counted to `server` (a task's own: a
    context variable, so a task made inside inherits it), patient as of `since`."""
    token = SENDING.set(Sending(priority, server, since))
    try:
        yield
    finally:
        SENDING.reset(token)


@dataclass
class _Grant:
    at: float  # loop time the slot was given
    used: bool = False


#: A slot taken ahead of a post (`turn`): the task's next global request goes on it.
_GRANT: ContextVar[_Grant | None] = ContextVar("umpire_grant", default=None)


class Pacer:
    """Requests `window / per_second` seconds apart at least, none on a bucket with nothing
    left; those that wait for the global limit go by `Priority`, and within a class one
    server's request after another's in turn."""  # (one event loop: no locks needed)

    def __init__(self, per_second: int = GLOBAL_PER_SECOND, window: float = 1.0) -> None:
        self.per_second = per_second
        self.window = window
        self._next = 0.0  # loop time from which the next request may go
        self._sent: deque[float] = deque()  # loop times the requests of the last window went
        self._buckets: dict[str, _Bucket] = {}
        #: Per class, per server, the requests waiting for a slot (servers in turn).
        self._queues: list[OrderedDict[int, deque[tuple[float, asyncio.Future[None]]]]] = [
            OrderedDict() for _ in Priority]
        self._waiting = 0
        self._pump: asyncio.Task[None] | None = None
        self.waits = 0  # requests that waited for the global limit (for the bench and tests)
        self.waited: dict[Priority, float] = dict.fromkeys(Priority, 0.0)  # ...seconds waited, by class
        self.bucket_waits = 0  # ...and for their bucket
        self._taken = 0

    async def wait(self, priority: Priority | None = None, server: int | None = None) -> None:
        """Wait for a slot of the global limit. Free at once while nothing waits; else in
        line by class, then by server in turn, released by one task (`_release`) at the
        pace. The releaser catches up on slots a busy event loop made it miss (up to
        `CATCH_UP` s of them: handing the turn from one request to the next cost a turn of a
        busy loop each and capped the bench at 31 requests a second where 45 were allowed),
        never more than `per_second` in the last `window` all the same."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if not self._waiting and now >= self._next and self._room(now):
            self._grant(now)
            return
        context = SENDING.get()
        priority = context.priority if priority is None else priority
        server = context.server if server is None else server
        future: asyncio.Future[None] = loop.create_future()
        queued = now if context.since is None else min(now, context.since)
        self._queues[priority].setdefault(server, deque()).append((queued, future))
        self._waiting += 1
        self.waits += 1
        if self._pump is None:
            self._pump = asyncio.create_task(self._release(), name="pacer")
        try:
            await future
        finally:
            self.waited[priority] += loop.time() - now

    async def turn(self, priority: Priority, server: int = 0) -> None:
        """Wait for a slot now, ahead of a post, and keep it for the task's next global
        request (within `GRANT_SECONDS`): the caller takes what queued meanwhile into that
        post (bot/delivery.py) instead of waiting again in line for it."""
        await self.wait(priority, server)
        _GRANT.set(_Grant(asyncio.get_running_loop().time()))

    def backlog(self) -> int:
        """Requests waiting for the global limit now."""
        return self._waiting

    def _room(self, now: float) -> bool:
        while self._sent and self._sent[0] <= now - self.window:
            self._sent.popleft()
        return len(self._sent) < self.per_second

    def _grant(self, now: float, late: bool = False) -> None:
        """A request goes now: the next slot one interval on (`late`: the releaser woke
        after the slot it slept for, so the next may be behind now, up to `CATCH_UP`)."""
        self._sent.append(now)
        self._next = (max(self._next, now - CATCH_UP) if late else now) + \
            self.window / self.per_second

    def _next_waiting(self, now: float) -> asyncio.Future[None] | None:
        """The next request to go: of the lowest class whose next one has waited past its
        `PATIENCE`, else of the highest class waiting; within a class the next server's."""
        order = [p for p in reversed(Priority) if p in PATIENCE and self._queues[p] and
                 now - next(iter(self._queues[p].values()))[0][0] >=
                 PATIENCE[p] * self.window]
        for priority in [*order, *Priority]:
            queue = self._queues[priority]
            while queue:
                server, line = next(iter(queue.items()))
                _, future = line.popleft()
                if line:
                    queue.move_to_end(server)
                else:
                    del queue[server]
                self._waiting -= 1
                if not future.done():  # (a waiter cancelled meanwhile is passed over)
                    return future
        return None

    async def _release(self) -> None:
        loop = asyncio.get_running_loop()
        late = False  # (woken by the slot it slept for: the loop may have been late)
        try:
            while self._waiting:
                now = loop.time()
                if now < self._next:
                    await asyncio.sleep(self._next - now)
                    late = True
                    continue
                if not self._room(now):
                    await asyncio.sleep(self._sent[0] + self.window - now)
                    late = False
                    continue
                future = self._next_waiting(now)
                if future is None:
                    break
                self._grant(now, late)
                future.set_result(None)
        finally:
            self._pump = None

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

    def held_for(self, key: str, reserve: int = 0) -> float:
        """Seconds until the bucket `key` takes a request again, as far as Discord's last
        answer on it and the requests in flight since tell (0: it has more than `reserve`
        left, or is not known). A post to a channel whose message bucket is held waits that
        long anyway: Delivery takes what its channel queues meanwhile into the same post."""
        bucket = self._buckets.get(key)
        if bucket is None or bucket.reset_at is None:
            return 0.0
        left = bucket.reset_at - asyncio.get_running_loop().time()
        return left if left > 0 and bucket.remaining - bucket.inflight <= reserve else 0.0

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
            grant = _GRANT.get()
            if grant is not None and not grant.used and \
                    asyncio.get_running_loop().time() - grant.at < GRANT_SECONDS:
                grant.used = True  # its slot was taken ahead (`turn`)
            else:
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
