"""The shard keeper: takes this process's shard leases, renews them, takes over the shards
of a process that died, and gives up a shard it could not renew in time.

Sharding is for several processes on one PostgreSQL database (README, "Running sharded bot
processes"). Every `renew_seconds` the keeper renews its leases (the renewal is the shard's
heartbeat), in a task of its own with its own timer: a renewal never waits behind an
adoption, a hand-back or any other query of the keeper's rounds, so a busy process still
renews on time. A lease not renewed for two thirds of its TTL is dropped
(`MatchService.drop`: its clocks, bots and deliveries stop, its queued writes are
cancelled), so that this process has stopped acting on the shard before its lease expires
and another may take it. The deadline decides, read from the wall clock, not a renewal:
after a pause (a stopped process, a frozen machine) a renewal drops every shard whose
deadline passed even if its renewal would still succeed, and before that every timer, bot
move and delivery checks the same deadline (`Fence.live`) before it acts. Every write is
fenced by the lease's generation in its own transaction (bot/store/fence.py): one the store
refuses drops its shard at once. The keeper's other round, on the same period, waits for
the drops under way, hands back the shards it took over that their preferred process asks
for again (that process was restarted: `Leases.want`), and takes, with
`MatchService.adopt`: its preferred shards whenever free (asking their holder for them
otherwise), and any other shard whose owner's lease expired (a shard nobody ever held is
left to the process meant for it). Taking a lease shifts that shard's clocks by its
downtime in the same transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable
from datetime import timedelta

from bot.store.fence import Fence, bound_idle_transactions
from bot.store.leases import Leases, Taken
from bot.umpire import MatchService

log = logging.getLogger(__name__)

#: Renewals under way at once, at most (each holds a database connection until answered).
RENEWALS_IN_FLIGHT = 3


def process_name() -> str:
    """A lease owner name unique to this run of this process."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class ShardKeeper:
    def __init__(self, service: MatchService, leases: Leases, *, shard_count: int,
                 preferred: set[int], renew_seconds: float) -> None:
        if service.repo.shards is None:
            service.repo.shards = set()  # sharded: the service sees only what it adopts
        self.service = service
        self.leases = leases
        self.shard_count = shard_count
        self.preferred = set(preferred)
        self.renew_seconds = renew_seconds
        self.owned: set[int] = set()
        #: The leases held, at which generation and until when (2/3 of the TTL after the
        #: last renewal): every write of the service is fenced by it.
        self.fence = Fence(leases.owner, service.now)
        self.fence.on_lost = self._lost
        service.repo.fence = self.fence
        # a transaction begins before the deadline (2/3 of the TTL after a renewal): ended
        # by the server if left idle for the last third, it holds no lock past the expiry
        for engine in {id(e): e for e in (service.repo.engine, leases.engine)}.values():
            bound_idle_transactions(engine, leases.ttl.total_seconds() / 3)
        self._drops: list[asyncio.Task[None]] = []  # drops under way (`_lost`)
        self._dropping: set[int] = set()  # their shards (not taken again until dropped)
        self._task: asyncio.Task[None] | None = None  # the rounds: drops, hand-backs, takes
        self._renewer: asyncio.Task[None] | None = None  # the renewals, on their own timer
        self._renewals: set[asyncio.Task[None]] = set()  # renewals in flight (they overlap)
        #: Renewals made, and those answered after a third of the TTL or more (figures).
        self.renewals = self.slow_renewals = 0
        #: Called after the service adopted shards (the Discord front end indexes their
        #: matches' channels and closes those of ended matches).
        self.on_adopt: list[Callable[[set[int]], Awaitable[None]]] = []

    async def start(self) -> None:
        """Take the preferred shards that are free, resume their matches, keep the leases
        (renewed from the start: a long first adoption does not hold the renewals up)."""
        self._renewer = asyncio.create_task(self._renew_on_time(), name="umpire-shard-renewer")
        await self._round()
        self._task = asyncio.create_task(self._run(), name="umpire-shard-keeper")

    async def stop(self) -> None:
        """Stop renewing and taking (call `release` once the service has stopped)."""
        for task in (self._task, self._renewer, *self._renewals):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._renewer = None

    async def release(self) -> None:
        """Give every lease up (a clean stop): another process may take the shards at once."""
        self.fence.release(set(self.owned))
        with contextlib.suppress(Exception):
            await self.leases.release(self.owned, self.service.now())
        self.owned.clear()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.renew_seconds)
            try:
                await self._round()
            except Exception:
                log.exception("shard keeper: a round failed (retrying)")

    async def _renew_on_time(self) -> None:
        """Start a renewal every `renew_seconds`, whatever the rounds are doing, without
        waiting for the one before to be answered (a slow answer would otherwise push the
        next renewal back, and the deadline counts from a renewal's start); at most
        `RENEWALS_IN_FLIGHT` at a time (a database out of reach takes no more connections)."""
        loop = asyncio.get_running_loop()
        while True:
            slept = loop.time()
            await asyncio.sleep(self.renew_seconds)
            late = loop.time() - slept - self.renew_seconds
            if late > self.renew_seconds:
                log.warning("shard keeper: a renewal ran %.2f s late (the event loop was busy, "
                            "or the process got no CPU)", late)
            if len(self._renewals) >= RENEWALS_IN_FLIGHT:
                continue
            task = loop.create_task(self._renew_logged(), name="umpire-shard-renewal")
            self._renewals.add(task)
            task.add_done_callback(self._renewals.discard)

    async def _renew_logged(self) -> None:
        try:
            await self._renew()
        except Exception:
            log.exception("shard keeper: a renewal failed (retrying)")

    async def tick(self) -> None:
        """One round by hand (tests): renew (dropping what could not be renewed in time),
        then hand back and take."""
        await self._dropped()
        await self._renew()
        await self._round()

    async def _round(self) -> None:
        """Wait for the drops under way, hand back what is asked back, take what is free."""
        await self._dropped()
        await self._hand_back()
        await self._take_free()

    def _lost(self, shards: set[int]) -> None:
        """The fence lost these shards (a deadline passed, or the store refused a write):
        they leave `owned` at once and are dropped in a task of their own."""
        lost = shards & self.owned
        if not lost:
            return
        log.warning("shard keeper: lost shards %s: no longer umpiring their matches",
                    sorted(lost))
        self.owned -= lost
        self.fence.release(lost)
        self._dropping |= lost
        task = asyncio.get_running_loop().create_task(self.service.drop(lost),
                                                      name="umpire-shard-drop")
        task.add_done_callback(lambda _: self._dropping.difference_update(lost))
        self._drops.append(task)

    async def _dropped(self) -> None:
        """Wait for the drops under way (a shard is taken again only once dropped)."""
        while self._drops:
            task = self._drops.pop(0)
            try:
                await task
            except Exception:
                log.exception("shard keeper: dropping shards failed")

    async def _renew(self) -> None:
        # the deadline decides: a lease not renewed for 2/3 of its TTL is dropped,
        # however a renewal made now (after a pause, say) would answer (the drop runs
        # in a task of its own: the renewal of the other shards does not wait for it)
        for shard in sorted(self.owned):
            self.fence.live(shard)
        asked = set(self.owned)
        if not asked:
            return
        now = self.service.now()
        started = asyncio.get_running_loop().time()
        try:
            kept = await self.leases.renew(asked, now)
        except Exception:
            log.exception("shard keeper: could not renew the leases of shards %s",
                          sorted(asked))
            return
        self.renewals += 1
        took = asyncio.get_running_loop().time() - started
        if took > self.leases.ttl.total_seconds() / 3:  # (half the time left to act)
            self.slow_renewals += 1
            log.warning("shard keeper: renewing the leases of shards %s took %.2f s",
                        sorted(asked), took)
        for shard in kept & self.owned:
            self.fence.extend(shard, now + self._margin())
        # (a shard taken or dropped meanwhile is not this renewal's to judge)
        self.fence.lost((asked - kept) & self.owned)

    async def _hand_back(self) -> None:
        """Give back the shards taken over that their preferred process asks for (it was
        restarted): stop umpiring them, then release their leases."""
        asked = await self.leases.asked_back(self.owned - self.preferred)
        if asked:
            log.warning("shard keeper: handing shards %s back", sorted(asked))
            self.owned -= asked
            self.fence.release(asked)
            await self.service.drop(asked)
            await self.leases.release(asked, self.service.now())

    def _margin(self) -> timedelta:
        """How long after a renewal this process still acts on a shard (2/3 of the TTL)."""
        return self.leases.ttl * 2 / 3

    async def _take_free(self) -> None:
        now = self.service.now()
        unheld = set(range(self.shard_count)) - self.owned - self._dropping
        others = unheld - self.preferred
        wanted = [(s, False) for s in sorted(unheld & self.preferred)]
        wanted += [(s, True) for s in await self.leases.takeable(others, now)]
        for shard, only_if_held in wanted:
            taken = await self.leases.take(shard, now, on_taken=self._shift,
                                           only_if_held_before=only_if_held)
            if taken is None:
                if not only_if_held:  # ours by preference: ask its holder to hand it back
                    await self.leases.want({shard}, now)
                continue
            self.fence.hold(shard, taken.generation, now + self._margin())
            self.owned.add(shard)
            if taken.previous_owner:
                log.warning("shard keeper: took shard %d over from %s (down %.1f s)", shard,
                            taken.previous_owner, taken.downtime.total_seconds())
            await self.service.adopt({shard})
            for hook in self.on_adopt:
                try:
                    await hook({shard})
                except Exception:
                    log.exception("shard keeper: after adopting shard %d", shard)
            if self._renewer is None:  # (rounds by hand: an adoption may take a while)
                await self._renew()

    def _shift(self, conn, taken: Taken) -> None:  # type: ignore[no-untyped-def]
        """In the lease's transaction: the shard's clocks move later by its downtime."""
        self.service.repo.shift_clocks(conn, taken.downtime, {taken.shard})
