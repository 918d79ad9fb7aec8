"""The event runner: the bot runs an event round after round through the match service.

Each round's matches start through the same path as a single match (`MatchStarter`: on
Discord the `/match start` launch, with its channels, tables, clocks and host controls; in
the terminal the service's own start), each with `{"event": id, "pairing": id}` in its
transport data. A match's end advances the event in the same transaction as the result
(`statement`, a `MatchService` end hook): the format records the result, and when it closes
the round the next one is due after the break (`Event.round_opens_at`, stored). Once stored
(`ended`), the runner opens the next round when it is due.

Nothing lives only in memory: on start (`resume`) every running event is read back, its due
round opened, and every pairing of an opened round that has no running match gets one (a
start stored just before a kill is found by its transport data and linked, not started
twice). A match that ends without a winner the format can take (aborted, or a draw in a
knockout) is played again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy.engine import Connection

from bot.feed import with_feed
from bot.live import LiveMatch
from bot.status import RUNNING, MatchStatus
from bot.tournament import event as ev
from bot.tournament import store
from bot.tournament.event import Entrant, Event, EventError
from bot.tournament.formats.base import Format, Pairing, Result
from bot.transport import PlayerRef
from bot.umpire import MatchService, UmpireError
from games.core.chance import new_salt

log = logging.getLogger(__name__)

#: A round's match that could not be started (Discord refused a step) is tried again then.
RETRY_START_SECONDS = 30.0
Listener = Callable[[Event, str | None], Awaitable[None]]


class MatchStarter(Protocol):
    async def __call__(self, event: Event, pairing: Pairing, players: list[PlayerRef],
                       transport: dict[str, Any]) -> LiveMatch:
        """Start the pairing's match (seat 0 = `players[0]`, the pairing's player0)."""


def default_formats(name: str) -> Format:
    from bot.tournament import formats

    return formats.format_named(name)  # type: ignore[attr-defined, no-any-return]


class EventRunner:
    def __init__(self, service: MatchService, starter: MatchStarter, *,
                 formats: Callable[[str], Format] = default_formats) -> None:
        self.service = service
        self.starter = starter
        self.formats = formats
        self.events: dict[int, Event] = {}  # the latest stored version of each event seen
        self.listeners: list[Listener] = []  # told of every change (and a line to post)
        self._boxes: dict[int, dict[str, Any]] = {}  # match id -> its end's statement result
        self._locks: dict[int, asyncio.Lock] = {}
        self._timers: dict[int, asyncio.Task[None]] = {}
        self._failed: set[tuple[int, str]] = set()  # pairings whose start failed (told once)
        self._tasks: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Condition()
        service.end_hooks.append(self)

    @property
    def engine(self) -> Any:
        return self.service.repo.engine

    def fmt(self, event: Event) -> Format:
        return self.formats(event.format)

    # --- storing -----------------------------------------------------------------------------
    async def create(self, *, seed: str | None = None, **fields: Any) -> Event:
        """A new event (sign-ups closed), stored, with the commitment to its secret seed
        (`seed`: a chosen one, for a reproducible local run)."""
        self.formats(str(fields["format"]))  # an unknown format is refused before storing
        event = ev.new_event(seed=seed or secrets.token_hex(16), salt=new_salt(), **fields)
        now = self.service.now()
        stored = await self.service.repo.writer.run(
            lambda conn: store.insert_event(conn, event, now))
        await self._apply(stored, None)
        return stored

    async def change(self, event_id: int, transition: Callable[[Event], tuple[Event, Any]],
                     note: str | None = None) -> tuple[Event, Any]:
        """Apply a pure transition to the stored event (one transaction), then to the
        runner's copy; `note` is posted by the listeners."""
        now = self.service.now()
        try:
            event, extra = await self.service.repo.writer.run(
                store.change(event_id, transition, now))
        except LookupError as exc:
            raise EventError(str(exc)) from exc
        await self._apply(event, note)
        return event, extra

    @staticmethod
    async def _worked_out(seen: Event, transition: Callable[[Event], tuple[Event, Any]]
                          ) -> Callable[[Event], tuple[Event, Any]]:
        """`transition` worked out on `seen` in a thread, before the transaction: a round's
        pairing can take seconds (a Swiss round of 128 entrants is one weighted matching),
        and inside `change` it would hold the store's one writer, and every match's moves
        behind it. The transaction takes the result if the stored event is still `seen`
        (the same version), and works it out again otherwise (a result stored meanwhile)."""
        worked = await asyncio.to_thread(transition, seen)

        def stored(event: Event) -> tuple[Event, Any]:
            return worked if event.version == seen.version else transition(event)
        return stored

    # --- reading (for front ends: they never open the store themselves) ---------------------
    async def stored(self, event_id: int) -> Event | None:
        """The event as stored now (None if there is none)."""
        return await store.load(self.engine, event_id)

    async def of_guild(self, guild_id: int, *, limit: int = 25,
                       open_only: bool = False) -> list[Event]:
        """A server's events, newest first (only those not ended, with `open_only`)."""
        return await store.of_guild(self.engine, guild_id, limit=limit, open_only=open_only)

    async def of_player(self, guild_id: int, player_id: str) -> list[Event]:
        """The events a player entered on a server, newest first."""
        return await store.of_player(self.engine, guild_id, player_id)

    async def get(self, event_id: int) -> Event:
        event = await store.load(self.engine, event_id)
        if event is None:
            raise EventError(f"There is no event #{event_id}.")
        await self._apply(event, None, quiet=True)
        return self.events[event_id]

    async def _apply(self, event: Event, note: str | None, *, quiet: bool = False) -> None:
        known = self.events.get(event.id)
        if known is None or event.version >= known.version:
            self.events[event.id] = event
        async with self._changed:
            self._changed.notify_all()
        if quiet:
            return
        for listener in self.listeners:
            try:
                await listener(self.events[event.id], note)
            except Exception:
                log.exception("an event listener failed for event %s", event.id)

    async def tell(self, event: Event, note: str) -> None:
        """A line about the event for the listeners to post."""
        await self._apply(event, note)

    async def wait_ended(self, event_id: int, timeout: float | None = None) -> Event:
        async def ended() -> None:
            async with self._changed:
                await self._changed.wait_for(
                    lambda: getattr(self.events.get(event_id), "status", "") == "ended")
        await asyncio.wait_for(ended(), timeout)
        return self.events[event_id]

    # --- a match's end (MatchService end hook) --------------------------------------------------
    def statement(self, match: LiveMatch, now: datetime) -> Callable[[Connection], Any] | None:
        event_id = match.transport.get("event")
        pairing_id = match.transport.get("pairing")
        if event_id is None or pairing_id is None:
            return None
        box: dict[str, Any] = {}
        self._boxes[match.id] = box
        return store.change(int(event_id), lambda e: self._result(e, match, str(pairing_id), now),
                            now, box)

    def _result(self, event: Event, match: LiveMatch, pairing_id: str,
                now: datetime) -> tuple[Event, str | None]:
        """The pure transition a match's end makes: its result recorded, or the pairing
        freed to be played again. Ignored when the pairing was decided already (a walkover)
        or a later match plays it."""
        fmt = self.fmt(event)
        pairing = event.pairing_of(fmt, pairing_id)
        linked = event.matches.get(pairing_id)
        if pairing is None or pairing not in event.undecided(fmt) or \
                (linked is not None and linked > match.id) or event.status == "ended":
            return event, None
        event = ev.link(event, pairing_id, match.id)
        result = match.result or {}
        seat = result.get("winner")
        if match.status == MatchStatus.ABORTED:
            return ev.unlink(event, pairing_id), "replay"
        winner = match.players[seat].id if seat is not None else None
        score = result.get("score")
        if score and len(score) == 2 and match.players[0].id != pairing.player0:
            score = [score[1], score[0]]
        outcome = Result(pairing=pairing_id, winner=winner, walkover=bool(result.get("host")),
                         score=tuple(score) if score and len(score) == 2 else None)
        try:
            return ev.record(event, fmt, outcome, now), "recorded"
        except (ValueError, EventError):  # e.g. a draw where the format needs a winner
            return ev.unlink(event, pairing_id), "replay"

    def ended(self, match: LiveMatch) -> None:
        box = self._boxes.pop(match.id, None)
        if not box or "event" not in box:
            return
        event: Event = box["event"]
        self._background(self._after_end(event, match, box.get("extra")))

    async def _after_end(self, event: Event, match: LiveMatch, what: str | None) -> None:
        note = None
        if what in ("replay", "recorded"):
            note = result_text(event, self.fmt(event), match, replay=what == "replay")
        await self._apply(event, note)
        if event.status == "ended":
            await self._apply(event, ended_text(event, self.fmt(event)))
        await self.advance(event.id)

    # --- running rounds --------------------------------------------------------------------------
    async def resume(self) -> list[Event]:
        """Take up every running or paused event of the store (of the servers this process
        umpires): open a due round, start what has no match. Called once matches are
        resumed and the transport can start new ones."""
        events = await store.running(self.engine)
        owned = [e for e in events if self.service.owns(
            self.service.repo.shard_for({"guild": e.guild}))]
        for event in owned:
            await self._apply(event, None, quiet=True)
            await self.advance(event.id)
        return owned

    async def advance(self, event_id: int) -> None:
        """Bring a running event up to date: a decided match still running is stopped, a
        due round opens (a later one is timed), every undecided pairing gets a match."""
        lock = self._locks.setdefault(event_id, asyncio.Lock())
        async with lock:
            event = await self.get(event_id)  # (as stored: the copy may lag a match's end)
            if event.status != "running":
                return
            fmt = self.fmt(event)
            await self._stop_decided(event, fmt)
            if event.round_opens_at is not None:
                wait = (event.round_opens_at - self.service.now()).total_seconds()
                if wait > 0:
                    self._timer(event_id, wait)
                    return
            if not event.undecided(fmt):
                before = event.status
                now = self.service.now()
                opened = await self._worked_out(event, lambda e: ev.open_round(e, fmt, now))
                event, pairings = await self.change(event_id, opened)
                if pairings:
                    await self._apply(event, round_text(event, fmt, pairings))
                elif event.status == "ended" and before != "ended":
                    await self._apply(event, ended_text(event, fmt))
            await self._start_missing(event, fmt)

    async def _start_missing(self, event: Event, fmt: Format) -> None:
        if not event.undecided(fmt):
            return
        # The matches first, then the event: a match that ends in between has its result
        # in the event read after (same transaction), so it is never started again.
        started = await store.started_matches(self.engine, event.id)
        event = await self.get(event.id)
        for pairing in event.undecided(fmt):
            found = started.get(pairing.id)
            linked = event.matches.get(pairing.id)
            if found is not None and found[1] in RUNNING and \
                    (linked is None or found[0] >= linked):
                if linked != found[0]:  # started just before a kill: link it, not twice
                    event, _ = await self.change(
                        event.id, lambda e, p=pairing.id, m=found[0]: (ev.link(e, p, m), None))
                await self.service.load(found[0])
                continue
            event = await self._start(event, pairing)

    async def _start(self, event: Event, pairing: Pairing) -> Event:
        entrants = [event.entrant(p) for p in (pairing.player0, pairing.player1)]
        players = [PlayerRef(id=e.id, name=e.name, bot=e.bot) for e in entrants if e]
        transport: dict[str, Any] = {"event": event.id, "pairing": pairing.id}
        if not event.rated:
            transport["unrated"] = True
        if event.place.get("feed"):  # the event's spectator feed: every match posts there
            transport = with_feed(transport, event.place["feed"], f"{event.name}, "
                                  f"{pairing.id}: {players[0].name} vs {players[-1].name}")
        try:
            live = await self.starter(event, pairing, players, transport)
        except Exception as exc:  # a refusal of the service or the transport (Discord)
            log.warning("event %s: pairing %s did not start: %s", event.id, pairing.id, exc)
            key = (event.id, pairing.id)
            note = None if key in self._failed else (
                f"The match {pairing.id} ({players[0].name} vs {players[-1].name}) could "
                f"not start: {exc} It is tried again every {int(RETRY_START_SECONDS)} s "
                "(a host may also replace a player).")
            self._failed.add(key)  # (said once per pairing, not at every try)
            await self._apply(event, note)
            self._timer(event.id, RETRY_START_SECONDS)
            return event
        self._failed.discard((event.id, pairing.id))
        event, _ = await self.change(event.id, lambda e: (ev.link(e, pairing.id, live.id), None))
        return event

    async def _stop_decided(self, event: Event, fmt: Format) -> None:
        """A match still running for a pairing decided without it (a walkover) is stopped."""
        if event.state is None:
            return
        results = fmt.load(event.state).results
        for pairing_id, match_id in event.matches.items():
            live = self.service.matches.get(match_id)
            if pairing_id in results and live is not None and \
                    live.status in RUNNING:
                with contextlib.suppress(UmpireError):
                    await self.service.abort(match_id, "decided by a walkover in the event")

    def _timer(self, event_id: int, seconds: float) -> None:
        old = self._timers.pop(event_id, None)
        if old is not None:
            old.cancel()

        async def later() -> None:
            await asyncio.sleep(seconds)
            self._timers.pop(event_id, None)
            await self.advance(event_id)
        task = asyncio.create_task(later(), name=f"event-{event_id}-round")
        self._timers[event_id] = task

    def _background(self, work: Awaitable[None]) -> None:
        async def guarded() -> None:
            try:
                await work
            except Exception:
                log.exception("event runner step failed")
        task = asyncio.create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        for task in [*self._timers.values(), *self._tasks]:
            task.cancel()
        for task in [*self._timers.values(), *self._tasks]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._timers.clear()
        if self in self.service.end_hooks:
            self.service.end_hooks.remove(self)

    # --- host actions -----------------------------------------------------------------------------
    def _matches_of(self, event: Event) -> list[LiveMatch]:
        return [m for i in event.matches.values() if (m := self.service.matches.get(i))
                is not None and m.status in RUNNING]

    async def start_event(self, event_id: int) -> Event:
        event = await self.get(event_id)
        fmt = self.fmt(event)
        event, _ = await self.change(event_id, lambda e: (ev.start(e, fmt), None),
                                     start_text(event))
        await self.advance(event_id)
        return self.events[event_id]

    async def pause(self, event_id: int) -> Event:
        event, _ = await self.change(event_id, lambda e: (ev.pause(e), None),
                                     "⏸ The hosts paused the event: no round opens, every "
                                     "match of it is paused.")
        for match in self._matches_of(event):
            with contextlib.suppress(UmpireError):
                await self.service.pause(match.id)
        return event

    async def resume_event(self, event_id: int) -> Event:
        event, _ = await self.change(event_id, lambda e: (ev.resume(e), None),
                                     "▶ The hosts resumed the event.")
        for match in self._matches_of(event):
            with contextlib.suppress(UmpireError):
                if match.status == MatchStatus.PAUSED:
                    await self.service.resume(match.id)
        await self.advance(event_id)
        return self.events[event_id]

    async def end(self, event_id: int) -> Event:
        event, _ = await self.change(event_id, lambda e: (ev.end(e), None))
        timer = self._timers.pop(event_id, None)
        if timer is not None:
            timer.cancel()
        for match in self._matches_of(event):
            with contextlib.suppress(UmpireError):
                await self.service.abort(match.id, "the hosts ended the event")
        await self._apply(event, ended_text(event, self.fmt(event), by_hosts=True))
        return event

    async def replace(self, event_id: int, player_id: str,
                      substitute: Entrant | None = None) -> Event:
        """A player drops: the match they play now is lost by walkover (recorded as such);
        a substitute takes their later pairings, or without one they lose those too."""
        event = await self.get(event_id)
        fmt = self.fmt(event)
        now = self.service.now()
        gone = event.name_of(player_id)

        def transition(e: Event) -> tuple[Event, list[str]]:
            if substitute is None:
                return ev.withdraw(e, fmt, player_id, now)
            return ev.replace(e, fmt, player_id, substitute, now)
        note = (f"{gone} withdrew: every match left to them is a walkover." if substitute is None
                else f"{substitute.name} replaces {gone}; the match {gone} was playing is a "
                     "walkover.")
        event, _ = await self.change(event_id, transition, note)
        await self.advance(event_id)
        return self.events[event_id]

    async def award(self, event_id: int, match_id: int, winner: str) -> None:
        """A host's award of an event's running match (recorded as a walkover)."""
        event = await self.get(event_id)
        live = self.service.matches.get(match_id)
        if live is None or live.transport.get("event") != event.id or \
                live.status not in RUNNING:
            raise EventError(f"Match #{match_id} is not a running match of {event.name}.")
        seat = live.seat_of(winner)
        if seat is None:
            raise EventError(f"{event.name_of(winner)} does not play match #{match_id}.")
        await self.service.award(match_id, seat, "awarded by the hosts (event)")


