"""The clock keeper: when each decision's clock falls due (a reminder, the end of a break,
a timeout), when it starts (its prompt delivered, late or not), and its stops while a
channel it depends on is down."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Coroutine, Hashable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from bot.clock import Scheduler, TimeSource
from bot.delivery import Delivery
from bot.live import LiveMatch
from bot.messages import compose, deadline_keys, moved_deadlines, reminder_times
from bot.service.errors import STORE_RETRY_SECONDS, NotStored
from bot.service.table import MatchTable
from bot.service.types import Accept, Store
from bot.status import LIVE, ClockStatus, MatchStatus
from bot.store.repository import ClockData, MatchWrite, OutboxData, StopData, StoredMessage
from bot.transport import MatchInfo, render_names
from games.core import Prompt, Timeout
from games.core.contract import OnTimeout

log = logging.getLogger(__name__)

#: A channel down at least this long (seconds) is reported to the hosts when it is back
#: (shorter blips, a retried 5xx, stop the clocks all the same).
REPORT_DOWN_AFTER = 1.0


class ClockKeeper:
    """Runs every decision's clock of the matches in `table`: arms the scheduler, acts when
    a clock falls due (through `store` and `accept`), and listens to `delivery` for
    prompts that arrive and channels that go down or come back. `posted(match)` is told
    when decisions held back by a break are posted (their bots may move)."""

    def __init__(self, table: MatchTable, now: TimeSource, delivery: Delivery, *,
                 store: Store, accept: Accept, posted: Callable[[LiveMatch], None]) -> None:
        self.table = table
        self.matches = table.matches
        self.now = now
        self.delivery = delivery
        self.store = store
        self.accept = accept
        self.posted = posted
        delivery.on_delivered = self.delivered
        delivery.on_stalled = self.stalled
        delivery.on_down = self.channel_down
        delivery.on_up = self.channel_up
        delivery.on_held = self.channel_held
        delivery.prepare = self.prepare
        self.scheduler = Scheduler(now, self.on_due)
        #: A decision's clock starts when the message asking for it is delivered: outbox id ->
        #: (match id, prompt keys) until then, and the keys held back from timing out.
        self.unseen: dict[int, tuple[int, tuple[str, ...]]] = {}
        self.held: set[tuple[int, str]] = set()
        #: Decisions whose clocks are stopped because a channel they depend on is down:
        #: (match id, prompt key) -> since when, and which channels hold it (`channel_down`).
        self.stopped: dict[tuple[int, str], StopData] = {}
        #: Stops read back from the store on a restart, not yet re-checked (`reinstate_stops`).
        self.restored: set[int] = set()
        self.delivery_grace = 1.0  # a later delivery than this starts the clock anew
        #: When the clocks were shifted for the downtime (they run from then); None before.
        self.shifted_at: datetime | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    def forget(self, gone: set[int], *, unseen: bool = True) -> None:
        """Forget the clocks of these matches (ended, or their shards lost); `unseen`: also
        the prompts not delivered yet."""
        self.scheduler.clear(lambda t: isinstance(t, tuple) and t[0] in gone)
        for stopped in [k for k in self.stopped if k[0] in gone]:
            del self.stopped[stopped]
        if unseen:
            for message_id in [i for i, (m, _) in self.unseen.items() if m in gone]:
                del self.unseen[message_id]
            self.held = {h for h in self.held if h[0] not in gone}

    @staticmethod
    def new_clock(prompt: Prompt, now: datetime) -> ClockData:
        limit = (now + timedelta(seconds=prompt.time_limit)
                 if prompt.time_limit is not None else None)  # 0: the bank runs at once
        deadline = limit + timedelta(seconds=prompt.bank or 0) if limit else None
        return ClockData(key=prompt.key, seat=prompt.seat, started_at=now, limit_at=limit,
                         deadline_at=deadline)

    def background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def later(self, work: Awaitable[None]) -> None:
        """`work` after `STORE_RETRY_SECONDS`: a clock write the store could not take."""
        await asyncio.sleep(STORE_RETRY_SECONDS)
        await work

    # --- delivery: a decision's clock starts when its prompt arrives -----------------------
    def hold(self, match_id: int, message_id: int, payload: Mapping[str, Any]) -> None:
        """Hold back the clocks of the decisions a message asks for until it is delivered."""
        keys = tuple(str(p["key"]) for p in payload.get("prompts") or ())
        if keys:
            self.unseen[message_id] = (match_id, keys)
            self.held.update((match_id, k) for k in keys)

    def delivered(self, info: MatchInfo, message: StoredMessage, at: datetime,
                  delivered: bool = True) -> None:
        """A message reached its channel: the decisions it asks for may be timed now. One
        that arrived late (an outage, a rate limit) starts its clock from this moment. A
        message given up on (an unreachable channel: the hosts were told) releases its
        clocks as they were, so the match is never held forever."""
        found = self.unseen.pop(message.id, None)
        if found is None:
            return
        match_id, keys = found
        self.held.difference_update((match_id, k) for k in keys)
        match = self.matches.get(match_id)
        if match is None:
            return
        if self.shifted_at is None:
            return  # (a held start: the shift for the downtime will cover this arrival)
        if delivered:
            self.stop_while_down(match, keys, at)
        if delivered and any(self.late(match, k, at) for k in keys):
            self.background(self.start_late(match, keys, at))
        else:
            self.arm(match)

    def late(self, match: LiveMatch, key: str, at: datetime) -> ClockData | None:
        clock = match.clocks.get(key)
        if clock is None or clock.status != ClockStatus.ARMED or \
                match.status != MatchStatus.ACTIVE:
            return None
        late = (at - clock.started_at).total_seconds() > self.delivery_grace
        return clock if late else None

    async def start_late(self, match: LiveMatch, keys: Sequence[str], at: datetime) -> None:
        """Late prompts' clocks start from their arrival `at`: stored, then made live (a
        write that fails is tried again after `STORE_RETRY_SECONDS`)."""
        async with match.lock:
            late = [c for k in keys if (c := self.late(match, k, at)) is not None]
            clocks = [shifted(c, at - c.started_at) for c in late]
            kinds = {p.key: p.kind for p in match.prompts}
            notes = [OutboxData("umpire", (
                f"⏱ The decision of {{P{c.seat}}} ({kinds.get(c.key, c.key)}) reached its "
                f"channel {int((at - old.started_at).total_seconds())} s late: its clock "
                "starts from then.")) for c, old in zip(clocks, late, strict=True)]
            if clocks:
                try:
                    await self.store(match, MatchWrite(match.id, match.seq, outbox=notes,
                                                       clocks_changed=clocks), self.now())
                except NotStored:
                    self.background(self.later(self.start_late(match, keys, at)))
                    return
                match.clocks.update((c.key, c) for c in clocks)
            self.arm(match)

    def stalled(self, info: MatchInfo, audience: str, seconds: float) -> None:
        """A channel has been failing for a while: tell the hosts once (in the host log,
        unless the log is the channel that fails)."""
        match = self.matches.get(info.id)
        if match is None or audience == "umpire" or not match.running:
            return
        self.tell_hosts(match, (
            f"⚠️ Match #{match.id}: nothing has gone through to {place_name(audience)} for "
            f"{int(seconds)} s (Discord refuses or rate-limits the bot). The messages are kept "
            "and retried until they arrive, in order; the clocks of the decisions waiting on "
            "it are stopped until then."))

    def tell_hosts(self, match: LiveMatch, text: str) -> None:
        """A line in the host log of the match, stored and delivered like every message."""
        async def tell() -> None:
            async with match.lock:
                try:
                    await self.store(match, MatchWrite(match.id, match.seq,
                                                       outbox=[OutboxData("umpire", text)]),
                                     self.now())
                except NotStored:
                    self.background(self.later(tell()))
        self.background(tell())

    # --- channels that fail: clocks stopped, hosts told -------------------------------------
    def clock_stopped(self, match_id: int, key: str) -> bool:
        """Whether the decision's clock is stopped because a channel it depends on is down."""
        return (match_id, key) in self.stopped

    def stops_of(self, match_id: int, *, live: bool = False) -> dict[str, StopData]:
        """The match's clock stops by prompt key: copies to change, store, then apply
        (`set_stops`), or (`live`) the live ones."""
        return {k[1]: s if live else StopData(s.since, set(s.channels))
                for k, s in self.stopped.items() if k[0] == match_id}

    def set_stops(self, match_id: int, stops: Mapping[str, StopData]) -> None:
        """Make the stored `stops` the match's live ones (their clocks re-armed by `arm`)."""
        for key in [k for k in self.stopped if k[0] == match_id]:
            del self.stopped[key]
        self.stopped.update(((match_id, k), s) for k, s in stops.items())

    def restore_stops(self, match_id: int, stops: Mapping[str, StopData]) -> None:
        """A resumed match's stored stops are live at once (its clocks stay stopped); their
        channels are re-checked once the clocks are shifted (`reinstate_stops`)."""
        if stops:
            self.set_stops(match_id, stops)
            self.restored.add(match_id)

    def reinstate_stops(self) -> None:
        """After a restart: a stored stop goes on while its channel still has messages to
        send (the first that goes through ends it, like any down spell: `channel_up`); a
        channel with nothing left to send has nothing held, so its stops end now."""
        restored, self.restored = self.restored, set()
        now = self.now()
        for match_id in sorted(restored):
            match = self.matches.get(match_id)
            if match is None:
                continue
            since: dict[str, datetime] = {}
            for stop in self.stops_of(match_id, live=True).values():
                for audience in stop.channels:
                    since[audience] = min(since.get(audience, stop.since), stop.since)
            for audience, first in sorted(since.items()):
                if self.delivery.sending(match_id, audience):
                    self.delivery.mark_down(match_id, audience, first)
                else:
                    self.channel_up(match.info, audience, first, now)

    def channel_down(self, info: MatchInfo, audience: str, since: datetime,
                     error: Exception) -> None:
        """A channel's sends began failing at `since`: the clocks of the decisions that
        depend on it stop (`depends_on`). Those whose prompt has not arrived yet wait for
        it anyway (`hold`). They go on, with the time they had, when it is back."""
        match = self.matches.get(info.id)
        if match is None or not match.running:
            return
        self.background(self.stop_clocks(match, audience, since))

    def stop_while_down(self, match: LiveMatch, keys: Sequence[str], at: datetime) -> None:
        """Decisions whose prompt arrived while another channel they depend on is down (the
        game room) stop from their arrival, like those asked before it went down."""
        prompts = {p.key: p for p in match.prompts}
        for audience in sorted({"public", *(place(p) for k in keys
                                            if (p := prompts.get(k)) is not None)}):
            if self.delivery.down_since(match.id, audience) is not None:
                self.background(self.stop_clocks(match, audience, at, keys))

    async def stop_clocks(self, match: LiveMatch, audience: str, since: datetime,
                          keys: Sequence[str] | None = None) -> None:
        """Stop, from `since`, the clocks of the decisions (`keys`: of these only) that
        depend on the down channel `audience`: the stops are stored first, then in effect
        (a write the store could not take is tried again after `STORE_RETRY_SECONDS`)."""
        async with match.lock:
            if not match.running or self.delivery.down_since(match.id, audience) is None:
                return  # (back already: nothing to stop)
            stops = self.stops_of(match.id)
            for prompt in match.prompts:
                if (keys is not None and prompt.key not in keys) or \
                        not depends_on(prompt, audience) or \
                        (match.id, prompt.key) in self.held or \
                        getattr(match.clocks.get(prompt.key), "status", "") != ClockStatus.ARMED:
                    continue
                stops.setdefault(prompt.key, StopData(since)).channels.add(audience)
            if stops == self.stops_of(match.id):
                return
            try:
                await self.store(match, MatchWrite(match.id, match.seq, stops=stops),
                                 self.now())
            except NotStored:
                self.background(self.later(self.stop_clocks(match, audience, since, keys)))
                return
            self.set_stops(match.id, stops)
            self.arm(match)

    def channel_up(self, info: MatchInfo, audience: str, since: datetime,
                   at: datetime) -> None:
        """A channel that was down took a message again: the clocks it alone stopped go on,
        moved later by the time they were stopped, and the hosts are told how long it was."""
        match = self.matches.get(info.id)
        if match is None:
            return
        self.background(self.restart_clocks(match, audience, since, at))

    async def restart_clocks(self, match: LiveMatch, audience: str, since: datetime,
                             at: datetime) -> None:
        """The clocks that `audience` alone held go on, moved later by the time they were
        stopped; the stops' end and the moved clocks are stored, then made live (a write
        the store could not take is tried again after `STORE_RETRY_SECONDS`, the clocks
        still stopped meanwhile)."""
        async with match.lock:
            stops = self.stops_of(match.id)
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
                if clock is not None and clock.status == ClockStatus.ARMED and \
                        match.prompt_pending(key):
                    clocks.append(shifted(clock, gap))
            outbox = []
            seconds = (at - since).total_seconds()
            if seconds >= REPORT_DOWN_AFTER:
                what = ("the clocks waiting on it were stopped for that time" if touched else
                        "no clock was waiting on it")
                line = (f"📶 Match #{match.id}: {place_name(audience)} could not be reached "
                        f"for {round(seconds)} s; {what}.")
                if audience == "umpire":  # not in the log that failed: in the log file
                    log.warning("%s", render_names(line, match.names))
                elif match.running:
                    outbox.append(OutboxData("umpire", line))
            if clocks or outbox or touched:
                try:
                    await self.store(match, MatchWrite(
                        match.id, match.seq, outbox=outbox, clocks_changed=clocks,
                        stops=stops if touched else None), self.now())
                except NotStored:
                    self.background(self.later(self.restart_clocks(
                        match, audience, since, at)))
                    return
            match.clocks.update((c.key, c) for c in clocks)
            if touched:
                self.set_stops(match.id, stops)
            self.arm(match)

    def channel_held(self, info: MatchInfo, audience: str, for_hosts: str) -> None:
        """The transport holds a channel's messages (its readers are wrong, or the bot lost
        access): tell the hosts at once, in the host log (in the log file when the held
        channel is the host log itself). Nothing of the held channel goes anywhere else."""
        match = self.matches.get(info.id)
        if audience == "umpire" or match is None or not match.running:
            log.warning("match %s: messages to %s are held: %s", info.id, audience, for_hosts)
            return
        self.tell_hosts(match, (
            f"🔒 Match #{match.id}: messages to {place_name(audience)} are held, not posted: "
            f"{for_hosts} They are kept and posted in order once it is fixed; " + (
                "the match goes on meanwhile." if audience == "feed" else
                "the clocks of the decisions waiting on it are stopped until then.")))

    def prepare(self, info: MatchInfo, message: StoredMessage) -> StoredMessage:
        """The message as it is posted now: each deadline it shows (`{until:...}`) as the
        decision's clock will have it if the message arrives now (a late or held prompt's
        clock starts, or goes on, from its arrival), not as it was when it was written."""
        match = self.matches.get(info.id)
        if match is None or "{until:" not in message.text or \
                match.status != MatchStatus.ACTIVE:
            return message
        deadlines = deadline_keys(message.payload)
        if not deadlines:
            return message
        now = self.now()
        moved: dict[str, str] = {}
        for shown, keys in deadlines.items():
            live = [d for k in keys if (d := self.deadline_if_seen(match, k, now)) is not None]
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

    def deadline_if_seen(self, match: LiveMatch, key: str, now: datetime) -> datetime | None:
        """The limit of a decision's clock if its prompt reached the player now."""
        clock = match.clocks.get(key)
        if clock is None or clock.status != ClockStatus.ARMED or clock.limit_at is None:
            return None
        limit = clock.limit_at
        if (match.id, key) in self.held:  # undelivered: a late arrival starts it anew
            late = now - clock.started_at
            if late.total_seconds() > self.delivery_grace:
                limit += late
        return limit + self.stopped_for(match.id, key, now)

    def stopped_for(self, match_id: int, key: str, now: datetime) -> timedelta:
        """How long the decision's clock has been stopped so far (its channel is down): not
        charged, e.g. not in the seconds a decision took (`command.elapsed`)."""
        stop = self.stopped.get((match_id, key))
        return max(timedelta(0), now - stop.since) if stop is not None else timedelta(0)

    # --- falling due: a reminder, a break's end, a timeout ----------------------------------
    def arm(self, match: LiveMatch) -> None:
        """Tell the scheduler the next due moment of every armed clock of the match."""
        prompts = {p.key: p for p in match.prompts}
        for key, clock in match.clocks.items():
            token = (match.id, key)
            prompt = prompts.get(key)
            if match.status != MatchStatus.ACTIVE or clock.status not in LIVE or \
                    prompt is None or self.clock_stopped(match.id, key):
                self.scheduler.set(token, None)
                continue
            in_break = clock.status == ClockStatus.BREAK
            self.scheduler.set(token, clock.started_at if in_break else next_due(prompt, clock))

    async def on_due(self, token: Hashable) -> None:
        match_id, key = token  # type: ignore[misc]
        match = self.matches.get(match_id)
        if match is None or (match_id, key) in self.held or self.clock_stopped(match_id, key):
            return  # not delivered yet, or its channel is down: delivery re-arms it
        async with match.lock:
            if self.clock_stopped(match_id, key):
                return  # (stopped while this waited for the lock)
            try:
                await self.due(match, key)
            except NotStored:  # nothing took effect: the clock falls due again a bit later
                self.scheduler.set(token, self.now() + timedelta(seconds=STORE_RETRY_SECONDS))

    async def due(self, match: LiveMatch, key: str) -> None:
        """`on_due` under the match lock: end a break, send a reminder, or time out."""
        clock = match.clocks.get(key)
        prompt = next((p for p in match.prompts if p.key == key), None)
        if match.status != MatchStatus.ACTIVE or clock is None or clock.status not in LIVE \
                or prompt is None:
            return  # stale: the decision was made, or the match paused or ended
        now = self.now()
        if clock.status == ClockStatus.BREAK:
            if clock.started_at > now:
                self.arm(match)  # the break was extended (pause, extend): not yet
            else:
                await self.end_break(match, now)
            return
        due = next_due(prompt, clock)
        if due is None or due > now:
            self.arm(match)  # re-armed since (pause, extend): not yet
            return
        reminders = reminder_times(prompt, clock)
        if clock.reminders_sent < len(reminders) and reminders[clock.reminders_sent][0] <= now:
            await self.remind(match, prompt, clock, reminders[clock.reminders_sent][1], now)
            return
        if prompt.on_timeout == OnTimeout.NOTHING:
            expired = dataclasses.replace(clock, status=ClockStatus.EXPIRED)
            notice = OutboxData("umpire", f"⏰ {{P{prompt.seat}}} is over the time limit "
                                          f"for {prompt.kind}; you may award the bout or match.")
            await self.store(match, MatchWrite(match.id, match.seq, outbox=[notice],
                                               clocks_changed=[expired]), now)
            match.clocks[key] = expired
            return
        reply = await self.accept(match, prompt.seat, Timeout(prompt_key=key), "timeout")
        if not reply.accepted:  # the engine refused its own timeout: never fire again
            log.error("match %s refused the timeout of %s: %s", match.id, key, reply.message)
            expired = dataclasses.replace(clock, status=ClockStatus.EXPIRED)
            await self.store(match, MatchWrite(match.id, match.seq,
                                               clocks_changed=[expired]), now)
            match.clocks[key] = expired

    async def end_break(self, match: LiveMatch, now: datetime) -> None:
        """The break between rounds is over: post the decisions it held back; their clocks
        run from now (they were created to start at the break's end)."""
        ended = [dataclasses.replace(c, status=ClockStatus.ARMED) for c in match.clocks.values()
                 if c.status == ClockStatus.BREAK and c.started_at <= now]
        keys = {c.key for c in ended}
        prompts = [p for p in match.prompts if p.key in keys]
        outbox = compose((), prompts, {c.key: c for c in ended},
                         status=match.game.status(match.state),
                         met=self.table.met.get(match.id, ()))
        await self.store(match, MatchWrite(match.id, match.seq, outbox=outbox,
                                           clocks_changed=ended), now)
        self.table.explained(match.id, prompts)
        match.clocks.update((c.key, c) for c in ended)
        self.arm(match)
        self.posted(match)

    async def remind(self, match: LiveMatch, prompt: Prompt, clock: ClockData, text: str,
                     now: datetime) -> None:
        reminded = dataclasses.replace(clock, reminders_sent=clock.reminders_sent + 1)
        await self.store(match, MatchWrite(match.id, match.seq,
                                           outbox=[OutboxData(place(prompt), text)],
                                           clocks_changed=[reminded]), now)
        match.clocks[clock.key] = reminded
        self.arm(match)


