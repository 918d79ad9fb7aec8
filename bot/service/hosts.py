"""The hosts' actions on a running match: pause, resume, extend, announce, expire, repost,
abort and award. Each is stored (with its line in the match's channels) before it takes
effect."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from bot.clock import TimeSource
from bot.feed import has_feed, reveal_rows
from bot.live import LiveMatch
from bot.messages import compose, seed_reveal
from bot.ratings import result_statement
from bot.service.bots import BotRunner
from bot.service.clocks import ClockKeeper
from bot.service.ends import Ends, as_ended
from bot.service.errors import NOT_STORED, NotStored, UmpireError
from bot.service.stops import shifted
from bot.service.table import MatchTable
from bot.service.types import Accept, Statement, Store
from bot.status import LIVE, ClockStatus, MatchStatus
from bot.store.fence import fenced
from bot.store.repository import MatchWrite, OutboxData, Repository
from games.core import IllegalMove, Timeout
from games.core.contract import OnTimeout

log = logging.getLogger(__name__)

PAUSED_BEFORE_TAKEN = ("⏸ The hosts paused the match before your move was taken: it was not "
                       "applied. Type it again once they resume the match.")

#: The most one `extend` may add (a host may extend again): a bound keeps deadlines in range.
MAX_EXTEND = 86_400


class Enqueue(Protocol):
    """Hands a stored write's messages to delivery (`CommandPath.enqueue`)."""

    def __call__(self, match: LiveMatch, write: MatchWrite, ids: Sequence[int], now: datetime,
                 *, hold: bool) -> None: ...