# --- what is posted ------------------------------------------------------------------------------
def start_text(event: Event) -> str:
    how = {"rating": "by rating", "order": "in the order given"}.get(event.seeded, "at random")
    return (f"🏁 {event.name} starts: {len(event.entrants)} players, seeded "
            f"{how}. Seed `{event.seed}`, "
            f"salt `{event.salt}` (commitment `{event.commitment}`, SHA-256 of "
            "`<salt>:<seed>`).")


def round_text(event: Event, fmt: Format, pairings: list[Pairing]) -> str:
    """A round's pairings, seat 0 first, each with its id and (double elimination) its
    bracket; a bye says what it means in its format."""
    number = max(p.round for p in pairings)
    lines = [f"Round {number} of {event.name} (seat 0, the advantage, named first):"]
    for p in pairings:
        where = BRACKET_WORDS.get(p.bracket)
        tag = f"{p.id}{f', {where}' if where else ''}"
        if p.player1 is None:
            lines.append(f"- {tag}: {event.name_of(p.player0)} {_bye_meaning(fmt, p)}")
        else:
            lines.append(f"- {tag}: {event.name_of(p.player0)} vs {event.name_of(p.player1)}")
    return "\n".join(lines)


def _bye_meaning(fmt: Format, p: Pairing) -> str:
    if fmt.name == "swiss":
        return "has the bye (1 point, no match)"
    if fmt.name == "roundrobin":
        return "sits this round out (no points)"
    return "goes through without a match (a bye: nobody is left to meet here)"