def shifted(clock: ClockData, delta: timedelta) -> ClockData:
    """A copy of `clock` moved `delta` later (the live clock changes once it is stored)."""
    moved = dataclasses.replace(clock)
    moved.shifted(delta)
    return moved


def in_break(match: LiveMatch, seat: int) -> bool:
    """Whether every decision pending for `seat` waits for the end of a break."""
    clocks = [match.clocks.get(p.key) for p in match.prompts if p.seat == seat]
    return bool(clocks) and all(c is not None and c.status == ClockStatus.BREAK
                                for c in clocks)


def next_due(prompt: Prompt, clock: ClockData) -> datetime | None:
    """The next moment this clock needs attention: its next reminder, else its deadline."""
    reminders = reminder_times(prompt, clock)
    if clock.reminders_sent < len(reminders):
        return reminders[clock.reminders_sent][0]
    return clock.deadline_at


def place(prompt: Prompt) -> str:
    """The audience (channel) a decision is asked in."""
    return f"seat{prompt.seat}" if prompt.private else "public"


def depends_on(prompt: Prompt, audience: str) -> bool:
    """Whether a decision waits on a channel: the one it is asked in, and the game room for
    every decision (what happens in the match is told there). Not the host log."""
    return audience == "public" or audience == place(prompt)


def place_name(audience: str) -> str:
    """A channel as the hosts call it ({P<seat>} filled in by the transport)."""
    return {"public": "the game room", "umpire": "the host log",
            "feed": "the spectator feed"}.get(
        audience, f"the table channel of {{P{audience[4:]}}}")
