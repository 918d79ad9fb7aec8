"""Delivering the outbox: in order within a channel, channels independent of each other.

A message is marked delivered only after the transport accepted it, so after a crash every
message not yet marked is sent again on start (transports de-duplicate with the message id:
Discord's nonce).

Nothing is dropped: a send that fails for a passing reason (a rate limit, a 5xx, the
network) or is held by the transport (`ChannelHeld`: the channel must not receive it now) is
retried with backoff (doubling, capped at `max_backoff`, cut short by `wake`) for as long as
the match runs, and a few more times after it has ended; a message still not through then
stays undelivered in the store and is sent again on the next start. Nothing later in that
channel is posted before it.

A channel is *down* from its first failed send until a send there succeeds again: `on_down`
is called at the first failure and `on_up` when it comes back (the service stops the clocks
of the decisions that depend on it for that time). A `ChannelHeld` calls `on_held` once
per down spell, at once; any other failure calls `on_stalled` once the channel has been
failing for `stall_after` seconds (the service tells the hosts).
A permanent failure (a channel gone for good) is not retried: the transport tells the
hosts, and the message stays undelivered in the record.

Queues are per channel, i.e. per (match, audience): order only matters within a channel, so
a rate-limited host log never holds up a match's room or tables, nor one match another.
`on_delivered` is called once each message is settled, delivered or given up on (the service
starts the clocks of the decisions a late message carried from the moment it arrived).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from bot.store.repository import Repository, StoredMessage
from bot.transport import ChannelHeld, MatchInfo, Transport, TransportError

log = logging.getLogger(__name__)

Key = tuple[int, str]  # (match id, audience): one channel
#: Called once a message is settled: delivered (True), or given up on (False: a permanent
#: failure, or still failing after its match ended).
Delivered = Callable[[MatchInfo, StoredMessage, datetime, bool], None]
Stalled = Callable[[MatchInfo, str, float], None]
#: A channel's first failed send of a spell: (match, audience, since, the error).
Down = Callable[[MatchInfo, str, datetime, Exception], None]
#: A channel that was down took a message again (or its spell ended otherwise: a permanent
#: failure, the match over): (match, audience, down since, back at).
Up = Callable[[MatchInfo, str, datetime, datetime], None]
#: A send held by the transport (`ChannelHeld`): (match, audience, what the hosts are told).
Held = Callable[[MatchInfo, str, str], None]
#: The message as it is to be posted now (e.g. its deadlines as they are at this moment).
Prepare = Callable[[MatchInfo, StoredMessage], StoredMessage]


class Delivery:
    def __init__(self, repo: Repository, transport: Transport, now: Callable[[], datetime],
                 *, backoff: float = 0.5, max_backoff: float = 30.0, stall_after: float = 60.0,
                 tries_after_end: int = 10, flush_every: float = 0.5,
                 on_delivered: Delivered | None = None, on_stalled: Stalled | None = None,
                 alive: Callable[[int], bool] | None = None,
                 on_idle: Callable[[int], None] | None = None,
                 on_down: Down | None = None, on_up: Up | None = None,
                 on_held: Held | None = None, prepare: Prepare | None = None) -> None:
        self.repo = repo
        self.transport = transport
        self.now = now
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.stall_after = stall_after
        self.tries_after_end = tries_after_end
        self.flush_every = flush_every
        self.on_delivered = on_delivered
        self.on_stalled = on_stalled
        self.alive = alive or (lambda match_id: True)
        #: Called with a match id once none of its channels has anything left to send (the
        #: service forgets an ended match then: nothing is kept per match after that).
        self.on_idle = on_idle
        self.on_down = on_down
        self.on_up = on_up
        self.on_held = on_held
        self.prepare = prepare
        #: Whether this process may post for the match now (sharded: its shard's lease, by
        #: the wall clock: bot/store/fence.py); asked before each post.
        self.acting: Callable[[MatchInfo], bool] = lambda match: True
        #: Channels whose sends are failing: since when (the first failure of the spell)...
        self._down: dict[Key, datetime] = {}
        #: ...and those of them whose hosts were told of a hold (once per spell).
        self._told_held: set[Key] = set()
        self._queues: dict[Key, asyncio.Queue[tuple[MatchInfo, StoredMessage]]] = {}
        self._workers: dict[Key, asyncio.Task[None]] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._pending = 0
        self._stalled: set[Key] = set()  # channels the hosts were told about
        #: Set to cut a failing channel's backoff short (`wake`): keyed like the queues.
        self._wakers: dict[Key, asyncio.Event] = {}
        self.failures: list[tuple[int, str]] = []  # (message id, reason) never delivered
        #: Messages committed before this moment may have been posted by an earlier process:
        #: each is sent on its own (the transport looks for it in its channel), never merged.
        self._since = _aware(now())

    def enqueue(self, match: MatchInfo, message: StoredMessage) -> None:
        key = (match.id, message.audience)
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = asyncio.Queue()
            self._workers[key] = asyncio.create_task(self._work(key, queue),
                                                     name=f"deliver-{match.id}-{message.audience}")
        self._pending += 1
        self._idle.clear()
        queue.put_nowait((match, message))
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush_loop(), name="deliver-flush")

    @property
    def idle(self) -> bool:
        """Every enqueued message was handled (what `drain` waits for; marks may still be
        unstored)."""
        return self._idle.is_set()

    def channels_down(self) -> set[Key]:
        """The channels whose sends are failing now (each since `down_since`)."""
        return set(self._down)

    def channels(self) -> set[Key]:
        """The (match id, audience) channels that have a queue or a sending task now: empty
        once everything was delivered (nothing is kept per channel after that)."""
        return set(self._queues) | set(self._workers)

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

    async def _work(self, key: Key, queue: asyncio.Queue[tuple[MatchInfo, StoredMessage]]) -> None:
        """Send one channel's messages in order; the worker ends when its queue is empty (no
        await between the last check and leaving, so `enqueue` starts a new one after)."""
        try:
            while not queue.empty():
                match, message = queue.get_nowait()
                batch = [message]
                try:
                    if self._batches(key[1]):  # the host log: everything queued goes together
                        due = getattr(self.transport, "batch_due", None)
                        if due is not None:  # just before the batch is posted: what came
                            await due(match, message.created_at)  # meanwhile goes with it,
                            # not one batch later
                        while not queue.empty():
                            batch.append(queue.get_nowait()[1])
                    else:
                        await self._join_held(match, queue, batch)
                    await self._send(match, batch)
                finally:
                    self._pending -= len(batch)
                    if self._pending == 0:
                        self._idle.set()
        finally:
            if self._queues.get(key) is queue:
                del self._queues[key]
                del self._workers[key]
                self._stalled.discard(key)
                self._down.pop(key, None)
                self._told_held.discard(key)
                if self.on_idle is not None and not self.busy(key[0]):
                    try:
                        self.on_idle(key[0])
                    except Exception:
                        log.exception("after the last message of match %s", key[0])

    def forget(self, match_ids: set[int]) -> None:
        """Stop sending the messages of these matches (another process now owns them): their
        channels' workers are cancelled; what was not marked delivered stays undelivered in
        the store."""
        for key in [k for k in self._queues if k[0] in match_ids]:
            queue = self._queues.pop(key)
            self._pending -= queue.qsize()
            # (a message being sent is counted off by its worker as the worker is cancelled)
            self._workers.pop(key).cancel()
            self._stalled.discard(key)
            self._down.pop(key, None)
            self._told_held.discard(key)
        if self._pending == 0:
            self._idle.set()

    def busy(self, match_id: int) -> bool:
        """Whether a channel of the match still has messages queued or being sent."""
        return any(k[0] == match_id for k in self._queues)

    def pending(self, match_id: int, audience: str) -> bool:
        """Whether the channel has a message queued or being sent."""
        return (match_id, audience) in self._queues

    def _coalesces(self, audience: str) -> bool:
        """Whether the transport posts what the channel queues behind a rate limit as one."""
        coalesces = getattr(self.transport, "coalesces", None)
        return coalesces is not None and bool(coalesces(audience))

    def _fresh(self, message: StoredMessage) -> bool:
        """Whether the message was committed by this process (no earlier try can have posted
        it: it may be merged with others). A channel's queue holds the resends of an earlier
        process before anything of this one, so all after a fresh message are fresh."""
        return _aware(message.created_at) >= self._since

    def _answering(self, match: MatchInfo, audience: str) -> bool:
        """Whether the transport would post the channel's next message as the answer to a
        person's click now (free, and the click waits for it: not held back to fold)."""
        answering = getattr(self.transport, "answering", None)
        return answering is not None and bool(answering(match, audience))

    def _held_for(self, match: MatchInfo, audience: str, batch: list[StoredMessage]) -> float:
        """Seconds until the channel may post the batch by its own rate limit (the
        transport's `held_for`; 0: now, or not known)."""
        held = getattr(self.transport, "held_for", None)
        return float(held(match, audience, batch)) if held is not None else 0.0

    async def _join_held(self, match: MatchInfo,
                         queue: asyncio.Queue[tuple[MatchInfo, StoredMessage]],
                         batch: list[StoredMessage]) -> None:
        """Coalescing that waits only when it must. A channel with room in its rate limits
        posts at once. While the channel's own limit holds its next post (the transport
        knows it from Discord's answers), or the token's global budget has no slot for it
        yet (the transport's `turn`, by the post's class), the post waits here rather than
        in the transport; then it takes every message the channel queued behind it
        (meanwhile, or already: sent one by one they would have gone out back to back) into
        it: one post at the moment the first would have gone, one request instead of
        several. Not a post that answers a click (free, and the click waits for it), nor a
        resend of an earlier process (`_fresh`). Depends on the channel's own posts and the
        token's load only, never on a fixed wait."""
        audience = batch[0].audience
        if not self._coalesces(audience) or not self._fresh(batch[0]):
            return  # (a transport that does not fold; a resend is posted on its own: what
            # a channel queues after a message of this process is of this process too)
        while self.alive(match.id) and not self._answering(match, audience):
            self._take_queued(queue, batch)  # (a decision queued meanwhile may go at once)
            held = self._held_for(match, audience, batch)
            if held <= 0:
                break
            await asyncio.sleep(min(held, 0.05))
        if self._answering(match, audience):
            return
        self._take_queued(queue, batch)
        turn = getattr(self.transport, "turn", None)
        if turn is not None:
            await turn(match, batch)  # (a slot kept for this post's first request)
        if not self._answering(match, audience):
            self._take_queued(queue, batch)

    @staticmethod
    def _take_queued(queue: asyncio.Queue[tuple[MatchInfo, StoredMessage]],
                     batch: list[StoredMessage]) -> None:
        while not queue.empty():
            batch.append(queue.get_nowait()[1])

    def _batches(self, audience: str) -> bool:
        """Whether the transport takes this audience's messages together (`send_many`: a
        host log batched per server) rather than one by one."""
        batches = getattr(self.transport, "batches", None)
        return batches is not None and bool(batches(audience))

    async def _send(self, match: MatchInfo, batch: list[StoredMessage]) -> None:
        """Send a message (or, to a batching audience, several in order) until it is
        settled."""
        message = batch[0]
        key = (match.id, message.audience)
        attempt = 0
        tries_left = self.tries_after_end
        while True:
            held: ChannelHeld | None = None
            error: Exception
            if not self.acting(match):  # (sharded: its shard's lease is lost here)
                return  # left undelivered in the store, for the shard's owner
            try:
                if len(batch) > 1 or self._batches(message.audience):  # (or folded)
                    await self.transport.send_many(  # type: ignore[attr-defined]  # (a transport that folds messages has send_many: _batches says so)
                        match, [self._prepared(match, m) for m in batch])
                else:
                    await self.transport.send(match, self._prepared(match, message))
            except ChannelHeld as exc:
                held, error = exc, exc
                reason = str(exc)
            except TransportError as exc:
                if exc.permanent:
                    log.warning("message %s of match %s not delivered: %s", message.id,
                                match.id, exc)
                    self.failures.extend((m.id, str(exc)) for m in batch)
                    self._back_up(match, message.audience)  # clocks go on: nothing to wait for
                    for m in batch:
                        self._settled(match, m, False)
                    return
                reason, error = str(exc), exc
            except Exception as exc:  # a bug in a transport must not stop delivery
                log.exception("transport failed on message %s", message.id)
                reason, error = repr(exc), exc
            else:
                now = self.now()
                self.repo.queue_delivered([m.id for m in batch], now)
                self._stalled.discard(key)
                self._back_up(match, message.audience, now)
                for m in batch:
                    self._settled(match, m, True)
                return
            now = self.now()
            if key not in self._down:
                self._down[key] = now
                self._call(self.on_down, match, message.audience, now, error)
            if held is not None and key not in self._told_held:
                self._told_held.add(key)
                log.warning("match %s: %s held: %s", match.id, message.audience, reason)
                self._call(self.on_held, match, message.audience, held.for_hosts)
            waited = (now - self._down[key]).total_seconds()
            if waited >= self.stall_after and key not in self._stalled \
                    and key not in self._told_held:
                self._stalled.add(key)
                log.warning("match %s: %s unreachable for %.0f s: %s", match.id,
                            message.audience, waited, reason)
                self._call(self.on_stalled, match, message.audience, waited)
            if not self.alive(match.id):
                tries_left -= 1
                if tries_left < 0:  # the match has ended: left undelivered, resent on start
                    log.warning("message %s of ended match %s not delivered: %s", message.id,
                                match.id, reason)
                    self.failures.extend((m.id, reason) for m in batch)
                    self._down.pop(key, None)  # (no clock of an ended match to restart)
                    self._told_held.discard(key)
                    for m in batch:
                        self._settled(match, m, False)
                    return
            await self._back_off(key, min(self.max_backoff, self.backoff * 2 ** min(attempt, 20)))
            attempt += 1

    def _prepared(self, match: MatchInfo, message: StoredMessage) -> StoredMessage:
        """The message as it is to be posted at this try (`prepare`; as stored otherwise)."""
        if self.prepare is None:
            return message
        try:
            return self.prepare(match, message)
        except Exception:
            log.exception("preparing message %s failed; sent as stored", message.id)
            return message

    def _back_up(self, match: MatchInfo, audience: str, at: datetime | None = None) -> None:
        """End the channel's down spell, if it had one: `on_up` restarts its clocks."""
        key = (match.id, audience)
        since = self._down.pop(key, None)
        self._told_held.discard(key)
        if since is not None:
            self._call(self.on_up, match, audience, since, at or self.now())

    def down_since(self, match_id: int, audience: str) -> datetime | None:
        """When the channel's sends began failing (None: it is not failing)."""
        return self._down.get((match_id, audience))

    def mark_down(self, match_id: int, audience: str, since: datetime) -> None:
        """Count the channel as down since `since` unless it is known to be (a stop stored
        before a restart): its next successful send calls `on_up`, which ends the stop."""
        self._down.setdefault((match_id, audience), since)

    def sending(self, match_id: int, audience: str) -> bool:
        """Whether the channel has messages queued or being sent."""
        return (match_id, audience) in self._queues

    @staticmethod
    def _call(callback: Callable[..., None] | None, *args: object) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:
            log.exception("delivery callback %s failed", getattr(callback, "__name__", callback))

    def wake(self, match_id: int | None = None) -> None:
        """Retry the failing channels of `match_id` (every match's when None) now, not at the
        end of their backoff: something they were waiting on may have changed (a channel's
        permissions, the bot's access, a member's roles)."""
        for key, event in self._wakers.items():
            if match_id is None or key[0] == match_id:
                event.set()

    async def _back_off(self, key: Key, seconds: float) -> None:
        """Sleep `seconds` before a channel's next try, or less if `wake` is called."""
        event = self._wakers.setdefault(key, asyncio.Event())
        event.clear()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), seconds)
        finally:
            if self._wakers.get(key) is event:
                del self._wakers[key]

    def _settled(self, match: MatchInfo, message: StoredMessage, delivered: bool) -> None:
        if self.on_delivered is None:
            return
        try:
            self.on_delivered(match, message, self.now(), delivered)
        except Exception:
            log.exception("after settling message %s", message.id)

    async def _flush_loop(self) -> None:
        while True:
            await asyncio.sleep(self.flush_every)
            try:
                await self.flush()
            except Exception:
                log.exception("could not mark messages delivered (will retry)")


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
