"""Resume: the running matches read back from the store on start (or when their shards are
adopted), kept dormant and rebuilt in the background, most urgent first; the clocks moved
later by the downtime; and the matches of lost shards dropped."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from datetime import datetime, timedelta

from bot.clock import TimeSource
from bot.delivery import Delivery
from bot.live import LiveMatch
from bot.service.bots import BotRunner
from bot.service.clocks import ClockKeeper
from bot.service.table import MatchTable
from bot.status import LIVE, ClockStatus, MatchStatus
from bot.store.fence import FencedOut, acting, fenced
from bot.store.models import MatchRow
from bot.store.repository import MatchWrite, Repository, StoredMessage
from bot.transport import MatchInfo, PlayerRef

log = logging.getLogger(__name__)

#: Resume loads running matches this many at a time (the rows of one batch's actions are
#: turned into Python objects in one step of the loop: 500 matches' took up to 75 ms)...
RESUME_BATCH = 250
#: ...and gives the event loop a turn at least this often (seconds) while rebuilding them.
RESUME_SLICE = 0.01

#: How long dropping matches waits for the work it cancelled to end.
FORGET_WAIT_SECONDS = 5.0

#: A resumed match in the order it is rebuilt: (urgency, id, match).
Queued = tuple[tuple[int, datetime], int, LiveMatch]


class Resumer:
    """Brings the stored running matches into `table` and keeps their rebuild going; arms
    their clocks (`clocks`) and bots (`bots`) as each is rebuilt."""

    def __init__(self, table: MatchTable, repo: Repository, delivery: Delivery,
                 clocks: ClockKeeper, bots: BotRunner, now: TimeSource) -> None:
        self.table = table
        self.matches = table.matches
        self.repo = repo
        self.delivery = delivery
        self.clocks = clocks
        self.bots = bots
        self.now = now
        self.downtime = timedelta(0)
        self.hydrator: asyncio.Task[None] | None = None
        self.awake = asyncio.Event()  # every resumed match has been rebuilt

    async def shift_for_downtime(self) -> None:
        """Charge no one for the downtime (since the last heartbeat): every live clock of
        every running match moves later by it, in the store (one statement, with a beat) and
        in the matches already loaded."""
        now = self.now()
        last = await self.repo.last_heartbeat()
        self.downtime = max(timedelta(0), now - last) if last else timedelta(0)
        await self.repo.resume_clocks(self.downtime, now)
        for match in self.matches.values():  # (loaded before the shift: a held start)
            if match.status != MatchStatus.ACTIVE:
                continue
            for clock in match.clocks.values():
                if clock.status in LIVE:
                    clock.shifted(self.downtime)
            for stop in self.clocks.stops.stops_of(match.id, live=True).values():  # (stored ones too)
                stop.since = min(stop.since + self.downtime, now)
        #: When the clocks were shifted: the rest of the start (reading the running matches,
        #: well under a second even with thousands) runs on the players' clocks.
        self.clocks.shifted_at = now
        for match in self.matches.values():
            if match.status == MatchStatus.ACTIVE and not match.dormant:
                self.clocks.arm(match)
                self.bots.schedule(match)
        self.clocks.stops.reinstate_stops()

    def acting(self, match: LiveMatch | MatchInfo) -> bool:
        """Whether this process may act on the match now: always, unless sharded; then only
        while it holds the lease of the match's shard, by the wall clock against the lease's
        two-thirds deadline (bot/store/fence.py; a deadline passed loses the shard)."""
        return acting(self.repo, match.transport)

    def conflicted(self, match: LiveMatch) -> None:
        """A write of the match conflicted with its stored log: read it back (`reload`)
        once its lock is free, rather than retry what its stale memory would write."""
        self.clocks.background.start(self.reload({match.id}))

    def owns(self, shard: int) -> bool:
        """Whether this process umpires the matches of `shard` (always, unless sharded)."""
        owned = getattr(self.repo, "shards", None)
        return owned is None or shard in owned

    async def adopt(self, shards: set[int]) -> None:
        """Umpire the matches of these shards from now on (see `MatchService.adopt`)."""
        if self.repo.shards is not None:
            self.repo.shards = self.repo.shards | shards
        await self.resume_stored(shards)

    async def drop(self, shards: set[int]) -> None:
        """Stop umpiring the matches of these shards (see `MatchService.drop`): what runs
        for them is cancelled (timers, even one holding its match's lock; bots' moves;
        deliveries) and their writes still queued are taken out of the store's queue
        (answered `FencedOut`: none may be stored now; one being stored is left to the
        fence)."""
        if self.repo.shards is not None:
            self.repo.shards = self.repo.shards - shards
        writer = getattr(self.repo, "writer", None)
        if writer is not None:
            writer.cancel(lambda item: item[0].fence is not None and item[0].fence[0] in shards,
                          lambda item: FencedOut({item[0].fence}, "dropped here"))
        await self.forget({m.id for m in self.matches.values()
                           if self.repo.shard_for(m.transport) in shards})

    async def forget(self, gone: set[int]) -> None:
        """Stop everything under way for these matches (timers, bots' moves, clock writes
        waiting to be tried again, deliveries) and forget them (dropped, or to be read back
        from the store: `reload`)."""
        tasks = [*self.clocks.scheduler.cancel(lambda t: isinstance(t, tuple) and t[0] in gone),
                 *self.bots.cancel(gone), *self.clocks.background.cancel(gone)]
        self.delivery.forget(gone)
        self.table.drop(gone)
        self.bots.forget(gone)
        self.clocks.forget(gone)
        waited = [t for t in tasks if t is not asyncio.current_task()]
        if waited:  # (bounded: a drop must never hold the shard keeper up)
            _, late = await asyncio.wait(waited, timeout=FORGET_WAIT_SECONDS)
            if late:
                log.warning("matches %s: %d cancelled tasks still running after %.0f s: %s",
                            sorted(gone), len(late), FORGET_WAIT_SECONDS,
                            [t.get_coro() for t in late])

    async def reload(self, ids: set[int]) -> None:
        """Read these matches back from the store, as they are stored, in place of what is
        in memory: a write of theirs conflicted with the stored log (the memory is stale),
        so retrying it would only fail again. Those of shards no longer owned stay dropped."""
        gone = {i for i in ids if i in self.matches}
        if not gone:
            return
        log.warning("matches %s disagree with their stored log: read back from the store",
                    sorted(gone))
        await self.forget(gone)
        await self.resume_stored(only=gone)

    async def resume_stored(self, shards: set[int] | None = None, *,
                            only: set[int] | None = None) -> None:
        """Resume the stored running matches (of `shards`; default: all the repository
        sees; `only`: just these matches) and send their undelivered messages: the body of
        `start`, shared with `adopt` and `reload`."""
        scoped = {} if shards is None else {"shards": shards}  # (None: what the store sees)
        pending: dict[int, list[StoredMessage]] = {}
        for message in await self.repo.undelivered(**scoped):
            if only is not None and message.match_id not in only:
                continue
            pending.setdefault(message.match_id, []).append(message)
            self.clocks.hold(message.match_id, message.id, message.payload)  # clocks wait
        if self.clocks.shifted_at is not None:  # (a held start: `run_clocks` starts it)
            self.clocks.scheduler.start()
        ids = [i for i in await self.repo.active_ids(**scoped) if only is None or i in only]
        resumed: list[Queued] = []
        for first in range(0, len(ids), RESUME_BATCH):
            stops = await self.repo.stops(ids[first:first + RESUME_BATCH])
            for stored in await self.repo.load_many(ids[first:first + RESUME_BATCH]):
                match = LiveMatch.dormant_from_store(stored)
                match.on_hydrate = self.woken
                self.matches[match.id] = match
                self.clocks.stops.restore_stops(match.id, stops.get(match.id, {}))
                self.table.snapshot_at[match.id] = stored.snapshot_seq
                for message in pending.pop(match.id, []):
                    self.delivery.enqueue(match.info, message)
                # the rebuild order, worked out batch by batch (for 10,000 matches at once
                # it held the loop for 60 ms)
                resumed.append((urgency(match), match.id, match))
            gc.freeze()  # they live as long as their matches (see hydrate_all)
            await asyncio.sleep(0)
        # (an adoption's rebuild runs after any rebuild still under way: one at a time)
        self.awake.clear()
        self.hydrator = asyncio.create_task(self.hydrate_after(self.hydrator, resumed),
                                            name="umpire-hydrate")
        for row in await self.repo.match_rows(sorted(pending)):
            info = self.matches[row.id].info if row.id in self.matches else row_info(row)
            for message in pending.pop(row.id, []):
                self.delivery.enqueue(info, message)
        if self.clocks.shifted_at is not None:  # (a held start: once they are shifted)
            self.clocks.stops.reinstate_stops()

    async def hydrate_all(self, matches: list[Queued]) -> None:
        """Rebuild every dormant resumed match, most urgent first (`urgency`: a break
        ending or a decision limit coming soonest; a built-in bot's turn at once), giving
        the loop a turn at least every `RESUME_SLICE` seconds."""
        matches.sort(key=lambda entry: entry[:2])
        sliced = time.perf_counter()
        for done, (_, _, match) in enumerate(matches, 1):
            if match.dormant:
                try:
                    match.hydrate()
                except Exception:  # one damaged match must not keep the others dormant
                    log.exception("could not rebuild match %s; it stays dormant", match.id)
            if done % 500 == 0:
                # What was rebuilt lives as long as its match: out of the cyclic collector's
                # sight, or each full collection would scan every match so far (bot/gc_tuning.py).
                gc.freeze()
            if time.perf_counter() - sliced > RESUME_SLICE:
                await asyncio.sleep(0)
                sliced = time.perf_counter()
        gc.freeze()
        self.awake.set()

    async def hydrate_after(self, previous: asyncio.Task[None] | None,
                            matches: list[Queued]) -> None:
        if previous is not None:
            await previous
        await self.hydrate_all(matches)

    def woken(self, match: LiveMatch) -> None:
        """A dormant match was just rebuilt: its clocks and bots run from now on (in a held
        start, once the clocks run: `run_clocks`)."""
        self.clocks.arm(match)
        if self.clocks.shifted_at is not None:
            self.bots.schedule(match)

    async def hydrated(self, timeout: float | None = None) -> None:
        """Wait until every match resumed so far has been rebuilt."""
        if self.hydrator is None:
            return
        await asyncio.wait_for(self.awake.wait(), timeout)

    def running_snapshots(self, every: int) -> list[MatchWrite]:
        """Snapshots of the running matches that have moved since their last one (and not
        at a multiple of `every`, where one was stored). Taken before any task is stopped,
        and only of matches whose lock is free: a match changes only under its lock, and its
        state and action count agree whenever the lock is free (a step cancelled half-way by
        the stop could leave them apart)."""
        writes = []
        for m in self.matches.values():
            if m.running and m.seq and not m.lock.locked() and not m.dormant \
                    and m.game.snapshots and m.seq % every \
                    and self.table.snapshot_at.get(m.id) != m.seq:
                try:  # (sharded: fenced by the lease held now; none for a shard lost)
                    writes.append(fenced(
                        self.repo, MatchWrite(m.id, m.seq, snapshot=m.state.model_dump_json()),
                        m.transport))
                except FencedOut:
                    continue
        return writes


def urgency(match: LiveMatch) -> tuple[int, datetime]:
    """Which dormant match to rebuild first: a bot's match, then by the soonest moment one of
    its clocks could need attention (a break's end, a decision's limit; reminders come
    before the limit, so the limit orders them too), paused matches last."""
    if match.status != MatchStatus.ACTIVE:
        return (2, datetime.max.replace(tzinfo=None))
    if any(p.bot for p in match.players):
        return (0, datetime.min)
    soonest = [c.started_at if c.status == ClockStatus.BREAK else (c.limit_at or c.deadline_at)
               for c in match.clocks.values()]
    known = [t.replace(tzinfo=None) for t in soonest if t is not None]
    return (1, min(known)) if known else (1, datetime.max)


def row_info(row: MatchRow) -> MatchInfo:
    """Who plays where, from a stored match row (no state is rebuilt)."""
    return MatchInfo(id=row.id, game=row.game,
                     players=tuple(PlayerRef.from_json(p) for p in row.players),
                     transport=dict(row.transport or {}))
