"""The match service: the only place where a command becomes a stored action.

Transport-agnostic: Discord, the console and tests all call `start_match`, `submit` and the
host actions, and receive messages through a `Transport`. Each match has one lock; matches
run independently. For every accepted command the service checks it with the game, applies
it, and stores action, snapshot, outbox messages and clock changes in one transaction
before anything is delivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import gc
import json
import logging
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from pydantic import ValidationError
from sqlalchemy.engine import Connection

from bot import metrics
from bot.bots import resolve_bot
from bot.clock import Scheduler, TimeSource, wall_clock
from bot.delivery import Delivery
from bot.feed import has_feed, mirrored, reveal_rows
from bot.live import LiveMatch
from bot.match_commitment import match_commitment
from bot.messages import (
    compose,
    deadline_keys,
    host_seed_note,
    mark_final,
    moved_deadlines,
    outcome_line,
    reminder_times,
    seed_reveal,
)
from bot.ratings import result_statement
from bot.store.errors import StoreUnavailable
from bot.store.housekeeping import prune_forever
from bot.store.repository import (
    LIVE_CLOCKS,
    ClockData,
    MatchWrite,
    OutboxData,
    Repository,
    StopData,
    StoredMessage,
)
from bot.transport import MatchInfo, PlayerRef, Transport, render_names
from games.core import Command, IllegalMove, ParseError, Prompt, Timeout, seed_commitment
from games.core.chance import new_salt
from games.core.contract import OnTimeout
from games.registry import get_game, warm_games

log = logging.getLogger(__name__)


#: The most one `extend` may add (a host may extend again): a bound keeps deadlines in range.
MAX_EXTEND = 86_400
#: Resume loads running matches this many at a time (the rows of one batch's actions are
#: turned into Python objects in one step of the loop: 500 matches' took up to 75 ms)...
RESUME_BATCH = 250
#: ...and gives the event loop a turn at least this often (seconds) while rebuilding them.
RESUME_SLICE = 0.01
#: The sources of the moves a person is waiting on: their writes skip the shared
#: transaction's queue when the store can take them at once (bot/store/writer.py).
WAITED_ON = frozenset({"player", "host"})
#: A channel down at least this long (seconds) is reported to the hosts when it is back
#: (shorter blips, a retried 5xx, stop the clocks all the same).
REPORT_DOWN_AFTER = 1.0


class UmpireError(Exception):
    """A request the service refuses; the message is for the person who made it."""


class NotStored(UmpireError):
    """The store could not take a write (the database is down, locked or failing): nothing
    of it took effect, the live match is exactly as it was. A player is told where they
    typed; a clock or a bot tries again after `STORE_RETRY_SECONDS`."""


#: What a host is told when their action could not be stored.
NOT_STORED = ("The umpire could not store that: the database did not answer. Nothing "
              "changed; please try again in a moment.")
#: What a player is told, where they typed, when their move could not be stored.
NOT_RECORDED = ("The umpire could not record that move: the database did not answer. "
                "Nothing was applied; please send it again.")
#: A clock that fell due or a bot's move whose write failed is tried again after this long.
STORE_RETRY_SECONDS = 2.0


@dataclass(frozen=True)
class Reply:
    """The answer to a submitted message, for the player who sent it."""

    accepted: bool
    message: str = ""
    delete: bool = False  # a private move typed in the public room: remove it
    ignored: bool = False  # not a player of this match: spectator chat


PRIVATE_IN_ROOM = ("That decision is private: make it in your table channel. Nothing was "
                   "applied.")
PUBLIC_AT_TABLE = ("Make that move in the public game room, where both players can see it. "
                   "Nothing was applied.")


def _rendered(match: LiveMatch, reply: Reply) -> Reply:
    """The reply with `{P0}` / `{P1}` filled in (one pass: names are data, never templates)."""
    if not reply.message:
        return reply
    return dataclasses.replace(reply, message=render_names(reply.message, match.names))


class EndHook(Protocol):
    """What is built on matches and advances with their results (a tournament's runner)."""

    def statement(self, match: LiveMatch, now: datetime) -> Callable[[Connection], Any] | None:
        """A statement stored in the same transaction as the match's end (`match` has its
        status and result as they will be stored), or None."""

    def ended(self, match: LiveMatch) -> None:
        """The end is stored (called under the match's lock: start work, never wait)."""


class MatchService:
    snapshot_on_stop = True  # see stop()

    def __init__(self, repo: Repository, transport: Transport, *, now: TimeSource = wall_clock,
                 snapshot_every: int = 25, bot_think: float = 0.0,
                 heartbeat_seconds: float = 1.0,
                 outbox_retention: timedelta | None = None) -> None:
        self.repo = repo
        self.now = now
        self.snapshot_every = snapshot_every
        self.bot_think = bot_think
        self.heartbeat_seconds = heartbeat_seconds
        self.matches: dict[int, LiveMatch] = {}
        self.delivery = Delivery(repo, transport, now, on_delivered=self._delivered,
                                 on_stalled=self._stalled, alive=self._alive,
                                 on_idle=self._idle, on_down=self._channel_down,
                                 on_up=self._channel_up, on_held=self._channel_held,
                                 prepare=self._prepare)
        #: A decision's clock starts when the message asking for it is delivered: outbox id ->
        #: (match id, prompt keys) until then, and the keys held back from timing out.
        self._unseen: dict[int, tuple[int, tuple[str, ...]]] = {}
        self._held: set[tuple[int, str]] = set()
        #: Decisions whose clocks are stopped because a channel they depend on is down:
        #: (match id, prompt key) -> since when, and which channels hold it (`_channel_down`).
        self._stopped: dict[tuple[int, str], StopData] = {}
        #: Stops read back from the store on a restart, not yet re-checked (`_reinstate_stops`).
        self._restored: set[int] = set()
        self.delivery_grace = 1.0  # a later delivery than this starts the clock anew
        self._tasks: set[asyncio.Task[None]] = set()
        self.scheduler = Scheduler(now, self._on_due)
        self._bot_tasks: dict[tuple[int, str], asyncio.Task[None]] = {}
        self._bot_tries: dict[tuple[int, str], int] = {}
        #: Match -> (seat, kind) of the decisions explained in full so far: later ones of a
        #: kind get their compact line (`Prompt.brief`). Not stored: after a restart each
        #: kind is explained once more.
        self._met: dict[int, set[tuple[int, str]]] = {}
        self.resolve_bot = resolve_bot
        self._heartbeat: asyncio.Task[None] | None = None
        self._finished = asyncio.Condition()
        self.downtime = timedelta(0)
        self.clocks_shifted_at: datetime | None = None
        #: Ended matches whose messages are all out, oldest first: the last `keep_ended` stay
        #: in `matches` (status, view, export without a database read), older ones are
        #: forgotten so that a service running for months keeps no memory per finished match.
        self._ended: OrderedDict[int, None] = OrderedDict()
        self.keep_ended = 64
        self.outbox_retention = outbox_retention  # None: delivered messages are kept forever
        self._pruner: asyncio.Task[None] | None = None
        self._snapshot_at: dict[int, int] = {}  # resumed matches: the seq of their snapshot
        self._hydrator: asyncio.Task[None] | None = None
        self._awake = asyncio.Event()  # every resumed match has been rebuilt
        #: Told of every match's end, in its transaction and once stored (`EndHook`).
        self.end_hooks: list[EndHook] = []

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
            await self._shift_for_downtime()
        await self._resume_stored()
        if not hold_clocks:
            self._clocks_go()

    async def run_clocks(self) -> None:
        """After `start(hold_clocks=True)`: shift every running clock by the downtime, which
        lasts until now, and run them (timers, the heartbeat). Does nothing the second time."""
        if self.clocks_shifted_at is not None:
            return
        await self._shift_for_downtime()
        self._clocks_go()

    async def _shift_for_downtime(self) -> None:
        """Charge no one for the downtime (since the last heartbeat): every live clock of
        every running match moves later by it, in the store (one statement, with a beat) and
        in the matches already loaded."""
        now = self.now()
        last = await self.repo.last_heartbeat()
        self.downtime = max(timedelta(0), now - last) if last else timedelta(0)
        await self.repo.resume_clocks(self.downtime, now)
        for match in self.matches.values():  # (loaded before the shift: a held start)
            if match.status != "active":
                continue
            for clock in match.clocks.values():
                if clock.status in LIVE_CLOCKS:
                    clock.shifted(self.downtime)
            for stop in self._stops_of(match.id, live=True).values():  # (stored ones too)
                stop.since = min(stop.since + self.downtime, now)
        #: When the clocks were shifted: the rest of the start (reading the running matches,
        #: well under a second even with thousands) runs on the players' clocks.
        self.clocks_shifted_at = now
        for match in self.matches.values():
            if match.status == "active" and not match.dormant:
                self._arm(match)
                self._schedule_bots(match)
        self._reinstate_stops()

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
        if self.repo.shards is not None:
            self.repo.shards = self.repo.shards | shards
        await self._resume_stored(shards)

    async def drop(self, shards: set[int]) -> None:
        """Stop umpiring the matches of these shards (their lease was lost: another process
        may take them over): no clock, bot or delivery of theirs acts any more here, and
        they are forgotten. What they still owe stays in the store for the new owner."""
        if self.repo.shards is not None:
            self.repo.shards = self.repo.shards - shards
        gone = {m.id for m in self.matches.values()
                if self.repo.shard_for(m.transport) in shards}
        self.scheduler.clear(lambda t: isinstance(t, tuple) and t[0] in gone)
        tasks = [t for k, t in self._bot_tasks.items() if k[0] in gone]
        for task in tasks:
            task.cancel()
        self.delivery.forget(gone)
        for match_id in gone:
            dropped = self.matches.pop(match_id, None)
            if dropped is not None:
                dropped.on_hydrate = None  # a rebuild under way arms nothing of it
            self._snapshot_at.pop(match_id, None)
            self._ended.pop(match_id, None)
        for key in [k for k in self._bot_tries if k[0] in gone]:
            del self._bot_tries[key]
        for message_id in [i for i, (m, _) in self._unseen.items() if m in gone]:
            del self._unseen[message_id]
        self._held = {h for h in self._held if h[0] not in gone}
        for stopped in [k for k in self._stopped if k[0] in gone]:
            del self._stopped[stopped]
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _owns(self, shard: int) -> bool:
        """Whether this process umpires the matches of `shard` (always, unless sharded)."""
        owned = getattr(self.repo, "shards", None)
        return owned is None or shard in owned

    async def _resume_stored(self, shards: set[int] | None = None) -> None:
        """Resume the stored running matches (of `shards`; default: all the repository
        sees) and send their undelivered messages: the body of `start`, shared with
        `adopt`."""
        scoped = {} if shards is None else {"shards": shards}  # (None: what the store sees)
        pending: dict[int, list[StoredMessage]] = {}
        for message in await self.repo.undelivered(**scoped):
            pending.setdefault(message.match_id, []).append(message)
            self._hold(message.match_id, message.id, message.payload)  # clocks wait for it
        if self.clocks_shifted_at is not None:  # (a held start: `run_clocks` starts it)
            self.scheduler.start()
        ids = await self.repo.active_ids(**scoped)
        resumed: list[tuple[tuple[int, datetime], int, LiveMatch]] = []  # (urgency, id, match)
        for first in range(0, len(ids), RESUME_BATCH):
            stops = await self.repo.stops(ids[first:first + RESUME_BATCH])
            for stored in await self.repo.load_many(ids[first:first + RESUME_BATCH]):
                match = LiveMatch.dormant_from_store(stored)
                match.on_hydrate = self._woken
                self.matches[match.id] = match
                self._restore_stops(match.id, stops.get(match.id, {}))
                self._snapshot_at[match.id] = stored.snapshot_seq
                for message in pending.pop(match.id, []):
                    self.delivery.enqueue(match.info, message)
                # the rebuild order, worked out batch by batch (for 10,000 matches at once
                # it held the loop for 60 ms)
                resumed.append((_urgency(match), match.id, match))
            gc.freeze()  # they live as long as their matches (see _hydrate_all)
            await asyncio.sleep(0)
        # (an adoption's rebuild runs after any rebuild still under way: one at a time)
        self._awake.clear()
        self._hydrator = asyncio.create_task(self._hydrate_after(self._hydrator, resumed),
                                             name="umpire-hydrate")
        for row in await self.repo.match_rows(sorted(pending)):
            info = self.matches[row.id].info if row.id in self.matches else _row_info(row)
            for message in pending.pop(row.id, []):
                self.delivery.enqueue(info, message)
        if self.clocks_shifted_at is not None:  # (a held start: once they are shifted)
            self._reinstate_stops()

    async def stop(self) -> None:
        """Stop; store a snapshot of every running match whose latest action has none, so
        that the next start loads it without replaying (a crash leaves the replay to do)."""
        snapshots = self._running_snapshots() if self.snapshot_on_stop else []
        if self._hydrator:
            self._hydrator.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._hydrator
        if self._pruner:
            self._pruner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pruner
        if self._heartbeat:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
        await self.scheduler.stop()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._bot_tasks.values()):
            task.cancel()
        for task in list(self._bot_tasks.values()):
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

    def _running_snapshots(self) -> list[MatchWrite]:
        """Snapshots of the running matches that have moved since their last one. Taken
        before any task is stopped, and only of matches whose lock is free: a match changes
        only under its lock, and its state and action count agree whenever the lock is free
        (a step cancelled half-way by the stop could leave them apart)."""
        return [MatchWrite(m.id, m.seq, snapshot=m.state.model_dump_json())
                for m in self.matches.values()
                if m.status in ("active", "paused") and m.seq and not m.lock.locked()
                and not m.dormant and m.game.snapshots
                and m.seq % self.snapshot_every and self._snapshot_at.get(m.id) != m.seq]

    async def _hydrate_all(self,
                           matches: list[tuple[tuple[int, datetime], int, LiveMatch]]) -> None:
        """Rebuild every dormant resumed match, most urgent first (`_urgency`: a break
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
        self._awake.set()

    async def _hydrate_after(self, previous: asyncio.Task[None] | None,
                             matches: list[tuple[tuple[int, datetime], int, LiveMatch]]) -> None:
        if previous is not None:
            await previous
        await self._hydrate_all(matches)

    def _woken(self, match: LiveMatch) -> None:
        """A dormant match was just rebuilt: its clocks and bots run from now on (in a held
        start, once the clocks run: `run_clocks`)."""
        self._arm(match)
        if self.clocks_shifted_at is not None:
            self._schedule_bots(match)

    async def hydrated(self, timeout: float | None = None) -> None:
        """Wait until every match resumed by `start` has been rebuilt."""
        if self._hydrator is None:
            return
        await asyncio.wait_for(self._awake.wait(), timeout)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                await self.repo.beat(self.now())
            except StoreUnavailable as exc:
                log.warning("heartbeat not stored: %s", exc)
            except Exception:
                log.exception("heartbeat failed")

    # --- starting a match -----------------------------------------------------------------
    async def start_match(self, game_name: str, players: Sequence[PlayerRef], *,
                          advantage: int = 0, settings: Mapping[str, Any] | None = None,
                          seed: str | None = None,
                          transport: Mapping[str, Any] | None = None) -> LiveMatch:
        """Start a match. `players` in any order; `advantage` is the index of the player the
        host names as holding the advantage, who takes seat 0."""
        try:
            game = get_game(game_name)
        except KeyError as exc:
            raise UmpireError(str(exc.args[0])) from exc
        if len(players) != game.seats:
            raise UmpireError(f"{game.title} needs exactly {game.seats} players.")
        if len({p.id for p in players}) != len(players):
            raise UmpireError("The two players must be different people.")
        if advantage not in range(len(players)):
            raise UmpireError("The advantage must go to one of the players.")
        try:
            parsed = game.load_settings(settings)
        except ValidationError as exc:
            raise UmpireError(f"Bad settings: {_validation_text(exc)}") from exc
        ordered = (players[advantage], *[p for i, p in enumerate(players) if i != advantage])
        seed = seed if seed is not None else secrets.token_hex(16)
        now = self.now()
        state = game.setup(parsed, seed)
        settings_json = parsed.model_dump(mode="json")
        salt = new_salt()  # a short host-chosen seed stays hidden behind it
        commitment = seed_commitment(seed, salt)
        players_json = [p.to_json() for p in ordered]
        # what a record states about the start, bound by one published hash (verify)
        covering = match_commitment(game=game.slug, players=players_json,
                                    settings=settings_json, started_at=now,
                                    seed_commitment=commitment)
        # The match row is stored with its opening (seed commitment, first prompts, clocks)
        # in one transaction: a crash leaves either no match or a fully opened one.
        try:
            match_id = await self.repo.reserve_match(
                game=game.slug, settings=settings_json, seed=seed, commitment=commitment,
                players=players_json, transport=dict(transport or {}),
                now=now, salt=salt, match_commitment=covering)
        except Exception as exc:
            if _store_error(exc):
                raise _not_started(exc) from exc
            raise
        match = LiveMatch(id=match_id, game=game, settings=parsed, seed=seed,
                          commitment=commitment, players=ordered, state=state, seq=0,
                          status="active", transport=dict(transport or {}), salt=salt)
        async with match.lock:
            self.matches[match_id] = match
            header = [("public", f"🎲 Match #{match_id}: {game.title}, {{P0}} vs {{P1}}. "
                                 f"{{P0}} holds the advantage. Seed commitment (SHA-256): "
                                 f"`{commitment}`; the seed and its salt are revealed when "
                                 "the match ends. Match commitment (SHA-256 of the players, "
                                 f"settings, start time and seed commitment): "
                                 f"`{covering['sha256']}`." + host_seed_note(transport))]
            try:
                await self._record(match, None, game.opening_events(state), header=header,
                                   now=now)
            except BaseException as exc:
                self.matches.pop(match_id, None)
                self.repo.forget_match(match_id)
                cause = exc.__cause__ if isinstance(exc, NotStored) else exc
                if cause is not None and _store_error(cause):
                    raise _not_started(cause) from exc
                raise
        return match

    # --- players' moves -------------------------------------------------------------------
    async def submit(self, match_id: int, user_id: str, text: str, *,
                     table_of: int | None = None, prompt_key: str | None = None) -> Reply:
        """A message a person typed: in the public room (`table_of` None) or in the table
        channel of seat `table_of`. `prompt_key` (a button click) names the decision the text
        answers: if that decision is no longer open, nothing is applied."""
        match = self.matches.get(match_id)
        if match is None:
            return Reply(False, "There is no running match here.", ignored=True)
        seat = match.seat_of(user_id)
        if seat is None:
            return Reply(False, ignored=True)
        arrived = time.perf_counter()
        async with match.lock:
            try:
                reply = await self._submit(match, seat, text, table_of, prompt_key)
            except NotStored:
                reply = Reply(False, NOT_RECORDED)
        metrics.command(match.game.slug, reply.accepted, time.perf_counter() - arrived)
        return _rendered(match, reply)

    async def _submit(self, match: LiveMatch, seat: int, text: str, table_of: int | None,
                      prompt_key: str | None) -> Reply:
        """`submit` under the match lock. Where the text was typed is checked before it is
        parsed: a refusal from parsing may describe private state (the letters of a hand),
        so text for a private decision typed in the room is never parsed."""
        if table_of is not None and table_of != seat:
            return Reply(False, "This is not your table channel.")
        refusal = self._refuse_now(match, seat)
        if refusal:
            return Reply(False, refusal)
        pending = [p for p in match.prompts if p.seat == seat]
        if prompt_key is not None:
            pending = [p for p in pending if p.key == prompt_key]
            if not pending:
                return Reply(False, "That choice is no longer open: the decision was already "
                                    "made or its time ran out.")
        if table_of is None and all(p.private for p in pending):
            return Reply(False, PRIVATE_IN_ROOM, delete=True)
        if table_of is not None and not any(p.private for p in pending):
            return Reply(False, PUBLIC_AT_TABLE)
        try:
            command = match.game.parse(match.state, seat, text)
        except ParseError as exc:
            return Reply(False, str(exc))
        prompt = _answered(pending, command)
        if prompt.private and table_of is None:
            return Reply(False, PRIVATE_IN_ROOM)
        if not prompt.private and table_of is not None:
            return Reply(False, PUBLIC_AT_TABLE)
        return await self._accept(match, seat, command, "player")

    async def submit_command(self, match_id: int, seat: int, command: Command, *,
                             source: str = "player") -> Reply:
        """A typed command for `seat` (buttons, bots, tests); same checks as text."""
        match = self._get(match_id)
        async with match.lock:
            refusal = self._refuse_now(match, seat)
            if refusal:
                return _rendered(match, Reply(False, refusal))
            try:
                return _rendered(match, await self._accept(match, seat, command, source))
            except NotStored:
                return Reply(False, NOT_RECORDED)

    def _refuse_now(self, match: LiveMatch, seat: int) -> str | None:
        if match.status == "paused":
            return "The match is paused by the hosts; wait for them to resume it."
        if match.status != "active":
            return "This match is over."
        if not any(p.seat == seat for p in match.prompts):
            waiting = sorted({p.seat for p in match.prompts})
            who = " and ".join(f"{{P{s}}}" for s in waiting) or "nobody"
            return f"It is not your decision now; waiting for {who}."
        if _in_break(match, seat):
            return "It is the break between rounds: the next decisions are posted when it ends."
        return None

    async def _accept(self, match: LiveMatch, seat: int, command: Command, source: str) -> Reply:
        """Check, apply to a copy of the state, store, then make the copy live (`_record`).
        The caller holds the match lock. Raises `NotStored` when the write failed: the live
        match is then exactly as it was (the callers tell the person, or try again later)."""
        now = self.now()
        clock = _oldest_clock(match, seat)
        if clock is not None and not isinstance(command, Timeout):
            taken = now - clock.started_at - self.stopped_for(match.id, clock.key, now)
            elapsed = round(taken.total_seconds(), 3)  # (a stop for a down channel is free)
            command = command.model_copy(update={"elapsed": max(0.0, elapsed)})
        try:
            match.game.check(match.state, seat, command)
        except IllegalMove as exc:
            return Reply(False, str(exc))
        state = match.draft()
        events = match.game.apply(state, seat, command)
        await self._record(match, (seat, command, source), events, now=now, state=state)
        return Reply(True)

    # --- recording ------------------------------------------------------------------------
    async def _record(self, match: LiveMatch, action: tuple[int, Command, str] | None,
                      events: Sequence[Any], *, now: datetime,
                      header: Sequence[tuple[str, str]] = (),
                      state: Any = None) -> None:
        """Store what one step caused (one transaction), then make it live and hand it to
        delivery. `state` is the state after the step, a copy of the live one (`_accept`);
        None: the live state already is (a match's opening). Nothing of the live match
        changes before the write is stored: a failed write raises `NotStored` and leaves
        state, prompts, clocks, status, result, seq, timers and bots as they were."""
        state = match.state if state is None else state
        game = match.game
        before = {p.key for p in match.prompts}
        outcome = game.outcome(state)
        status = "finished" if outcome is not None else match.status
        prompts = game.prompts(state) if status in ("active", "paused") else []
        after = {p.key: p for p in prompts}
        # (copies: the live clocks change only once the write is stored)
        closed = [dataclasses.replace(c, status="done")
                  for k, c in match.clocks.items() if k not in after]
        new_prompts = [p for k, p in after.items() if k not in before]
        pause = _break_seconds(match, events)
        start = now + timedelta(seconds=pause)  # a break between rounds: clocks start after it
        new_clocks = [self._new_clock(p, start) for p in new_prompts]
        if pause > 0:  # the decisions are posted (and their clocks run) when the break ends
            for c in new_clocks:
                c.status = "break"
        clocks = {c.key: c for c in new_clocks}
        footer: list[tuple[str, str]] = []
        fields: dict[str, Any] = {}
        result = match.result
        if outcome is not None:
            result = {"winner": outcome.winner, "reason": outcome.reason,
                      "score": list(outcome.score) if outcome.score else None}
            fields.update(status="finished", result=result, ended_at=now)
            footer.append(("public", outcome_line(outcome, match.seed, match.salt)))
        seq = match.seq + (1 if action else 0)
        shown = game.status(state) if outcome is None else None
        posted = new_prompts if pause <= 0 else []
        outbox = compose(events, posted, clocks, header=header, footer=footer, status=shown,
                         met=self._met.get(match.id, ()))
        if outcome is not None:
            mark_final(outbox)
        write = MatchWrite(match.id, seq, outbox=outbox, clocks_new=new_clocks,
                           clocks_changed=closed, match_fields=fields)
        if has_feed(match.transport):  # what this step made over, for the spectator feed
            write.outbox += reveal_rows(game, match.state, state, outcome is not None)
        if outcome is not None:  # history and ratings, in the result's own transaction
            ended = _as_ended(match, status, result)
            write.also.append(result_statement(ended, now))
            write.also.extend(self._end_statements(ended, now))
        if action is not None:
            seat, command, source = action
            write.action = (seat, command.model_dump(mode="json"), source)
            if game.snapshots and (seq % self.snapshot_every == 0 or outcome is not None):
                write.snapshot = state.model_dump_json()
        await self._store(match, write, now)
        # Stored: the step takes effect.
        match.state, match.seq, match.status, match.result = state, seq, status, result
        self._explained(match.id, posted)
        match.prompts = prompts
        for c in closed:
            match.clocks.pop(c.key, None)
            self.scheduler.set((match.id, c.key), None)
            self._bot_tries.pop((match.id, c.key), None)
        match.clocks.update(clocks)
        self._arm(match)
        self._schedule_bots(match)
        # the next step's copy of the state, made once this one has answered
        asyncio.get_running_loop().call_soon(match.prepare_draft)
        if outcome is not None:
            self._tell_ended(match)
            async with self._finished:
                self._finished.notify_all()

    async def _store(self, match: LiveMatch, write: MatchWrite, now: datetime) -> None:
        """`_commit`, or `NotStored` (a sentence for the person) when the store could not
        take the write: the caller has changed nothing of the live match yet."""
        try:
            await self._commit(match, write, now)
        except Exception as exc:
            if isinstance(exc, StoreUnavailable):
                log.warning("match %s: a write was not stored: %s", match.id, exc)
            else:
                log.exception("match %s: a write was not stored", match.id)
            raise NotStored(NOT_STORED) from exc

    async def _commit(self, match: LiveMatch, write: MatchWrite, now: datetime) -> None:
        # a person's move is stored at once; clocks, bots and the rest share transactions
        write.outbox = mirrored(match.transport, write.outbox)  # the spectator feed's copy
        waited_on = write.action is not None and write.action[2] in WAITED_ON
        ids = await self.repo.commit(write, now, at_once=waited_on)
        for message_id, data in zip(ids, write.outbox, strict=True):
            self._hold(match.id, message_id, data.payload)
            self.delivery.enqueue(match.info, StoredMessage(
                id=message_id, match_id=match.id, seq=write.seq, audience=data.audience,
                text=data.text, payload=data.payload, created_at=now))

    def _new_clock(self, prompt: Prompt, now: datetime) -> ClockData:
        limit = (now + timedelta(seconds=prompt.time_limit)
                 if prompt.time_limit is not None else None)  # 0: the bank runs at once
        deadline = limit + timedelta(seconds=prompt.bank or 0) if limit else None
        return ClockData(key=prompt.key, seat=prompt.seat, started_at=now, limit_at=limit,
                         deadline_at=deadline)

    async def _info(self, match_id: int) -> Any:
        stored = await self.repo.load_match(match_id)
        if stored is None:
            return None
        return LiveMatch.from_store(stored).info

    # --- delivery and clocks -------------------------------------------------------------
    def _hold(self, match_id: int, message_id: int, payload: Mapping[str, Any]) -> None:
        """Hold back the clocks of the decisions a message asks for until it is delivered."""
        keys = tuple(str(p["key"]) for p in payload.get("prompts") or ())
        if keys:
            self._unseen[message_id] = (match_id, keys)
            self._held.update((match_id, k) for k in keys)

    def _idle(self, match_id: int) -> None:
        """Every message of the match is out: an ended match is retired."""
        match = self.matches.get(match_id)
        if match is not None and match.status in ("finished", "aborted"):
            self._retire(match_id)

    def _explained(self, match_id: int, prompts: Sequence[Prompt]) -> None:
        """These decisions were posted: a later one of the same seat and kind is compact."""
        if prompts:
            self._met.setdefault(match_id, set()).update((p.seat, p.kind) for p in prompts)

    def _retire(self, match_id: int) -> None:
        """Forget the bookkeeping of an ended match; keep only the last `keep_ended` ended
        matches in memory (`load` reads an older one back from the store)."""
        self._met.pop(match_id, None)
        for key in [k for k in self._bot_tries if k[0] == match_id]:
            del self._bot_tries[key]
        for stopped in [k for k in self._stopped if k[0] == match_id]:
            del self._stopped[stopped]  # (a down channel its match's end left behind)
        self.scheduler.clear(lambda t: isinstance(t, tuple) and t[0] == match_id)
        self._snapshot_at.pop(match_id, None)
        self._ended[match_id] = None
        self._ended.move_to_end(match_id)
        while len(self._ended) > self.keep_ended:
            old, _ = self._ended.popitem(last=False)
            match = self.matches.get(old)
            if match is None or match.status not in ("finished", "aborted") or \
                    self.delivery.busy(old) or match.lock.locked():
                continue
            del self.matches[old]

    def _alive(self, match_id: int) -> bool:
        match = self.matches.get(match_id)
        return match is not None and match.status in ("active", "paused")

    def _delivered(self, info: Any, message: StoredMessage, at: datetime,
                   delivered: bool = True) -> None:
        """A message reached its channel: the decisions it asks for may be timed now. One
        that arrived late (an outage, a rate limit) starts its clock from this moment. A
        message given up on (an unreachable channel: the hosts were told) releases its
        clocks as they were, so the match is never held forever."""
        found = self._unseen.pop(message.id, None)
        if found is None:
            return
        match_id, keys = found
        self._held.difference_update((match_id, k) for k in keys)
        match = self.matches.get(match_id)
        if match is None:
            return
        if self.clocks_shifted_at is None:
            return  # (a held start: the shift for the downtime will cover this arrival)
        if delivered:
            self._stop_while_down(match, keys, at)
        if delivered and any(self._late(match, k, at) for k in keys):
            self._background(self._start_late(match, keys, at))
        else:
            self._arm(match)

    def _late(self, match: LiveMatch, key: str, at: datetime) -> ClockData | None:
        clock = match.clocks.get(key)
        if clock is None or clock.status != "armed" or match.status != "active":
            return None
        late = (at - clock.started_at).total_seconds() > self.delivery_grace
        return clock if late else None

    async def _start_late(self, match: LiveMatch, keys: Sequence[str], at: datetime) -> None:
        """Late prompts' clocks start from their arrival `at`: stored, then made live (a
        write that fails is tried again after `STORE_RETRY_SECONDS`)."""
        async with match.lock:
            late = [c for k in keys if (c := self._late(match, k, at)) is not None]
            clocks = [_shifted(c, at - c.started_at) for c in late]
            kinds = {p.key: p.kind for p in match.prompts}
            notes = [OutboxData("umpire", (
                f"⏱ The decision of {{P{c.seat}}} ({kinds.get(c.key, c.key)}) reached its "
                f"channel {int((at - old.started_at).total_seconds())} s late: its clock "
                "starts from then.")) for c, old in zip(clocks, late, strict=True)]
            if clocks:
                try:
                    await self._store(match, MatchWrite(match.id, match.seq, outbox=notes,
                                                        clocks_changed=clocks), self.now())
                except NotStored:
                    self._background(self._later(self._start_late(match, keys, at)))
                    return
                match.clocks.update((c.key, c) for c in clocks)
            self._arm(match)

    async def _later(self, work: Awaitable[None]) -> None:
        """`work` after `STORE_RETRY_SECONDS`: a clock write the store could not take."""
        await asyncio.sleep(STORE_RETRY_SECONDS)
        await work

    def _stalled(self, info: Any, audience: str, seconds: float) -> None:
        """A channel has been failing for a while: tell the hosts once (in the host log,
        unless the log is the channel that fails)."""
        match = self.matches.get(info.id)
        if match is None or audience == "umpire" or match.status not in ("active", "paused"):
            return
        self._tell_hosts(match, (
            f"⚠️ Match #{match.id}: nothing has gone through to {_place_name(audience)} for "
            f"{int(seconds)} s (Discord refuses or rate-limits the bot). The messages are kept "
            "and retried until they arrive, in order; the clocks of the decisions waiting on "
            "it are stopped until then."))

    def _tell_hosts(self, match: LiveMatch, text: str) -> None:
        """A line in the host log of the match, stored and delivered like every message."""
        async def tell() -> None:
            async with match.lock:
                try:
                    await self._store(match, MatchWrite(match.id, match.seq,
                                                        outbox=[OutboxData("umpire", text)]),
                                      self.now())
                except NotStored:
                    self._background(self._later(tell()))
        self._background(tell())

    # --- channels that fail: clocks stopped, hosts told -------------------------------------
    def _clock_stopped(self, match_id: int, key: str) -> bool:
        """Whether the decision's clock is stopped because a channel it depends on is down."""
        return (match_id, key) in self._stopped

    def _stops_of(self, match_id: int, *, live: bool = False) -> dict[str, StopData]:
        """The match's clock stops by prompt key: copies to change, store, then apply
        (`_set_stops`), or (`live`) the live ones."""
        return {k[1]: s if live else StopData(s.since, set(s.channels))
                for k, s in self._stopped.items() if k[0] == match_id}

    def _set_stops(self, match_id: int, stops: Mapping[str, StopData]) -> None:
        """Make the stored `stops` the match's live ones (their clocks re-armed by `_arm`)."""
        for key in [k for k in self._stopped if k[0] == match_id]:
            del self._stopped[key]
        self._stopped.update(((match_id, k), s) for k, s in stops.items())

    def _restore_stops(self, match_id: int, stops: Mapping[str, StopData]) -> None:
        """A resumed match's stored stops are live at once (its clocks stay stopped); their
        channels are re-checked once the clocks are shifted (`_reinstate_stops`)."""
        if stops:
            self._set_stops(match_id, stops)
            self._restored.add(match_id)

    def _reinstate_stops(self) -> None:
        """After a restart: a stored stop goes on while its channel still has messages to
        send (the first that goes through ends it, like any down spell: `_channel_up`); a
        channel with nothing left to send has nothing held, so its stops end now."""
        restored, self._restored = self._restored, set()
        now = self.now()
        for match_id in sorted(restored):
            match = self.matches.get(match_id)
            if match is None:
                continue
            since: dict[str, datetime] = {}
            for stop in self._stops_of(match_id, live=True).values():
                for audience in stop.channels:
                    since[audience] = min(since.get(audience, stop.since), stop.since)
            for audience, first in sorted(since.items()):
                if self.delivery.sending(match_id, audience):
                    self.delivery.mark_down(match_id, audience, first)
                else:
                    self._channel_up(match.info, audience, first, now)

    def _channel_down(self, info: MatchInfo, audience: str, since: datetime,
                      error: Exception) -> None:
        """A channel's sends began failing at `since`: the clocks of the decisions that
        depend on it stop (`_depends_on`). Those whose prompt has not arrived yet wait for
        it anyway (`_hold`). They go on, with the time they had, when it is back."""
        match = self.matches.get(info.id)
        if match is None or match.status not in ("active", "paused"):
            return
        self._background(self._stop_clocks(match, audience, since))

    def _stop_while_down(self, match: LiveMatch, keys: Sequence[str], at: datetime) -> None:
        """Decisions whose prompt arrived while another channel they depend on is down (the
        game room) stop from their arrival, like those asked before it went down."""
        prompts = {p.key: p for p in match.prompts}
        for audience in sorted({"public", *(_place(p) for k in keys
                                            if (p := prompts.get(k)) is not None)}):
            if self.delivery.down_since(match.id, audience) is not None:
                self._background(self._stop_clocks(match, audience, at, keys))

    async def _stop_clocks(self, match: LiveMatch, audience: str, since: datetime,
                           keys: Sequence[str] | None = None) -> None:
        """Stop, from `since`, the clocks of the decisions (`keys`: of these only) that
        depend on the down channel `audience`: the stops are stored first, then in effect
        (a write the store could not take is tried again after `STORE_RETRY_SECONDS`)."""
        async with match.lock:
            if match.status not in ("active", "paused") or \
                    self.delivery.down_since(match.id, audience) is None:
                return  # (back already: nothing to stop)
            stops = self._stops_of(match.id)
            for prompt in match.prompts:
                if (keys is not None and prompt.key not in keys) or \
                        not _depends_on(prompt, audience) or \
                        (match.id, prompt.key) in self._held or \
                        getattr(match.clocks.get(prompt.key), "status", "") != "armed":
                    continue
                stops.setdefault(prompt.key, StopData(since)).channels.add(audience)
            if stops == self._stops_of(match.id):
                return
            try:
                await self._store(match, MatchWrite(match.id, match.seq, stops=stops),
                                  self.now())
            except NotStored:
                self._background(self._later(self._stop_clocks(match, audience, since, keys)))
                return
            self._set_stops(match.id, stops)
            self._arm(match)

    def _channel_up(self, info: MatchInfo, audience: str, since: datetime,
                    at: datetime) -> None:
        """A channel that was down took a message again: the clocks it alone stopped go on,
        moved later by the time they were stopped, and the hosts are told how long it was."""
        match = self.matches.get(info.id)
        if match is None:
            return
        self._background(self._restart_clocks(match, audience, since, at))

    async def _restart_clocks(self, match: LiveMatch, audience: str, since: datetime,
                              at: datetime) -> None:
        """The clocks that `audience` alone held go on, moved later by the time they were
        stopped; the stops' end and the moved clocks are stored, then made live (a write
        the store could not take is tried again after `STORE_RETRY_SECONDS`, the clocks
        still stopped meanwhile)."""
        async with match.lock:
            stops = self._stops_of(match.id)
            touched = [k for k, stop in stops.items() if audience in stop.channels]
            clocks = []
            for key in touched:
                stop = stops[key]
                stop.channels.discard(audience)
                if stop.channels:
                    continue  # another channel it depends on is still down
                del stops[key]
                # (a paused match's clocks are moved on by `resume`, for the pause: not twice)
                end = min(at, match.paused_at) if match.paused_at is not None else at
                gap = max(timedelta(0), end - stop.since)
                clock = match.clocks.get(key)
                if clock is not None and clock.status == "armed" and match.prompt_pending(key):
                    clocks.append(_shifted(clock, gap))
            outbox = []
            seconds = (at - since).total_seconds()
            if seconds >= REPORT_DOWN_AFTER:
                what = ("the clocks waiting on it were stopped for that time" if touched else
                        "no clock was waiting on it")
                line = (f"📶 Match #{match.id}: {_place_name(audience)} could not be reached "
                        f"for {round(seconds)} s; {what}.")
                if audience == "umpire":  # not in the log that failed: in the log file
                    log.warning("%s", render_names(line, match.names))
                elif match.status in ("active", "paused"):
                    outbox.append(OutboxData("umpire", line))
            if clocks or outbox or touched:
                try:
                    await self._store(match, MatchWrite(
                        match.id, match.seq, outbox=outbox, clocks_changed=clocks,
                        stops=stops if touched else None), self.now())
                except NotStored:
                    self._background(self._later(self._restart_clocks(
                        match, audience, since, at)))
                    return
            match.clocks.update((c.key, c) for c in clocks)
            if touched:
                self._set_stops(match.id, stops)
            self._arm(match)

    def _channel_held(self, info: MatchInfo, audience: str, for_hosts: str) -> None:
        """The transport holds a channel's messages (its readers are wrong, or the bot lost
        access): tell the hosts at once, in the host log (in the log file when the held
        channel is the host log itself). Nothing of the held channel goes anywhere else."""
        match = self.matches.get(info.id)
        if audience == "umpire" or match is None or match.status not in ("active", "paused"):
            log.warning("match %s: messages to %s are held: %s", info.id, audience, for_hosts)
            return
        self._tell_hosts(match, (
            f"🔒 Match #{match.id}: messages to {_place_name(audience)} are held, not posted: "
            f"{for_hosts} They are kept and posted in order once it is fixed; " + (
                "the match goes on meanwhile." if audience == "feed" else
                "the clocks of the decisions waiting on it are stopped until then.")))

    def _prepare(self, info: MatchInfo, message: StoredMessage) -> StoredMessage:
        """The message as it is posted now: each deadline it shows (`{until:...}`) as the
        decision's clock will have it if the message arrives now (a late or held prompt's
        clock starts, or goes on, from its arrival), not as it was when it was written."""
        match = self.matches.get(info.id)
        if match is None or "{until:" not in message.text or match.status != "active":
            return message
        deadlines = deadline_keys(message.payload)
        if not deadlines:
            return message
        now = self.now()
        moved: dict[str, str] = {}
        for shown, keys in deadlines.items():
            live = [d for k in keys if (d := self._deadline_if_seen(match, k, now)) is not None]
            if not live:
                continue
            real = min(live)
            try:
                if abs((real - datetime.fromisoformat(shown)).total_seconds()) >= 1:
                    moved[shown] = real.isoformat()
            except ValueError:
                continue
        if not moved:
            return message
        return dataclasses.replace(message, text=moved_deadlines(message.text, moved))

    def _deadline_if_seen(self, match: LiveMatch, key: str, now: datetime) -> datetime | None:
        """The limit of a decision's clock if its prompt reached the player now."""
        clock = match.clocks.get(key)
        if clock is None or clock.status != "armed" or clock.limit_at is None:
            return None
        limit = clock.limit_at
        if (match.id, key) in self._held:  # undelivered: a late arrival starts it anew
            late = now - clock.started_at
            if late.total_seconds() > self.delivery_grace:
                limit += late
        return limit + self.stopped_for(match.id, key, now)

    def stopped_for(self, match_id: int, key: str, now: datetime) -> timedelta:
        """How long the decision's clock has been stopped so far (its channel is down): not
        charged, e.g. not in the seconds a decision took (`command.elapsed`)."""
        stop = self._stopped.get((match_id, key))
        return max(timedelta(0), now - stop.since) if stop is not None else timedelta(0)

    def _background(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _arm(self, match: LiveMatch) -> None:
        """Tell the scheduler the next due moment of every armed clock of the match."""
        prompts = {p.key: p for p in match.prompts}
        for key, clock in match.clocks.items():
            token = (match.id, key)
            prompt = prompts.get(key)
            if match.status != "active" or clock.status not in LIVE_CLOCKS or prompt is None \
                    or self._clock_stopped(match.id, key):
                self.scheduler.set(token, None)
                continue
            in_break = clock.status == "break"
            self.scheduler.set(token, clock.started_at if in_break else _next_due(prompt, clock))

    async def _on_due(self, token: Hashable) -> None:
        match_id, key = token  # type: ignore[misc]
        match = self.matches.get(match_id)
        if match is None or (match_id, key) in self._held or self._clock_stopped(match_id, key):
            return  # not delivered yet, or its channel is down: delivery re-arms it
        async with match.lock:
            if self._clock_stopped(match_id, key):
                return  # (stopped while this waited for the lock)
            try:
                await self._due(match, key)
            except NotStored:  # nothing took effect: the clock falls due again a bit later
                self.scheduler.set(token, self.now() + timedelta(seconds=STORE_RETRY_SECONDS))

    async def _due(self, match: LiveMatch, key: str) -> None:
        """`_on_due` under the match lock: end a break, send a reminder, or time out."""
        clock = match.clocks.get(key)
        prompt = next((p for p in match.prompts if p.key == key), None)
        if match.status != "active" or clock is None or clock.status not in LIVE_CLOCKS \
                or prompt is None:
            return  # stale: the decision was made, or the match paused or ended
        now = self.now()
        if clock.status == "break":
            if clock.started_at > now:
                self._arm(match)  # the break was extended (pause, extend): not yet
            else:
                await self._end_break(match, now)
            return
        due = _next_due(prompt, clock)
        if due is None or due > now:
            self._arm(match)  # re-armed since (pause, extend): not yet
            return
        reminders = reminder_times(prompt, clock)
        if clock.reminders_sent < len(reminders) and reminders[clock.reminders_sent][0] <= now:
            await self._remind(match, prompt, clock, reminders[clock.reminders_sent][1], now)
            return
        if prompt.on_timeout == OnTimeout.NOTHING:
            expired = dataclasses.replace(clock, status="expired")
            notice = OutboxData("umpire", f"⏰ {{P{prompt.seat}}} is over the time limit "
                                          f"for {prompt.kind}; you may award the bout or match.")
            await self._store(match, MatchWrite(match.id, match.seq, outbox=[notice],
                                                clocks_changed=[expired]), now)
            match.clocks[key] = expired
            return
        reply = await self._accept(match, prompt.seat, Timeout(prompt_key=key), "timeout")
        if not reply.accepted:  # the engine refused its own timeout: never fire again
            log.error("match %s refused the timeout of %s: %s", match.id, key, reply.message)
            expired = dataclasses.replace(clock, status="expired")
            await self._store(match, MatchWrite(match.id, match.seq,
                                                clocks_changed=[expired]), now)
            match.clocks[key] = expired

    async def _end_break(self, match: LiveMatch, now: datetime) -> None:
        """The break between rounds is over: post the decisions it held back; their clocks
        run from now (they were created to start at the break's end)."""
        ended = [dataclasses.replace(c, status="armed") for c in match.clocks.values()
                 if c.status == "break" and c.started_at <= now]
        keys = {c.key for c in ended}
        prompts = [p for p in match.prompts if p.key in keys]
        outbox = compose((), prompts, {c.key: c for c in ended},
                         status=match.game.status(match.state), met=self._met.get(match.id, ()))
        await self._store(match, MatchWrite(match.id, match.seq, outbox=outbox,
                                            clocks_changed=ended), now)
        self._explained(match.id, prompts)
        match.clocks.update((c.key, c) for c in ended)
        self._arm(match)
        self._schedule_bots(match)

    async def _remind(self, match: LiveMatch, prompt: Prompt, clock: ClockData, text: str,
                      now: datetime) -> None:
        reminded = dataclasses.replace(clock, reminders_sent=clock.reminders_sent + 1)
        place = f"seat{prompt.seat}" if prompt.private else "public"
        await self._store(match, MatchWrite(match.id, match.seq,
                                            outbox=[OutboxData(place, text)],
                                            clocks_changed=[reminded]), now)
        match.clocks[clock.key] = reminded
        self._arm(match)

    # --- built-in bots --------------------------------------------------------------------
    def _schedule_bots(self, match: LiveMatch) -> None:
        if match.status != "active":
            return
        for prompt in match.prompts:
            player = match.players[prompt.seat]
            key = (match.id, prompt.key)
            if player.bot is None or key in self._bot_tasks or _in_break(match, prompt.seat):
                continue
            self._start_bot(match.id, prompt.key, player.bot, self.bot_think)

    def _start_bot(self, match_id: int, key: str, bot_name: str, delay: float) -> None:
        task = asyncio.create_task(self._bot_move(match_id, key, bot_name, delay))
        token = (match_id, key)
        self._bot_tasks[token] = task
        task.add_done_callback(
            lambda t, k=token: self._bot_tasks.pop(k) if self._bot_tasks.get(k) is t else None)

    async def _bot_move(self, match_id: int, key: str, bot_name: str, delay: float) -> None:
        await asyncio.sleep(delay)
        match = self.matches.get(match_id)
        if match is None:
            return
        async with match.lock:
            # Unregister first: after this move the same prompt may stay open (a resubmittable
            # decision), and the bot must then be scheduled again.
            self._bot_tasks.pop((match_id, key), None)
            prompt = next((p for p in match.prompts if p.key == key), None)
            if prompt is None or match.status != "active" or _in_break(match, prompt.seat):
                return  # (a bot held back by the break is scheduled when it ends)
            tries = self._bot_tries.get((match_id, key), 0) + 1
            self._bot_tries[(match_id, key)] = tries
            try:
                await self._bot_step(match, prompt, bot_name, tries)
            except NotStored:  # nothing took effect: the bot tries the same move again later
                self._bot_tries[(match_id, key)] = tries - 1
                self._start_bot(match_id, key, bot_name, STORE_RETRY_SECONDS)

    async def _bot_step(self, match: LiveMatch, prompt: Prompt, bot_name: str,
                        tries: int) -> None:
        """The bot's move for `prompt` (under the match lock), or the decision's timeout
        outcome when a bot cannot settle it, rather than leaving the match waiting."""
        key = prompt.key
        rng = random.Random(f"{match.seed}:{match.seq}:{key}")
        command = self._bot_command(match, prompt, bot_name, rng) if tries <= 3 else None
        reply = await self._accept(match, prompt.seat, command, "bot") if command else None
        stuck = reply is None or not reply.accepted
        if stuck and prompt.on_timeout != OnTimeout.NOTHING and match.prompt_pending(key):
            await self._accept(match, prompt.seat, Timeout(prompt_key=key), "bot")

    def _bot_command(self, match: LiveMatch, prompt: Prompt, bot_name: str,
                     rng: random.Random) -> Command | None:
        """The bot's decision, or the game's random player if the bot fails or is illegal."""
        factory = self.resolve_bot(match.game, bot_name)
        if factory is not None:
            try:
                command = factory().choose(match.game.view(match.state, prompt.seat), prompt, rng)
                match.game.check(match.state, prompt.seat, command)
                return command
            except Exception:
                log.exception("bot %s failed in match %s; playing at random", bot_name, match.id)
        try:
            command = match.game.random_command(match.state, prompt, rng)
            match.game.check(match.state, prompt.seat, command)
            return command
        except Exception:
            log.exception("no legal random move for %s in match %s", prompt.key, match.id)
            return None

    # --- host actions ---------------------------------------------------------------------
    async def pause(self, match_id: int) -> None:
        match = self._get(match_id)
        async with match.lock:
            if match.status != "active":
                raise UmpireError(f"Match #{match_id} is {match.status}; only a running match "
                                  "can be paused.")
            now = self.now()
            await self._store(match, MatchWrite(match.id, match.seq, outbox=[OutboxData(
                "public", "⏸ The hosts paused the match: every clock is stopped.")],
                match_fields={"status": "paused", "paused_at": now}), now)
            match.status, match.paused_at = "paused", now
            self._arm(match)

    async def resume(self, match_id: int) -> None:
        match = self._get(match_id)
        async with match.lock:
            if match.status != "paused" or match.paused_at is None:
                raise UmpireError(f"Match #{match_id} is not paused.")
            now = self.now()
            gap = now - match.paused_at
            clocks = [_shifted(c, gap) for c in match.clocks.values()]
            stops = self._stops_of(match.id)  # a down channel's stop: the pause is moved
            for stop in stops.values():  # for already, not again
                stop.since = min(stop.since + gap, now)
            await self._store(match, MatchWrite(match.id, match.seq, outbox=[OutboxData(
                "public", "▶ The hosts resumed the match: clocks run again with the time they had.")],
                clocks_changed=clocks, stops=stops or None,
                match_fields={"status": "active", "paused_at": None}), now)
            match.clocks.update((c.key, c) for c in clocks)
            self._set_stops(match.id, stops)
            match.status, match.paused_at = "active", None
            self._arm(match)
            self._schedule_bots(match)

    async def extend(self, match_id: int, seconds: float, seat: int | None = None) -> None:
        """Give the pending decisions (of `seat`, or everyone) `seconds` more."""
        if not isinstance(seconds, (int, float)) or not 0 < seconds <= MAX_EXTEND:
            raise UmpireError(f"Extend by a positive number of seconds, at most {MAX_EXTEND:,} "
                              "(a day) at a time.")
        seconds = float(seconds)
        match = self._get(match_id)
        async with match.lock:
            if match.status not in ("active", "paused"):
                raise UmpireError(f"Match #{match_id} is over.")
            clocks = [_shifted(c, timedelta(seconds=seconds)) for c in match.clocks.values()
                      if seat is None or c.seat == seat]
            if not clocks:
                raise UmpireError("No clock is running for that.")
            who = "everyone" if seat is None else f"{{P{seat}}}"
            now = self.now()
            await self._store(match, MatchWrite(match.id, match.seq, outbox=[OutboxData(
                "public", f"⏱ The hosts gave {who} {int(seconds)} s more.")],
                clocks_changed=clocks), now)
            match.clocks.update((c.key, c) for c in clocks)
            self._arm(match)

    async def announce(self, match_id: int, text: str, *,
                       also: Sequence[Callable[[Connection], Any]] = ()) -> None:
        """A hosts' line in the public room of a running match, stored and delivered like
        every message, with `also`'s statements in the same transaction."""
        match = self._get(match_id)
        async with match.lock:
            if match.status not in ("active", "paused"):
                raise UmpireError(f"Match #{match_id} is over.")
            await self._store(match, MatchWrite(match.id, match.seq, outbox=[OutboxData(
                "public", text)], also=list(also)), self.now())

    async def expire(self, match_id: int) -> None:
        """End every pending clock now, applying each decision's timeout outcome (a host's
        "lock": e.g. Decoder setup)."""
        match = self._get(match_id)
        async with match.lock:
            if match.status != "active":
                raise UmpireError(f"Match #{match_id} is {match.status}.")
            for prompt in list(match.prompts):
                if prompt.key in {p.key for p in match.prompts} and \
                        prompt.on_timeout != OnTimeout.NOTHING and \
                        getattr(match.clocks.get(prompt.key), "status", "") != "break":
                    await self._accept(match, prompt.seat, Timeout(prompt_key=prompt.key), "host")

    async def repost(self, match_id: int, audience: str, since: datetime, *,
                     note: str = "") -> None:
        """A channel of the match was lost and made again: post the decisions open there
        again, and extend their clocks by the time since `since` (when it was lost), so the
        player is not charged for the gap."""
        match = self._get(match_id)
        async with match.lock:
            if match.status not in ("active", "paused"):
                return
            now = self.now()
            gap = max(timedelta(0), now - since)
            posted = [p for p in match.prompts
                      if getattr(match.clocks.get(p.key), "status", "") != "break"]
            prompts = [p for p in posted
                       if (f"seat{p.seat}" if p.private else "public") == audience]
            clocks = [_shifted(c, gap) for p in prompts
                      if (c := match.clocks.get(p.key)) is not None and c.status in LIVE_CLOCKS]
            # The room's message also says whose private decisions it waits for, as before.
            outbox = [o for o in compose((), posted, dict(match.clocks),
                                         status=match.game.status(match.state))
                      if o.audience == audience]
            if note:
                outbox.insert(0, OutboxData(audience, note))
            if not outbox and not clocks:
                return
            stops = self._stops_of(match.id)
            for clock in clocks:  # the gap covers the lost channel's down time: not twice
                stop = stops.get(clock.key)
                if stop is not None:
                    stop.channels.discard(audience)
                    if stop.channels:
                        stop.since = now
                    else:
                        del stops[clock.key]
            write = MatchWrite(match.id, match.seq, outbox=outbox, clocks_changed=clocks,
                               stops=stops if stops != self._stops_of(match.id) else None)
            try:
                ids = await self.repo.commit(write, now)
            except Exception as exc:
                log.warning("match %s: a repost was not stored: %s", match.id, exc)
                raise NotStored(NOT_STORED) from exc
            match.clocks.update((c.key, c) for c in clocks)
            self._set_stops(match.id, stops)
            for message_id, data in zip(ids, write.outbox, strict=True):
                # the clocks were extended by the gap: no second restart on delivery
                self.delivery.enqueue(match.info, StoredMessage(
                    id=message_id, match_id=match.id, seq=write.seq, audience=data.audience,
                    text=data.text, payload=data.payload, created_at=now))
            self._arm(match)

    async def abort(self, match_id: int, reason: str = "aborted by the hosts") -> None:
        await self._end(match_id, None, reason, status="aborted")

    async def award(self, match_id: int, seat: int, reason: str = "awarded by the hosts", *,
                    unit: str = "match") -> None:
        """Award the match, or a part of it the game offers (`Game.host_award_units`, e.g. a
        bout), to `seat`. A part is applied as a command of that seat, logged as the hosts'."""
        if seat not in (0, 1):
            raise UmpireError("Award the match to seat 0 or 1.")
        if unit == "match":
            await self._end(match_id, seat, reason, status="finished")
            return
        match = self._get(match_id)
        async with match.lock:
            if match.status != "active":
                raise UmpireError("Only a running match can have a part awarded"
                                  + (": resume it first." if match.status == "paused" else "."))
            try:
                command = match.game.host_award(match.state, seat, unit, reason)
            except IllegalMove as exc:
                raise UmpireError(str(exc)) from exc
            reply = await self._accept(match, seat, command, "host")
        if not reply.accepted:
            raise UmpireError(reply.message or "That award could not be applied.")

    async def _end(self, match_id: int, winner: int | None, reason: str, *, status: str) -> None:
        match = self._get(match_id)
        async with match.lock:
            if match.status not in ("active", "paused"):
                raise UmpireError(f"Match #{match_id} is already over.")
            now = self.now()
            result = {"winner": winner, "reason": reason, "score": None, "host": True}
            done = [dataclasses.replace(c, status="done") for c in match.clocks.values()]
            head = "🛑 The hosts aborted the match" if winner is None else \
                f"🏁 The hosts awarded the match to {{P{winner}}}"
            line = f"{head} ({reason}). {seed_reveal(match.seed, match.salt)}."
            ended = _as_ended(match, status, result)
            await self._store(match, MatchWrite(match.id, match.seq,
                                                outbox=[OutboxData("public", line,
                                                                   {"final": True}),
                                                        *self._feed_end(match)],
                                                clocks_changed=done,
                                                match_fields={"status": status,
                                                              "result": result,
                                                              "ended_at": now},
                                                also=[result_statement(ended, now),
                                                      *self._end_statements(ended, now)]),
                              now)
            match.status, match.result = status, result
            self._tell_ended(match)
            match.clocks.update((c.key, c) for c in done)
            match.prompts = []
            self.scheduler.clear(lambda t: isinstance(t, tuple) and t[0] == match_id)
            async with self._finished:
                self._finished.notify_all()

    # --- a match's end, for what is built on matches (tournaments) ------------------------
    def _end_statements(self, ended: LiveMatch, now: datetime) -> list[Callable[[Connection], Any]]:
        """What the end hooks store in the transaction of a match's result."""
        return [s for hook in self.end_hooks if (s := hook.statement(ended, now)) is not None]

    def _tell_ended(self, match: LiveMatch) -> None:
        """A match's end is stored: the end hooks hear of it (they must not wait on it)."""
        for hook in self.end_hooks:
            try:
                hook.ended(match)
            except Exception:
                log.exception("an end hook failed for match %s", match.id)

    @staticmethod
    def _feed_end(match: LiveMatch) -> list[OutboxData]:
        """The feed's reveals when the hosts end a match: the unit in progress is over."""
        if not has_feed(match.transport):
            return []
        return reveal_rows(match.game, match.state, match.state, True)

    # --- reading ---------------------------------------------------------------------------
    def _get(self, match_id: int) -> LiveMatch:
        match = self.matches.get(match_id)
        if match is None:
            raise UmpireError(f"There is no match #{match_id}.")
        return match

    def view(self, match_id: int, seat: int | None) -> dict[str, Any]:
        match = self._get(match_id)
        return match.game.view(match.state, seat).model_dump(mode="json")

    def describe(self, match_id: int, user_id: str) -> str:
        """What this person may know of the match (a player's own view; spectators' otherwise),
        for a player who asks: their pool, hand, tanks..."""
        match = self._get(match_id)
        seat = match.seat_of(user_id)
        text = match.game.describe(match.state, seat)
        return render_names(text, match.names)

    def status_text(self, match_id: int) -> str:
        """Whose decision it is and the clocks, names filled in (one pass)."""
        match = self._get(match_id)
        lines = [f"Match #{match.id}: {match.game.title}, {{P0}} vs {{P1}} "
                 f"({match.status}), {match.seq} actions."]
        for p in match.prompts:
            clock = match.clocks.get(p.key)
            left = ""
            if clock and clock.status == "break":
                left = ", after the break between rounds"
            elif clock and clock.limit_at:
                now = self.now()  # (a stopped or undelivered decision's clock: as it will be)
                limit = self._deadline_if_seen(match, p.key, now) or clock.limit_at
                secs = int((limit - now).total_seconds())
                left = f", {max(0, secs)} s left" + (f" + bank {int(p.bank)} s" if p.bank else "")
            what = p.kind.replace("_", " ") + (" in their table channel" if p.private else "")
            lines.append(f"Waiting for {{P{p.seat}}}: {what}{left}.")
        if match.result:
            winner = match.result.get("winner")
            who = "draw" if winner is None else f"{{P{winner}}} won"
            lines.append(f"Result: {who} ({match.result.get('reason')}).")
        return render_names("\n".join(lines), match.names)

    async def wait_finished(self, match_ids: Sequence[int], timeout: float | None = None) -> None:
        """Wait until every match in `match_ids` has ended."""
        async def done() -> None:
            async with self._finished:
                await self._finished.wait_for(lambda: all(
                    m not in self.matches or self.matches[m].status in ("finished", "aborted")
                    for m in match_ids))
        await asyncio.wait_for(done(), timeout)

    async def load(self, match_id: int) -> LiveMatch:
        """A match by id, loading an ended one from the store (only running matches are kept
        in memory across a restart)."""
        match = self.matches.get(match_id)
        if match is None:
            if not 0 < match_id < 2**63:  # beyond any stored id (and the database's integers)
                raise UmpireError(f"There is no match #{match_id}.")
            with _reading():
                stored = await self.repo.load_match(match_id)
            if stored is None:
                raise UmpireError(f"There is no match #{match_id}.")
            if stored.row.status in ("active", "paused") and \
                    not self._owns(getattr(stored.row, "shard", 0)):
                return LiveMatch.from_store(stored)  # another process umpires it: a copy
            match = self.matches.setdefault(match_id, LiveMatch.from_store(stored))
            if match.status in ("finished", "aborted"):
                self._retire(match_id)  # kept among the last ended matches, then forgotten
        return match

    async def export(self, match_id: int) -> dict[str, Any]:
        """The whole record: settings, players, actions, every message; the seed and the
        secrets only once the match has ended."""
        match = await self.load(match_id)
        ended = match.status in ("finished", "aborted")
        with _reading():
            actions = await self.repo.actions(match_id)
            messages = await self.repo.messages(match_id)
            row = next(iter(await self.repo.match_rows([match_id])), None)
        started = getattr(row, "created_at", None)
        finished = getattr(row, "ended_at", None)
        return {
            "match": match.id, "game": match.game.slug, "status": match.status,
            # as stored at the start: what the match commitment covers
            "players": row.players if row else [p.to_json() for p in match.players],
            "settings": row.settings if row else match.settings.model_dump(mode="json"),
            "started_at": started.isoformat() if started else None,
            "ended_at": finished.isoformat() if finished else None,
            "seed_commitment": match.commitment, "seed": match.seed if ended else None,
            "seed_salt": match.salt if ended else None,
            "match_commitment": getattr(row, "match_commitment", None),
            "result": match.result,
            "actions": [{"seq": a.seq, "seat": a.seat, "command": a.command, "source": a.source,
                         "at": a.created_at.isoformat()} for a in actions] if ended else
                       [{"seq": a.seq, "source": a.source, "at": a.created_at.isoformat()}
                        for a in actions],
            "messages": [{"id": m.id, "seq": m.seq, "audience": m.audience, "text": m.text,
                          "at": m.created_at.isoformat()}
                         for m in messages if ended or m.audience == "public"],
        }

    def export_json(self, record: dict[str, Any]) -> str:
        return json.dumps(record, indent=2, ensure_ascii=False)


#: What the host is told when the store could not take a new match (a full disk...).
NOT_STARTED = ("The match could not be started because the database could not store it "
               "(the bot's log says why); nothing was started, so try again in a moment.")


def _store_error(exc: BaseException) -> bool:
    """Did the database (not the rules) fail: SQLAlchemy, the drivers, the disk, a lock?"""
    import sqlite3

    from sqlalchemy.exc import SQLAlchemyError

    from bot.store.errors import StoreUnavailable

    return isinstance(exc, SQLAlchemyError | sqlite3.Error | StoreUnavailable | OSError) or \
        type(exc).__module__.startswith("asyncpg")


def _not_started(exc: BaseException) -> UmpireError:
    """A start the store failed, as the one sentence its host sees (the cause: in the log)."""
    log.error("could not store a new match", exc_info=exc)
    return UmpireError(NOT_STARTED)


def _break_seconds(match: LiveMatch, events: Sequence[Any]) -> float:
    """The break an event asks for (`pause_seconds`, e.g. between two rounds). A break is for
    the people at the table: between two built-in bots (the demo) there is none."""
    if all(p.bot is not None for p in match.players):
        return 0.0
    return max((float(e.data.get("pause_seconds", 0)) for e in events), default=0.0)


@contextlib.contextmanager
def _reading() -> Iterator[None]:
    """A read the store could not answer becomes one sentence for the person who asked."""
    try:
        yield
    except StoreUnavailable as exc:
        raise UmpireError("The umpire cannot reach its database right now; please try again "
                          "in a moment.") from exc


def _as_ended(match: LiveMatch, status: str, result: dict[str, Any] | None) -> LiveMatch:
    """The match as it will be once its end is stored, for the result's statement (which
    reads status and result), while the live match stays as it is until then."""
    ended = copy.copy(match)
    ended.status, ended.result = status, result
    return ended


def _shifted(clock: ClockData, delta: timedelta) -> ClockData:
    """A copy of `clock` moved `delta` later (the live clock changes once it is stored)."""
    moved = dataclasses.replace(clock)
    moved.shifted(delta)
    return moved


def _in_break(match: LiveMatch, seat: int) -> bool:
    """Whether every decision pending for `seat` waits for the end of a break."""
    clocks = [match.clocks.get(p.key) for p in match.prompts if p.seat == seat]
    return bool(clocks) and all(c is not None and c.status == "break" for c in clocks)


def _answered(pending: Sequence[Prompt], command: Command) -> Prompt:
    """The pending prompt a command answers (by key for a timeout, else the seat's prompt)."""
    if isinstance(command, Timeout):
        return next((p for p in pending if p.key == command.prompt_key), pending[0])
    return pending[0]


def _oldest_clock(match: LiveMatch, seat: int) -> ClockData | None:
    clocks = [c for c in match.clocks.values() if c.seat == seat and c.status == "armed"]
    return min(clocks, key=lambda c: c.started_at) if clocks else None


def _urgency(match: LiveMatch) -> tuple[int, datetime]:
    """Which dormant match to rebuild first: a bot's match, then by the soonest moment one of
    its clocks could need attention (a break's end, a decision's limit; reminders come
    before the limit, so the limit orders them too), paused matches last."""
    if match.status != "active":
        return (2, datetime.max.replace(tzinfo=None))
    if any(p.bot for p in match.players):
        return (0, datetime.min)
    soonest = [c.started_at if c.status == "break" else (c.limit_at or c.deadline_at)
               for c in match.clocks.values()]
    known = [t.replace(tzinfo=None) for t in soonest if t is not None]
    return (1, min(known)) if known else (1, datetime.max)


def _next_due(prompt: Prompt, clock: ClockData) -> datetime | None:
    """The next moment this clock needs attention: its next reminder, else its deadline."""
    reminders = reminder_times(prompt, clock)
    if clock.reminders_sent < len(reminders):
        return reminders[clock.reminders_sent][0]
    return clock.deadline_at


def _place(prompt: Prompt) -> str:
    """The audience (channel) a decision is asked in."""
    return f"seat{prompt.seat}" if prompt.private else "public"


def _depends_on(prompt: Prompt, audience: str) -> bool:
    """Whether a decision waits on a channel: the one it is asked in, and the game room for
    every decision (what happens in the match is told there). Not the host log."""
    return audience == "public" or audience == _place(prompt)


def _place_name(audience: str) -> str:
    """A channel as the hosts call it ({P<seat>} filled in by the transport)."""
    return {"public": "the game room", "umpire": "the host log",
            "feed": "the spectator feed"}.get(
        audience, f"the table channel of {{P{audience[4:]}}}")


def _row_info(row: Any) -> MatchInfo:
    """Who plays where, from a stored match row (no state is rebuilt)."""
    return MatchInfo(id=row.id, game=row.game,
                     players=tuple(PlayerRef.from_json(p) for p in row.players),
                     transport=dict(row.transport or {}))


def _validation_text(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors())