BRACKET_WORDS = {"winners": "winners' bracket", "losers": "losers' bracket",
                 "final": "grand final"}


def pairing_label(event: Event, pairing: Pairing) -> str:
    """"round 2, W2-1, winners' bracket: Ada vs Bea" (seat 0 first)."""
    where = BRACKET_WORDS.get(pairing.bracket)
    return (f"round {pairing.round}, {pairing.id}{f', {where}' if where else ''}: "
            f"{event.name_of(pairing.player0)} vs {event.name_of(pairing.player1)}")


def result_text(event: Event, fmt: Format, match: LiveMatch, *, replay: bool) -> str:
    """Every end of an event's match, as announced (command line and Discord alike): the
    result, a draw or a replay, and what happens next."""
    result = match.result or {}
    pairing = event.pairing_of(fmt, str(match.transport.get("pairing")))
    label = pairing_label(event, pairing) if pairing is not None else "an event match"
    score = result.get("score")
    shown = f" ({score[0]}-{score[1]})" if score and len(score) == 2 else ""
    seat = result.get("winner")
    if replay:
        reason = f" ({result['reason']})" if result.get("reason") else ""
        if match.status == MatchStatus.ABORTED:
            why = f"was aborted{reason}"
        elif seat is None:
            why = f"is a draw{shown}, and an elimination match needs a winner"
        else:
            why = f"ended without a result the format can take{reason}"
        return f"Match #{match.id} ({label}) {why}: it is played again at once."
    if seat is None:
        told = f"Match #{match.id} ({label}) is a draw{shown}: half a point each."
    else:
        winner = match.players[seat].name
        how = " (awarded by the hosts)" if result.get("host") else ""
        if score and len(score) == 2:  # the winner's score first
            shown = f" ({score[seat]}-{score[1 - seat]})"
        told = f"Match #{match.id} ({label}): {winner} wins{shown}{how}."
        if pairing is not None and pairing.player1 is not None:
            told += _fate(event, fmt, pairing, match.players[1 - seat].id)
    return told + _next(event, fmt, pairing)


