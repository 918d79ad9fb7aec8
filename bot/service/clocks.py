"""The clock keeper: when each decision's clock starts (its prompt delivered, late or
not) and when it falls due (a reminder, the end of a break, a timeout). Its stops while a
channel is down are kept by `bot.service.stops`."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from bot.clock import Scheduler, TimeSource
from bot.delivery import Delivery
from bot.live import LiveMatch
from bot.messages import (
    compose,
    deadline_keys,
    decision_label,
    moved_deadlines,
    reminder_times,
)
from bot.service.errors import STORE_RETRY_SECONDS, NotStored
from bot.service.fixes import FixDue, FixWindows
from bot.service.stops import Background, ChannelStops, place, shifted
from bot.service.table import MatchTable
from bot.service.types import Accept, Store
from bot.status import LIVE, ClockStatus, MatchStatus
from bot.store.repository import ClockData, MatchWrite, OutboxData, StoredMessage
from bot.transport import MatchInfo
from games.core import Prompt, Timeout
from games.core.contract import OnTimeout

log = logging.getLogger(__name__)


class ClockKeeper:
    """Runs every decision's clock of the matches in `table`: arms the scheduler and acts
    when a clock falls due (through `store` and `accept`). It listens to `delivery`: a
    prompt that arrives starts its clock; a channel that goes down or comes back stops or
    restarts the clocks that wait on it (`stops`). `posted(match)` is told when decisions
    held back by a break are posted (their bots may move)."""

    def __init__(self, table: MatchTable, now: TimeSource, delivery: Delivery, *,
                 store: Store, accept: Accept, posted: Callable[[LiveMatch], None]) -> None:
        self.table = table
        self.matches = table.matches
        self.now = now
        self.delivery = delivery
        self.store = store
        self.accept = accept
        self.posted = posted
        self.scheduler = Scheduler(now, self.on_due)
        #: A decision's clock starts when the message asking for it is delivered: outbox id ->
        #: (match id, prompt keys) until then, and the keys held back from timing out.
        self.unseen: dict[int, tuple[int, tuple[str, ...]]] = {}
        self.held: set[tuple[int, str]] = set()
        self.delivery_grace = 1.0  # a later delivery than this starts the clock anew
        #: When the clocks were shifted for the downtime (they run from then); None before.
        self.shifted_at: datetime | None = None
        self.background = Background()
        #: Whether this process may act on the match now (sharded: its shard's lease, by
        #: the wall clock: bot/store/fence.py); asked before a clock acts.
        self.acting: Callable[[LiveMatch], bool] = lambda match: True
        self.stops = ChannelStops(self.matches, now, delivery, store=store, arm=self.arm,
                                  held=self.held, tasks=self.background)
        #: Moves waiting in their fix window (Decoder's prompt fix): their deciders' clocks
        #: stand still; `take_fixed` (the command path's) takes each when its window closes.
        self.fixes = FixWindows(self.scheduler)
        self.take_fixed: Callable[[FixDue], Awaitable[None]] | None = None
        delivery.on_delivered = self.delivered
        delivery.prepare = self.prepare
        delivery.on_stalled = self.stops.stalled
        delivery.on_down = self.stops.channel_down
        delivery.on_up = self.stops.channel_up
        delivery.on_held = self.stops.channel_held

    def forget(self, gone: set[int], *, unseen: bool = True) -> None:
        """Forget the clocks of these matches (ended, or their shards lost); `unseen`: also
        the prompts not delivered yet."""
        self.scheduler.clear(lambda t: isinstance(t, tuple) and t[0] in gone)
        self.stops.forget(gone)
        self.fixes.forget(gone)
        if unseen:
            for message_id in [i for i, (m, _) in self.unseen.items() if m in gone]:
                del self.unseen[message_id]
            self.held.difference_update({h for h in self.held if h[0] in gone})

    @staticmethod
    def new_clock(prompt: Prompt, now: datetime) -> ClockData:
        limit = (now + timedelta(seconds=prompt.time_limit)
                 if prompt.time_limit is not None else None)  # 0: the bank runs at once
        deadline = limit + timedelta(seconds=prompt.bank or 0) if limit else None
        return ClockData(key=prompt.key, seat=prompt.seat, started_at=now, limit_at=limit,
                         deadline_at=deadline)

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
            self.stops.stop_while_down(match, keys, at)
        if delivered and any(self.late(match, k, at) for k in keys):
            self.background.start(self.start_late(match, keys, at), match.id)
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
            kinds = {p.key: decision_label(p) for p in match.prompts}
            notes = [OutboxData("umpire", (
                f"⏱ The decision of {{P{c.seat}}} ({kinds.get(c.key, 'a decision')}) reached "
                f"its channel {int((at - old.started_at).total_seconds())} s late: its clock "
                "starts from then.")) for c, old in zip(clocks, late, strict=True)]
            if clocks:
                try:
                    await self.store(match, MatchWrite(match.id, match.seq, outbox=notes,
                                                       clocks_changed=clocks), self.now())
                except NotStored:
                    retry = self.background.later(self.start_late(match, keys, at))
                    self.background.start(retry, match.id)
                    return
                match.clocks.update((c.key, c) for c in clocks)
            self.arm(match)

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
        return limit + self.stops.stopped_for(match.id, key, now)

    # --- falling due: a reminder, a break's end, a timeout ----------------------------------
    def arm(self, match: LiveMatch) -> None:
        """Tell the scheduler the next due moment of every armed clock of the match."""
        prompts = {p.key: p for p in match.prompts}
        for key, clock in match.clocks.items():
            token = (match.id, key)
            prompt = prompts.get(key)
            if match.status != MatchStatus.ACTIVE or clock.status not in LIVE or \
                    prompt is None or self.standing(match.id, key):
                self.scheduler.set(token, None)
                continue
            in_break = clock.status == ClockStatus.BREAK
            self.scheduler.set(token, clock.started_at if in_break else next_due(prompt, clock))

    def standing(self, match_id: int, key: str) -> bool:
        """Whether a decision's clock stands still: a channel it depends on is down, or a move
        for it waits in its fix window."""
        return self.stops.clock_stopped(match_id, key) or self.fixes.holds(match_id, key)

    async def on_due(self, token: Hashable) -> None:
        if isinstance(token, FixDue):  # a move's fix window closes: it is taken now
            if self.take_fixed is not None:
                await self.take_fixed(token)
            return
        match_id, key = cast(tuple[int, str], token)  # (else a decision's clock)
        match = self.matches.get(match_id)
        if match is None or (match_id, key) in self.held or self.standing(match_id, key) \
                or not self.acting(match):
            return  # not delivered yet, its channel is down, a move waits, or shard lost
        async with match.lock:
            if self.standing(match_id, key) or not self.acting(match):
                return  # (stopped, or its shard lost, while this waited for the lock)
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
        if self.stops.waits_on_down_channel(match, prompt):
            return  # its channel is down: its stop (stored, or retried) holds the clock
        reminders = reminder_times(prompt, clock)
        if clock.reminders_sent < len(reminders) and reminders[clock.reminders_sent][0] <= now:
            await self.remind(match, prompt, clock, reminders[clock.reminders_sent][1], now)
            return
        if prompt.on_timeout == OnTimeout.NOTHING:
            expired = dataclasses.replace(clock, status=ClockStatus.EXPIRED)
            notice = OutboxData("umpire", f"⏰ {{P{prompt.seat}}} is over the time limit "
                                          f"({decision_label(prompt)}); you may award the "
                                          "bout or match.")
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
