"""The clocks stopped while a channel is down: a decision is not timed while the channel it
is asked in, or the game room, cannot be reached (Discord refuses, rate-limits, or the bot
lost access); it goes on with the time it had once the channel is back, and the hosts are
told of long spells in the host log."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from bot.clock import TimeSource
from bot.delivery import Delivery
from bot.live import LiveMatch
from bot.service.errors import STORE_RETRY_SECONDS, NotStored
from bot.service.types import Store
from bot.status import ClockStatus
from bot.store.repository import ClockData, MatchWrite, OutboxData, StopData
from bot.transport import MatchInfo, render_names
from games.core import Prompt

log = logging.getLogger(__name__)

#: A channel down at least this long (seconds) is reported to the hosts when it is back
#: (shorter blips, a retried 5xx, stop the clocks all the same).
REPORT_DOWN_AFTER = 1.0


class Background:
    """Work started and not waited for (a clock's write, a line to the hosts): its tasks are
    kept until done, so none is collected half-way, and cancelled when the service stops."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[None]] = set()
        self._of: dict[asyncio.Task[None], int] = {}  # the match a task works for

    def start(self, work: Coroutine[Any, Any, None], match_id: int | None = None) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        if match_id is not None:
            self._of[task] = match_id
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        self._of.pop(task, None)

    def cancel(self, gone: set[int]) -> list[asyncio.Task[None]]:
        """Cancel the work of these matches (their shard was dropped); its tasks."""
        tasks = [task for task, match_id in self._of.items() if match_id in gone]
        for task in tasks:
            task.cancel()
        return tasks

    async def later(self, work: Awaitable[None]) -> None:
        """`work` after `STORE_RETRY_SECONDS`: a clock write the store could not take. Cancelled
        while it waits (the match's shard dropped, the service stopping), `work` is closed
        unrun (not left for the collector to warn of as never awaited)."""
        try:
            await asyncio.sleep(STORE_RETRY_SECONDS)
        except BaseException:
            if isinstance(work, Coroutine):
                work.close()
            raise
        await work


class ChannelStops:
    """The stops of the matches in `matches`, by (match id, prompt key): stored through
    `store` before they take effect, and `arm(match)` re-arms a match's clocks after.
    `held`: the decisions whose prompt has not arrived yet (the clock keeper's, shared):
    they wait for it anyway, so they are not stopped."""

    def __init__(self, matches: dict[int, LiveMatch], now: TimeSource, delivery: Delivery, *,
                 store: Store, arm: Callable[[LiveMatch], None], held: set[tuple[int, str]],
                 tasks: Background) -> None:
        self.matches = matches
        self.now = now
        self.delivery = delivery
        self.store = store
        self.arm = arm
        self.held = held
        self.tasks = tasks
        #: Decisions whose clocks are stopped because a channel they depend on is down:
        #: (match id, prompt key) -> since when, and which channels hold it (`channel_down`).
        self.stopped: dict[tuple[int, str], StopData] = {}
        #: Stops read back from the store on a restart, not yet re-checked (`reinstate_stops`).
        self.restored: set[int] = set()

    def forget(self, gone: set[int]) -> None:
        for stopped in [k for k in self.stopped if k[0] in gone]:
            del self.stopped[stopped]

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
                    self.tasks.start(self.tasks.later(tell()))
        self.tasks.start(tell())

    def clock_stopped(self, match_id: int, key: str) -> bool:
        """Whether the decision's clock is stopped because a channel it depends on is down."""
        return (match_id, key) in self.stopped

    def waits_on_down_channel(self, match: LiveMatch, prompt: Prompt) -> bool:
        """Whether a channel the decision depends on is down now. Its clock must not run out
        meanwhile even before its stop is stored: a stop the store refused is tried again
        later, and a timeout must not win that race (hold rather than guess). When the
        channel is back, `restart_clocks` arms the clock again."""
        return any(self.delivery.down_since(match.id, audience) is not None
                   for audience in ("public", place(prompt)))

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
        self.tasks.start(self.stop_clocks(match, audience, since), match.id)

    def stop_while_down(self, match: LiveMatch, keys: Sequence[str], at: datetime) -> None:
        """Decisions whose prompt arrived while another channel they depend on is down (the
        game room) stop from their arrival, like those asked before it went down."""
        prompts = {p.key: p for p in match.prompts}
        for audience in sorted({"public", *(place(p) for k in keys
                                            if (p := prompts.get(k)) is not None)}):
            if self.delivery.down_since(match.id, audience) is not None:
                self.tasks.start(self.stop_clocks(match, audience, at, keys), match.id)

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
                self.tasks.start(self.tasks.later(self.stop_clocks(match, audience, since, keys)),
                                 match.id)
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
        self.tasks.start(self.restart_clocks(match, audience, since, at), match.id)

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
                    self.tasks.start(self.tasks.later(self.restart_clocks(
                        match, audience, since, at)), match.id)
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

    def stopped_for(self, match_id: int, key: str, now: datetime) -> timedelta:
        """How long the decision's clock has been stopped so far (its channel is down): not
        charged, e.g. not in the seconds a decision took (`command.elapsed`)."""
        stop = self.stopped.get((match_id, key))
        return max(timedelta(0), now - stop.since) if stop is not None else timedelta(0)


def shifted(clock: ClockData, delta: timedelta) -> ClockData:
    """A copy of `clock` moved `delta` later (the live clock changes once it is stored)."""
    moved = dataclasses.replace(clock)
    moved.shifted(delta)
    return moved


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
