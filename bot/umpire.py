"""The match service: the only place where a command becomes a stored action.

Transport-agnostic: Discord, the console and tests all call `start_match`, `submit` and the
host actions, and receive messages through a `Transport`. Each match has one lock; matches
run independently. For every accepted command the service checks it with the game, applies
it, and stores action, snapshot, outbox messages and clock changes in one transaction
before anything is delivered.

`MatchService` is the facade of the pieces in `bot/service/`, each with one job: the match
table, the clock keeper, the built-in bot runner, the command path, the hosts' actions,
resume and the readers.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from bot.bots import resolve_bot
from bot.clock import Scheduler, TimeSource, wall_clock
from bot.delivery import Delivery
from bot.live import LiveMatch
from bot.service.bots import BotResolver, BotRunner
from bot.service.clocks import ClockKeeper
from bot.service.commands import WAITED_ON, CommandPath
from bot.service.ends import Ends
from bot.service.errors import (
    NOT_RECORDED,
    NOT_STARTED,
    NOT_STORED,
    STORE_RETRY_SECONDS,
    NotStored,
    UmpireError,
)
from bot.service.hosts import MAX_EXTEND, HostActions
from bot.service.reading import Reader
from bot.service.resume import RESUME_BATCH, RESUME_SLICE, Resumer
from bot.service.stops import REPORT_DOWN_AFTER
from bot.service.table import MatchTable
from bot.service.types import PRIVATE_IN_ROOM, PUBLIC_AT_TABLE, EndHook, Reply, Statement
from bot.store.errors import StoreUnavailable
from bot.store.housekeeping import prune_forever
from bot.store.repository import MatchWrite, Repository
from bot.transport import PlayerRef, Transport
from games.core import Command
from games.registry import warm_games

__all__ = [
    "MAX_EXTEND", "NOT_RECORDED", "NOT_STARTED", "NOT_STORED", "PRIVATE_IN_ROOM",
    "PUBLIC_AT_TABLE", "REPORT_DOWN_AFTER", "RESUME_BATCH", "RESUME_SLICE",
    "STORE_RETRY_SECONDS", "WAITED_ON", "EndHook", "MatchService", "NotStored", "Reply",
    "UmpireError",
]

log = logging.getLogger(__name__)


class MatchService:
    """The facade every caller uses (Discord, the console, tournaments, tests): its public
    methods keep their names and signatures; the work is done by the pieces it wires."""

    snapshot_on_stop = True  # see stop()

    def __init__(self, repo: Repository, transport: Transport, *, now: TimeSource = wall_clock,
                 snapshot_every: int = 25, bot_think: float = 0.0,
                 heartbeat_seconds: float = 1.0,
                 outbox_retention: timedelta | None = None) -> None:
        self.repo = repo
        self.now = now
        self.heartbeat_seconds = heartbeat_seconds
        self.table = MatchTable()
        self.matches: dict[int, LiveMatch] = self.table.matches
        self.delivery = Delivery(repo, transport, now, alive=self.table.alive,
                                 on_idle=self._idle)
        self.clocks = ClockKeeper(self.table, now, self.delivery, store=self._store,
                                  accept=self._accept, posted=self._schedule_bots)
        self.bots = BotRunner(self.matches, self._accept, think=bot_think,
                              resolve=resolve_bot)
        self.ends = Ends()
        self.commands = CommandPath(self.table, repo, self.delivery, self.clocks, self.bots,
                                    self.ends, now, commit=self._commit,
                                    snapshot_every=snapshot_every)
        self.hosts = HostActions(self.table, repo, now, self.clocks, self.bots, self.ends,
                                 store=self._store, accept=self._accept,
                                 enqueue=self.commands.enqueue)
        self.resumer = Resumer(self.table, repo, self.delivery, self.clocks, self.bots, now)
        # sharded: nothing acts for a match whose shard's lease is not live here
        self.clocks.acting = self.bots.acting = self.delivery.acting = self.resumer.acting
        self.commands.conflicted = self.resumer.conflicted
        self.reader = Reader(self.table, repo, now, deadline_if_seen=self.clocks.deadline_if_seen,
                             owns=self.owns, retire=self._retire)
        self._heartbeat: asyncio.Task[None] | None = None
        self.outbox_retention = outbox_retention  # None: delivered messages are kept forever
        self._pruner: asyncio.Task[None] | None = None
        #: Told of every match's end, in its transaction and once stored (`EndHook`).
        self.end_hooks: list[EndHook] = self.ends.hooks

    # --- the pieces' settings, as the service's own -----------------------------------------
    @property
    def scheduler(self) -> Scheduler:
        return self.clocks.scheduler

    @property
    def snapshot_every(self) -> int:
        return self.commands.snapshot_every

    @snapshot_every.setter
    def snapshot_every(self, value: int) -> None:
        self.commands.snapshot_every = value

    @property
    def bot_think(self) -> float:
        return self.bots.think

    @bot_think.setter
    def bot_think(self, value: float) -> None:
        self.bots.think = value

    @property
    def resolve_bot(self) -> BotResolver:
        return self.bots.resolve

    @resolve_bot.setter
    def resolve_bot(self, value: BotResolver) -> None:
        self.bots.resolve = value

    @property
    def delivery_grace(self) -> float:
        """A later delivery of a prompt than this (seconds) starts its clock anew."""
        return self.clocks.delivery_grace

    @delivery_grace.setter
    def delivery_grace(self, value: float) -> None:
        self.clocks.delivery_grace = value

    @property
    def keep_ended(self) -> int:
        """How many ended matches stay in memory (older ones are read back on demand)."""
        return self.table.keep_ended

    @keep_ended.setter
    def keep_ended(self, value: int) -> None:
        self.table.keep_ended = value

    @property
    def downtime(self) -> timedelta:
        """The time the service was down before this start (no one's clock was charged)."""
        return self.resumer.downtime

    @property
    def clocks_shifted_at(self) -> datetime | None:
        """When the clocks were shifted for the downtime (None: not yet, a held start)."""
        return self.clocks.shifted_at

    # --- life cycle -----------------------------------------------------------------------
    async def start(self, *, hold_clocks: bool = False) -> None:
        """Migrate, charge no one for the downtime, resume every running match, resend.

        Built to be ready at once however many matches are running: every clock is shifted
        by the downtime in one statement (with the heartbeat, one transaction); running
        matches are read in batches of `RESUME_BATCH` and kept *dormant* (who plays, where,
        status, clocks; see `LiveMatch`). Their states are rebuilt (snapshot + replay) by a
        background task, most urgent clock first, with a yield to the loop at least every
        `RESUME_SLICE` seconds, or earlier on demand: the first command, view, delivery or
        host action that touches a match rebuilds it there and then (about a millisecond).
        A match's clocks and bots are armed the moment it is rebuilt. Ended matches are not
        loaded: their undelivered messages need only who plays where.
        `hydrated()` waits until every resumed match is rebuilt.

        `hold_clocks`: the clocks are neither shifted nor run yet; `run_clocks()` does both
        once the players can play again (on Discord: after the login), so that the time the
        login takes is charged to no one.
        """
        # Importing the games (first use of the registry) and building their large tables
        # (Decoder's word list) take a while: in a thread, where the GIL's switch interval
        # still gives the loop its turns, and never in the middle of someone's move.
        await asyncio.to_thread(warm_games)
        await self.repo.migrate()
        if not hold_clocks:
            await self.resumer.shift_for_downtime()
        await self.resumer.resume_stored()
        if not hold_clocks:
            self._clocks_go()

    async def run_clocks(self) -> None:
        """After `start(hold_clocks=True)`: shift every running clock by the downtime, which
        lasts until now, and run them (timers, the heartbeat). Does nothing the second time."""
        if self.clocks_shifted_at is not None:
            return
        await self.resumer.shift_for_downtime()
        self._clocks_go()

    def _clocks_go(self) -> None:
        """Run the timers and the heartbeat (only once the clocks were shifted: a beat
        before would hide the downtime)."""
        self.scheduler.start()
        self._heartbeat = asyncio.create_task(self._beat(), name="umpire-heartbeat")
        # (without a retention only the ended matches' old snapshots and clocks go)
        self._pruner = asyncio.create_task(
            prune_forever(self.repo, self.outbox_retention, self.now), name="umpire-prune")

    async def adopt(self, shards: set[int]) -> None:
        """Umpire the matches of these shards from now on: taken on start, or over from a
        process that died (bot/shards.py). Their clocks were already shifted by the shard's
        downtime, in the transaction that took its lease; this loads and arms their running
        matches, sends their undelivered messages and schedules their bots."""
        await self.resumer.adopt(shards)

    async def drop(self, shards: set[int]) -> None:
        """Stop umpiring the matches of these shards (their lease was lost: another process
        may take them over): no clock, bot or delivery of theirs acts any more here, and
        they are forgotten. What they still owe stays in the store for the new owner."""
        await self.resumer.drop(shards)

    def owns(self, shard: int) -> bool:
        """Whether this process umpires the matches of `shard` (always, unless sharded)."""
        return self.resumer.owns(shard)

    async def stop(self) -> None:
        """Stop; store a snapshot of every running match whose latest action has none, so
        that the next start loads it without replaying (a crash leaves the replay to do)."""
        snapshots = (self.resumer.running_snapshots(self.snapshot_every)
                     if self.snapshot_on_stop else [])
        for task in (self.resumer.hydrator, self._pruner, self._heartbeat):
            if task:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.scheduler.stop()
        for task in list(self.clocks.background.tasks):
            task.cancel()
        for task in self.bots.cancel():
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.delivery.stop()
        if snapshots:
            try:
                await self.repo.commit_many(snapshots, self.now())
            except Exception:  # only a faster start is lost
                log.exception("could not store the snapshots of running matches on stop")
        await self.repo.close()
        # What the start froze out of the collector's sight (resumed matches: they hold
        # cycles) would otherwise outlive the service, in a process that goes on (a restart
        # in the same process, tests, the bench: its next start ran slower with them).
        gc.unfreeze()

    async def hydrated(self, timeout: float | None = None) -> None:
        """Wait until every match resumed by `start` has been rebuilt."""
        await self.resumer.hydrated(timeout)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                await self.repo.beat(self.now())
            except StoreUnavailable as exc:
                log.warning("heartbeat not stored: %s", exc)
            except Exception:
                log.exception("heartbeat failed")

    # --- commands (bot/service/commands.py) -------------------------------------------------
    async def start_match(self, game_name: str, players: Sequence[PlayerRef], *,
                          advantage: int = 0, settings: Mapping[str, Any] | None = None,
                          seed: str | None = None,
                          transport: Mapping[str, Any] | None = None) -> LiveMatch:
        """Start a match. `players` in any order; `advantage` is the index of the player the
        host names as holding the advantage, who takes seat 0."""
        return await self.commands.start_match(game_name, players, advantage=advantage,
                                               settings=settings, seed=seed,
                                               transport=transport)

    async def submit(self, match_id: int, user_id: str, text: str, *,
                     table_of: int | None = None, prompt_key: str | None = None,
                     message_ref: str | None = None) -> Reply:
        """A message a person typed: in the public room (`table_of` None) or in the table
        channel of seat `table_of`; `prompt_key` (a button click) names the decision;
        `message_ref` the message, for a decision with a fix window (`fix`, `withdraw`)."""
        return await self.commands.submit(match_id, user_id, text, table_of=table_of,
                                          prompt_key=prompt_key, message_ref=message_ref)

    async def fix(self, match_id: int, user_id: str, text: str, *,
                  message_ref: str | None = None) -> Reply:
        """The sender edited a move waiting in its fix window (bot/service/fixes.py)."""
        return await self.commands.fix(match_id, user_id, text, message_ref=message_ref)

    async def withdraw(self, match_id: int, *, message_ref: str | None = None,
                       user_id: str | None = None) -> Reply:
        """The sender deleted a move waiting in its fix window (bot/service/fixes.py)."""
        return await self.commands.withdraw(match_id, message_ref=message_ref, user_id=user_id)

    async def submit_command(self, match_id: int, seat: int, command: Command, *,
                             source: str = "player") -> Reply:
        """A typed command for `seat` (buttons, bots, tests); same checks as text."""
        return await self.commands.submit_command(match_id, seat, command, source=source)

    async def _accept(self, match: LiveMatch, seat: int, command: Command,
                      source: str) -> Reply:
        return await self.commands.accept(match, seat, command, source)

    async def _store(self, match: LiveMatch, write: MatchWrite, now: datetime) -> None:
        await self.commands.store(match, write, now)

    async def _commit(self, match: LiveMatch, write: MatchWrite, now: datetime) -> None:
        """Store a write and hand its messages to delivery: every write of the service goes
        through here (but a repost's), so a subclass may wrap it (the kill tests' workers)."""
        await self.commands.commit(match, write, now)

    def _schedule_bots(self, match: LiveMatch) -> None:
        self.bots.schedule(match)

    def stopped_for(self, match_id: int, key: str, now: datetime) -> timedelta:
        """How long the decision's clock has been stopped so far (a channel it depends on
        is down): not charged, e.g. not in the seconds a decision took."""
        return self.clocks.stops.stopped_for(match_id, key, now)

    # --- match table: ended matches retired ------------------------------------------------
    def _idle(self, match_id: int) -> None:
        """Every message of the match is out: an ended match is retired."""
        match = self.matches.get(match_id)
        if match is not None and match.ended:
            self._retire(match_id)

    def _retire(self, match_id: int) -> None:
        """Forget the bookkeeping of an ended match; keep only the last `keep_ended` ended
        matches in memory (`load` reads an older one back from the store)."""
        self.bots.forget({match_id})
        self.clocks.forget({match_id}, unseen=False)  # (a down channel its end left behind)
        self.table.retire(match_id, self.delivery.busy)

    # --- host actions (bot/service/hosts.py) -------------------------------------------------
    async def pause(self, match_id: int) -> None:
        await self.hosts.pause(match_id)

    async def resume(self, match_id: int) -> None:
        await self.hosts.resume(match_id)

    async def extend(self, match_id: int, seconds: float, seat: int | None = None) -> None:
        """Give the pending decisions (of `seat`, or everyone) `seconds` more."""
        await self.hosts.extend(match_id, seconds, seat)

    async def announce(self, match_id: int, text: str, *, also: Sequence[Statement] = ()) -> None:
        """A hosts' line in the public room of a running match, with `also`'s statements in
        the same transaction."""
        await self.hosts.announce(match_id, text, also=also)

    async def expire(self, match_id: int) -> None:
        """End every pending clock now, applying each decision's timeout outcome."""
        await self.hosts.expire(match_id)

    async def repost(self, match_id: int, audience: str, since: datetime, *,
                     note: str = "") -> None:
        """A lost channel was made again: post its open decisions again, clocks extended."""
        await self.hosts.repost(match_id, audience, since, note=note)

    async def abort(self, match_id: int, reason: str = "aborted by the hosts") -> None:
        await self.hosts.abort(match_id, reason)

    async def award(self, match_id: int, seat: int, reason: str = "awarded by the hosts", *,
                    unit: str = "match") -> None:
        """Award the match, or a part of it the game offers (`Game.host_award_units`), to
        `seat`."""
        await self.hosts.award(match_id, seat, reason, unit=unit)

    # --- reading (bot/service/reading.py) ---------------------------------------------------
    def view(self, match_id: int, seat: int | None) -> dict[str, Any]:
        return self.reader.view(match_id, seat)

    def describe(self, match_id: int, user_id: str) -> str:
        """What this person may know of the match (a player's own view; spectators' else)."""
        return self.reader.describe(match_id, user_id)

    def status_text(self, match_id: int) -> str:
        """Whose decision it is and the clocks, names filled in (one pass)."""
        return self.reader.status_text(match_id)

    async def wait_finished(self, match_ids: Sequence[int], timeout: float | None = None) -> None:
        """Wait until every match in `match_ids` has ended."""
        await self.ends.wait(self.matches, match_ids, timeout)

    async def load(self, match_id: int) -> LiveMatch:
        """A match by id, loading an ended one from the store."""
        return await self.reader.load(match_id)

    async def export(self, match_id: int) -> dict[str, Any]:
        """The whole record; the seed and the secrets only once the match has ended."""
        return await self.reader.export(match_id)

    def export_json(self, record: dict[str, Any]) -> str:
        return self.reader.export_json(record)