class HostActions:
    """What the hosts may do to the matches in `table`, through `store` and `accept` (the
    command path) and the clock keeper, bot runner and end hooks it shares."""

    def __init__(self, table: MatchTable, repo: Repository, now: TimeSource,
                 clocks: ClockKeeper, bots: BotRunner, ends: Ends, *, store: Store,
                 accept: Accept, enqueue: Enqueue) -> None:
        self.table = table
        self.repo = repo
        self.clocks = clocks
        self.bots = bots
        self.ends = ends
        self.store = store
        self.accept = accept
        self.enqueue = enqueue
        self.now = now

    async def pause(self, match_id: int) -> None:
        match = self.table.get(match_id)
        async with match.lock:
            if match.status != MatchStatus.ACTIVE:
                raise UmpireError(f"Match #{match_id} is {match.status}; only a running match "
                                  "can be paused.")
            now = self.now()
            # A move waiting in its fix window is withdrawn (its sender types it again once
            # the match resumes); its clock goes on from the move's arrival, as if unsent.
            waiting = self.clocks.fixes.of_match(match.id)
            moved = [shifted(match.clocks[w.key], now - w.arrived) for w in waiting
                     if w.key in match.clocks]
            told = [OutboxData(f"seat{w.seat}", PAUSED_BEFORE_TAKEN) for w in waiting]
            await self.store(match, MatchWrite(match.id, match.seq, outbox=[OutboxData(
                "public", "⏸ The hosts paused the match: every clock is stopped."), *told],
                clocks_changed=moved,
                match_fields={"status": MatchStatus.PAUSED, "paused_at": now}), now)
            for w in waiting:
                self.clocks.fixes.close(match.id, w.seat)
            match.clocks.update((c.key, c) for c in moved)
            match.status, match.paused_at = MatchStatus.PAUSED, now
            self.clocks.arm(match)

    async def resume(self, match_id: int) -> None:
        match = self.table.get(match_id)
        async with match.lock:
            if match.status != MatchStatus.PAUSED or match.paused_at is None:
                raise UmpireError(f"Match #{match_id} is not paused.")
            now = self.now()
            gap = now - match.paused_at
            clocks = [shifted(c, gap) for c in match.clocks.values()]
            stops = self.clocks.stops.stops_of(match.id)  # a down channel's stop: the pause is moved
            for stop in stops.values():  # for already, not again
                stop.since = min(stop.since + gap, now)
            await self.store(match, MatchWrite(match.id, match.seq, outbox=[OutboxData(
                "public", "▶ The hosts resumed the match: clocks run again with the time they had.")],
                clocks_changed=clocks, stops=stops or None,
                match_fields={"status": MatchStatus.ACTIVE, "paused_at": None}), now)
            match.clocks.update((c.key, c) for c in clocks)
            self.clocks.stops.set_stops(match.id, stops)
            match.status, match.paused_at = MatchStatus.ACTIVE, None
            self.clocks.arm(match)
            self.bots.schedule(match)

    async def extend(self, match_id: int, seconds: float, seat: int | None = None) -> None:
        """Give the pending decisions (of `seat`, or everyone) `seconds` more."""
        if not isinstance(seconds, (int, float)) or not 0 < seconds <= MAX_EXTEND:
            raise UmpireError(f"Extend by a positive number of seconds, at most {MAX_EXTEND:,} "
                              "(a day) at a time.")
        seconds = float(seconds)
        match = self.table.get(match_id)
        async with match.lock:
            if not match.running:
                raise UmpireError(f"Match #{match_id} is over.")
            clocks = [shifted(c, timedelta(seconds=seconds)) for c in match.clocks.values()
                      if seat is None or c.seat == seat]
            if not clocks:
                raise UmpireError("No clock is running for that.")
            who = "everyone" if seat is None else f"{{P{seat}}}"
            now = self.now()
            await self.store(match, MatchWrite(match.id, match.seq, outbox=[OutboxData(
                "public", f"⏱ The hosts gave {who} {int(seconds)} s more.")],
                clocks_changed=clocks), now)
            match.clocks.update((c.key, c) for c in clocks)
            self.clocks.arm(match)

    async def announce(self, match_id: int, text: str, *,
                       also: Sequence[Statement] = ()) -> None:
        """A hosts' line in the public room of a running match, stored and delivered like
        every message, with `also`'s statements in the same transaction."""
        match = self.table.get(match_id)
        async with match.lock:
            if not match.running:
                raise UmpireError(f"Match #{match_id} is over.")
            await self.store(match, MatchWrite(match.id, match.seq, outbox=[OutboxData(
                "public", text)], also=list(also)), self.now())

    async def expire(self, match_id: int) -> None:
        """End every pending clock now, applying each decision's timeout outcome (a host's
        "lock": e.g. Decoder setup)."""
        match = self.table.get(match_id)
        async with match.lock:
            if match.status != MatchStatus.ACTIVE:
                raise UmpireError(f"Match #{match_id} is {match.status}.")
            for prompt in list(match.prompts):
                if prompt.key in {p.key for p in match.prompts} and \
                        prompt.on_timeout != OnTimeout.NOTHING and \
                        getattr(match.clocks.get(prompt.key), "status", "") != ClockStatus.BREAK:
                    await self.accept(match, prompt.seat, Timeout(prompt_key=prompt.key), "host")

    async def repost(self, match_id: int, audience: str, since: datetime, *,
                     note: str = "") -> None:
        """A channel of the match was lost and made again: post the decisions open there
        again, and extend their clocks by the time since `since` (when it was lost), so the
        player is not charged for the gap."""
        match = self.table.get(match_id)
        async with match.lock:
            if not match.running:
                return
            now = self.now()
            gap = max(timedelta(0), now - since)
            posted = [p for p in match.prompts
                      if getattr(match.clocks.get(p.key), "status", "") != ClockStatus.BREAK]
            prompts = [p for p in posted
                       if (f"seat{p.seat}" if p.private else "public") == audience]
            clocks = [shifted(c, gap) for p in prompts
                      if (c := match.clocks.get(p.key)) is not None and c.status in LIVE]
            # The room's message also says whose private decisions it waits for, as before.
            outbox = [o for o in compose((), posted, dict(match.clocks),
                                         status=match.game.status(match.state))
                      if o.audience == audience]
            if note:
                outbox.insert(0, OutboxData(audience, note))
            if not outbox and not clocks:
                return
            stops = self.clocks.stops.stops_of(match.id)
            for clock in clocks:  # the gap covers the lost channel's down time: not twice
                stop = stops.get(clock.key)
                if stop is not None:
                    stop.channels.discard(audience)
                    if stop.channels:
                        stop.since = now
                    else:
                        del stops[clock.key]
            write = MatchWrite(match.id, match.seq, outbox=outbox, clocks_changed=clocks,
                               stops=stops if stops != self.clocks.stops.stops_of(match.id) else None)
            try:
                ids = await self.repo.commit(fenced(self.repo, write, match.transport), now)
            except Exception as exc:
                log.warning("match %s: a repost was not stored: %s", match.id, exc)
                raise NotStored(NOT_STORED) from exc
            match.clocks.update((c.key, c) for c in clocks)
            self.clocks.stops.set_stops(match.id, stops)
            # the clocks were extended by the gap: no second restart on delivery
            self.enqueue(match, write, ids, now, hold=False)
            self.clocks.arm(match)

    async def abort(self, match_id: int, reason: str = "aborted by the hosts") -> None:
        await self.end(match_id, None, reason, status=MatchStatus.ABORTED)

    async def award(self, match_id: int, seat: int, reason: str = "awarded by the hosts", *,
                    unit: str = "match") -> None:
        """Award the match, or a part of it the game offers (`Game.host_award_units`, e.g. a
        bout), to `seat`. A part is applied as a command of that seat, logged as the hosts'."""
        if seat not in (0, 1):
            raise UmpireError("Award the match to seat 0 or 1.")
        if unit == "match":
            await self.end(match_id, seat, reason, status=MatchStatus.FINISHED)
            return
        match = self.table.get(match_id)
        async with match.lock:
            if match.status != MatchStatus.ACTIVE:
                raise UmpireError("Only a running match can have a part awarded"
                                  + (": resume it first." if match.status == MatchStatus.PAUSED
                                     else "."))
            try:
                command = match.game.host_award(match.state, seat, unit, reason)
            except IllegalMove as exc:
                raise UmpireError(str(exc)) from exc
            reply = await self.accept(match, seat, command, "host")
        if not reply.accepted:
            raise UmpireError(reply.message or "That award could not be applied.")

    async def end(self, match_id: int, winner: int | None, reason: str, *,
                  status: MatchStatus) -> None:
        match = self.table.get(match_id)
        async with match.lock:
            if not match.running:
                raise UmpireError(f"Match #{match_id} is already over.")
            now = self.now()
            result = {"winner": winner, "reason": reason, "score": None, "host": True}
            done = [dataclasses.replace(c, status=ClockStatus.DONE) for c in match.clocks.values()]
            head = "🛑 The hosts aborted the match" if winner is None else \
                f"🏁 The hosts awarded the match to {{P{winner}}}"
            line = f"{head} ({reason}). {seed_reveal(match.seed, match.salt)}."
            ended = as_ended(match, status, result)
            await self.store(match, MatchWrite(match.id, match.seq,
                                               outbox=[OutboxData("public", line,
                                                                  {"final": True}),
                                                       *feed_end(match)],
                                               clocks_changed=done,
                                               match_fields={"status": status,
                                                             "result": result,
                                                             "ended_at": now},
                                               also=[result_statement(ended, now),
                                                     *self.ends.statements(ended, now)]),
                             now)
            match.status, match.result = status, result
            self.ends.tell(match)
            match.clocks.update((c.key, c) for c in done)
            match.prompts = []
            self.clocks.scheduler.clear(lambda t: isinstance(t, tuple) and t[0] == match_id)
            await self.ends.notify()


def feed_end(match: LiveMatch) -> list[OutboxData]:
    """The feed's reveals when the hosts end a match: the unit in progress is over."""
    if not has_feed(match.transport):
        return []
    return reveal_rows(match.game, match.state, match.state, True)