def _fate(event: Event, fmt: Format, pairing: Pairing, loser: str) -> str:
    """What a loss means in an elimination event."""
    if fmt.name == "single":
        return f" {event.name_of(loser)} is out."
    if fmt.name == "double":
        if pairing.bracket == "winners":
            return f" {event.name_of(loser)} drops to the losers' bracket."
        return f" {event.name_of(loser)} is out (a second loss)."
    return ""


def _next(event: Event, fmt: Format, pairing: Pairing | None) -> str:
    if event.status == "ended" or pairing is None:
        return ""
    left = [p for p in event.undecided(fmt) if p.round == pairing.round]
    if left:
        return (f" {len(left)} match{'es' if len(left) > 1 else ''} of round "
                f"{pairing.round} still to finish.")
    if event.undecided(fmt):
        return ""
    return f" Round {pairing.round} is complete; the next round opens " + (
        f"after the break ({event.break_seconds} s)." if event.break_seconds else "now.")


def ended_text(event: Event, fmt: Format, *, by_hosts: bool = False) -> str:
    if by_hosts:
        return f"🛑 The hosts ended {event.name}."
    winner = ev.champion(event, fmt)
    return (f"🏆 {event.name} is over: {event.name_of(winner)} is the champion." if winner
            else f"🏆 {event.name} is over.")


class EventRecorder(EventRunner):
    """Records a match's end into its event, in the result's own transaction, and runs
    nothing: for the local commands that are not `umpire tournament` (`play`, `demo`), which
    resume every stored match on their database, an event's among them. Without it such a
    match could end with no record in its event, which would then play the pairing again;
    with it, the next `umpire tournament` run goes on from the recorded result."""

    def __init__(self, service: MatchService) -> None:
        super().__init__(service, _starts_nothing)

    def ended(self, match: LiveMatch) -> None:
        self._boxes.pop(match.id, None)  # (recorded; the event's own runner advances it)


async def _starts_nothing(event: Event, pairing: Pairing, players: list[PlayerRef],
                          transport: dict[str, Any]) -> LiveMatch:
    raise EventError("This command does not run events.")

