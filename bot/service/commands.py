"""The command path: a match's opening, and every command a person, bot, clock or host
makes, from the text typed to the stored step made live.

A step is checked by the game, applied to a copy of the state, stored with its messages and
clock changes in one transaction, and only then made live and handed to delivery.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ValidationError

from bot import metrics
from bot.clock import TimeSource
from bot.delivery import Delivery
from bot.feed import has_feed, mirrored, reveal_rows
from bot.live import LiveMatch
from bot.match_commitment import match_commitment
from bot.messages import compose, host_seed_note, mark_final, outcome_line
from bot.ratings import result_statement
from bot.service.bots import BotRunner
from bot.service.clocks import ClockKeeper, in_break
from bot.service.ends import Ends, as_ended
from bot.service.errors import (
    NOT_RECORDED,
    NOT_STORED,
    STORE_RETRY_SECONDS,
    NotStored,
    UmpireError,
    log_conflict,
    not_started,
    store_error,
)
from bot.service.fixes import FixDue, Waiting
from bot.service.stops import shifted
from bot.service.table import MatchTable
from bot.service.types import PRIVATE_IN_ROOM, PUBLIC_AT_TABLE, Reply, rendered
from bot.status import RUNNING, ClockStatus, MatchStatus
from bot.store.errors import StoreUnavailable
from bot.store.fence import FencedOut, fenced
from bot.store.repository import ClockData, MatchWrite, OutboxData, Repository, StoredMessage
from bot.transport import PlayerRef
from games.core import Command, Event, IllegalMove, ParseError, Prompt, Timeout, seed_commitment
from games.core.chance import new_salt
from games.registry import get_game

log = logging.getLogger(__name__)

#: The sources of the moves a person is waiting on: their writes skip the shared
#: transaction's queue when the store can take them at once (bot/store/writer.py).
WAITED_ON = frozenset({"player", "host"})

WAITING_ALREADY = ("Your first move is still waiting to be taken: edit that message to fix it, "
                   "or delete it to withdraw it. This message was not applied.")
FIXED = "✏️ Fixed: your edited move is the one taken."
WITHDRAWN = ("✏️ You withdrew your move: nothing was applied, and your clock runs again with the "
             "time it had.")

#: Stores a write and hands its messages to delivery (`CommandPath.commit`, or a subclass's
#: override of the service's `_commit`).
Commit = Callable[[LiveMatch, MatchWrite, datetime], Awaitable[None]]


class CommandPath:
    """Turns commands into stored steps for the matches in `table`. `commit` stores a write
    (the service's `_commit`, which a subclass may wrap; by default `self.commit`)."""

    def __init__(self, table: MatchTable, repo: Repository, delivery: Delivery,
                 clocks: ClockKeeper, bots: BotRunner, ends: Ends, now: TimeSource, *,
                 commit: Commit | None = None, snapshot_every: int = 25) -> None:
        self.table = table
        self.matches = table.matches
        self.repo = repo
        self.delivery = delivery
        self.clocks = clocks
        self.bots = bots
        self.ends = ends
        self.now = now
        self.committer = commit or self.commit
        self.snapshot_every = snapshot_every
        self.fixes = clocks.fixes
        clocks.take_fixed = self.take_fixed
        #: Called with a match whose write conflicted with its stored log (`log_conflict`):
        #: the service reads it back from the store (`Resumer.reload`).
        self.conflicted: Callable[[LiveMatch], None] = lambda match: None

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
            raise UmpireError(f"Bad settings: {validation_text(exc)}") from exc
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
            if store_error(exc):
                raise not_started(exc) from exc
            raise
        match = LiveMatch(id=match_id, game=game, settings=parsed, seed=seed,
                          commitment=commitment, players=ordered, state=state, seq=0,
                          status=MatchStatus.ACTIVE, transport=dict(transport or {}), salt=salt)
        async with match.lock:
            self.matches[match_id] = match
            header = [("public", f"🎲 Match #{match_id}: {game.title}, {{P0}} vs {{P1}}. "
                                 f"{{P0}} holds the advantage. Seed commitment (SHA-256): "
                                 f"`{commitment}`; the seed and its salt are revealed when "
                                 "the match ends. Match commitment (SHA-256 of the players, "
                                 f"settings, start time and seed commitment): "
                                 f"`{covering['sha256']}`." + host_seed_note(transport))]
            try:
                await self.record(match, None, game.opening_events(state), header=header,
                                  now=now)
            except BaseException as exc:
                self.matches.pop(match_id, None)
                self.repo.forget_match(match_id)
                cause = exc.__cause__ if isinstance(exc, NotStored) else exc
                if cause is not None and store_error(cause):
                    raise not_started(cause) from exc
                raise
        return match

    # --- players' moves -------------------------------------------------------------------
    async def submit(self, match_id: int, user_id: str, text: str, *,
                     table_of: int | None = None, prompt_key: str | None = None,
                     message_ref: str | None = None) -> Reply:
        """A message a person typed: in the public room (`table_of` None) or in the table
        channel of seat `table_of`. `prompt_key` (a button click) names the decision the text
        answers: if that decision is no longer open, nothing is applied. `message_ref` names
        the message typed (a Discord message id): a decision with a fix window takes it only
        when the window closes, and an edit or deletion of that message (`fix`, `withdraw`)
        replaces or withdraws it until then. None: no window (the text cannot be edited)."""
        match = self.matches.get(match_id)
        if match is None:
            return Reply(False, "There is no running match here.", ignored=True)
        seat = match.seat_of(user_id)
        if seat is None:
            return Reply(False, ignored=True)
        arrived = time.perf_counter()
        async with match.lock:
            try:
                reply = await self.typed(match, seat, text, table_of, prompt_key, message_ref)
            except NotStored:
                reply = Reply(False, NOT_RECORDED)
        metrics.command(match.game.slug, reply.accepted, time.perf_counter() - arrived)
        return rendered(match, reply)

    async def typed(self, match: LiveMatch, seat: int, text: str, table_of: int | None,
                    prompt_key: str | None, message_ref: str | None = None) -> Reply:
        """`submit` under the match lock. Where the text was typed is checked before it is
        parsed: a refusal from parsing may describe private state (the letters of a hand),
        so text for a private decision typed in the room is never parsed."""
        if table_of is not None and table_of != seat:
            return Reply(False, "This is not your table channel.")
        refusal = self.refuse_now(match, seat)
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
        prompt = answered(pending, command)
        if prompt.private and table_of is None:
            return Reply(False, PRIVATE_IN_ROOM)
        if not prompt.private and table_of is not None:
            return Reply(False, PUBLIC_AT_TABLE)
        if prompt.fix_seconds > 0 and message_ref is not None and prompt_key is None:
            return await self.wait_to_take(match, seat, prompt, command, text, message_ref)
        return await self.accept(match, seat, command, "player")

    async def submit_command(self, match_id: int, seat: int, command: Command, *,
                             source: str = "player") -> Reply:
        """A typed command for `seat` (buttons, bots, tests); same checks as text."""
        match = self.table.get(match_id)
        async with match.lock:
            refusal = self.refuse_now(match, seat)
            if refusal:
                return rendered(match, Reply(False, refusal))
            try:
                return rendered(match, await self.accept(match, seat, command, source))
            except NotStored:
                return Reply(False, NOT_RECORDED)

    @staticmethod
    def refuse_now(match: LiveMatch, seat: int) -> str | None:
        if match.status == MatchStatus.PAUSED:
            return "The match is paused by the hosts; wait for them to resume it."
        if match.status != MatchStatus.ACTIVE:
            return "This match is over."
        if not any(p.seat == seat for p in match.prompts):
            waiting = sorted({p.seat for p in match.prompts})
            who = " and ".join(f"{{P{s}}}" for s in waiting) or "nobody"
            return f"It is not your decision now; waiting for {who}."
        if in_break(match, seat):
            return "It is the break between rounds: the next decisions are posted when it ends."
        return None

    async def accept(self, match: LiveMatch, seat: int, command: Command, source: str, *,
                     at: datetime | None = None, advise: bool = True) -> Reply:
        """Check, apply to a copy of the state, store, then make the copy live (`record`).
        The caller holds the match lock. Raises `NotStored` when the write failed: the live
        match is then exactly as it was (the callers tell the person, or try again later).
        `at`: when the move was made, for its time taken (a fixed move's arrival); None: now.
        A person's move comes with the game's advice on it (`advise`; a fixed move had its
        advice when it arrived), in the step's message to their table, before its events."""
        now = self.now()
        command = self.timed(match, seat, command, at if at is not None else now)
        try:
            match.game.check(match.state, seat, command)
        except IllegalMove as exc:
            return Reply(False, str(exc))
        advice = match.game.advice(match.state, seat, command) \
            if advise and source == "player" else None
        state = match.draft()
        events = match.game.apply(state, seat, command)
        await self.record(match, (seat, command, source), events, now=now, state=state,
                          header=[(f"seat{seat}", advised(advice))] if advice else ())
        return Reply(True)

    def timed(self, match: LiveMatch, seat: int, command: Command, at: datetime) -> Command:
        """The command with the seconds its decision took until `at` (a stop for a down
        channel is free)."""
        clock = oldest_clock(match, seat)
        if clock is None or isinstance(command, Timeout):
            return command
        taken = at - clock.started_at - self.clocks.stops.stopped_for(match.id, clock.key, at)
        return command.model_copy(update={"elapsed": max(0.0, round(taken.total_seconds(), 3))})

    # --- the prompt fix (bot/service/fixes.py) ---------------------------------------------
    async def wait_to_take(self, match: LiveMatch, seat: int, prompt: Prompt,
                           command: Command, text: str, ref: str) -> Reply:
        """A legal move for a decision with a fix window waits for the window to close; its
        decider's clock stands still from now. An illegal one is refused at once, as ever.
        The game's advice on the move (a guess that cannot succeed) reaches the sender's
        table now, while the move can still be fixed."""
        if self.fixes.of(match.id, seat) is not None:
            return Reply(False, WAITING_ALREADY)
        now = self.now()
        try:
            match.game.check(match.state, seat, self.timed(match, seat, command, now))
        except IllegalMove as exc:
            return Reply(False, str(exc))
        await self.tell(match, seat, advised(match.game.advice(match.state, seat, command)))
        self.fixes.open(match.id, seat, prompt.key, text, ref, now, prompt.fix_seconds)
        self.clocks.arm(match)
        return Reply(True)

    async def tell(self, match: LiveMatch, seat: int, text: str | None) -> None:
        """A line for one player's table, stored and delivered like every message (held
        while the table is not private, retried until it arrives). The caller holds the lock."""
        if text:
            await self.store(match, MatchWrite(match.id, match.seq,
                                               outbox=[OutboxData(f"seat{seat}", text)]),
                             self.now())

    async def fix(self, match_id: int, user_id: str, text: str, *,
                  message_ref: str | None = None) -> Reply:
        """The sender edited a move waiting in its fix window (`message_ref`: the message
        edited; None: the seat's waiting move, as the console's `/fix` names it). A legal
        edit replaces the move; an illegal one withdraws it, with the reason. An edit of any
        other message (a move already taken, chat) changes nothing: `ignored`."""
        match = self.matches.get(match_id)
        seat = match.seat_of(user_id) if match is not None else None
        if match is None or seat is None:
            return Reply(False, ignored=True)
        async with match.lock:
            waiting = self.fixes.of(match.id, seat)
            if waiting is None or (message_ref is not None and waiting.ref != message_ref):
                return Reply(False, ignored=True)
            if text == waiting.text:
                return Reply(True)  # (an edit of something else: a link preview, say)
            try:
                command = match.game.parse(match.state, seat, text)
                match.game.check(match.state, seat,
                                 self.timed(match, seat, command, waiting.arrived))
            except (ParseError, IllegalMove) as exc:
                self.fixes.close(match.id, seat)
                await self.release(match, waiting, f"✏️ {exc} Your edited move is not legal, so "
                                                   "nothing waits to be taken now: type your "
                                                   "move again.")
                return Reply(False)
            waiting.text = text
            with contextlib.suppress(NotStored):  # (the edit stands: only its word is lost)
                await self.tell(match, seat,
                                advised(match.game.advice(match.state, seat, command)) or FIXED)
            return Reply(True)

    async def withdraw(self, match_id: int, *, message_ref: str | None = None,
                       user_id: str | None = None) -> Reply:
        """The sender deleted the message of a move waiting in its fix window (or, with
        `user_id` and no ref, the console's `/undo`): no move, and the clock runs again with
        the time it had. Any other message: `ignored`."""
        match = self.matches.get(match_id)
        if match is None:
            return Reply(False, ignored=True)
        async with match.lock:
            seat = match.seat_of(user_id) if user_id is not None else None
            waiting = (self.fixes.by_ref(match.id, message_ref) if message_ref is not None
                       else self.fixes.of(match.id, seat) if seat is not None else None)
            if waiting is None:
                return Reply(False, ignored=True)
            self.fixes.close(match.id, waiting.seat)
            await self.release(match, waiting, WITHDRAWN)  # (a deletion names no sender)
            return Reply(True)

    async def take_fixed(self, due: FixDue) -> None:
        """A move's fix window closed: take it as it stands now, as if it arrived when it was
        first sent (the window is not charged). A refusal (the decision was closed meanwhile)
        goes to the sender's table; a write the store could not take is tried again shortly,
        the clock standing still until then."""
        match = self.matches.get(due.match_id)
        if match is None:
            self.fixes.close(*due)
            return
        async with match.lock:
            waiting = self.fixes.close(*due)
            if waiting is None:
                return
            if match.status != MatchStatus.ACTIVE or \
                    not any(p.key == waiting.key for p in match.prompts):
                return  # ended, or the decision closed by a host: nothing to take
            try:
                command = match.game.parse(match.state, waiting.seat, waiting.text)
                reply = await self.accept(match, waiting.seat, command, "player",
                                          at=waiting.arrived, advise=False)
            except ParseError as exc:
                reply = Reply(False, str(exc))
            except NotStored:
                retry = self.now() + timedelta(seconds=STORE_RETRY_SECONDS)
                self.fixes.open(match.id, waiting.seat, waiting.key, waiting.text, waiting.ref,
                                waiting.arrived, (retry - waiting.arrived).total_seconds())
                return
            if not reply.accepted:
                await self.release(match, waiting, f"✏️ Your move was not taken: {reply.message}")

    async def release(self, match: LiveMatch, waiting: Waiting, note: str = "") -> None:
        """A waiting move that was not taken (withdrawn, refused): its decider's clock runs
        again with the time it had when the move arrived (stored, then made live). The caller
        holds the match lock and has closed the window."""
        now = self.now()
        clock = match.clocks.get(waiting.key)
        moved = [shifted(clock, now - waiting.arrived)] if clock is not None else []
        outbox = [OutboxData(f"seat{waiting.seat}", note)] if note else []
        try:
            await self.store(match, MatchWrite(match.id, match.seq, outbox=outbox,
                                               clocks_changed=moved), now)
        except NotStored:  # the clock goes on as stored (the window is charged, not lost)
            log.warning("match %s: a released move's clock could not be moved", match.id)
        else:
            match.clocks.update((c.key, c) for c in moved)
        self.clocks.arm(match)

    # --- recording ------------------------------------------------------------------------
    async def record(self, match: LiveMatch, action: tuple[int, Command, str] | None,
                     events: Sequence[Event], *, now: datetime,
                     header: Sequence[tuple[str, str]] = (),
                     state: BaseModel | None = None) -> None:
        """Store what one step caused (one transaction), then make it live and hand it to
        delivery. `state` is the state after the step, a copy of the live one (`accept`);
        None: the live state already is (a match's opening). Nothing of the live match
        changes before the write is stored: a failed write raises `NotStored` and leaves
        state, prompts, clocks, status, result, seq, timers and bots as they were."""
        state = match.state if state is None else state
        game = match.game
        before = {p.key for p in match.prompts}
        outcome = game.outcome(state)
        status = MatchStatus.FINISHED if outcome is not None else match.status
        prompts = game.prompts(state) if status in RUNNING else []
        after = {p.key: p for p in prompts}
        # (copies: the live clocks change only once the write is stored)
        closed = [dataclasses.replace(c, status=ClockStatus.DONE)
                  for k, c in match.clocks.items() if k not in after]
        new_prompts = [p for k, p in after.items() if k not in before]
        pause = break_seconds(match, events)
        start = now + timedelta(seconds=pause)  # a break between rounds: clocks start after it
        new_clocks = [self.clocks.new_clock(p, start) for p in new_prompts]
        if pause > 0:  # the decisions are posted (and their clocks run) when the break ends
            for c in new_clocks:
                c.status = ClockStatus.BREAK
        clocks = {c.key: c for c in new_clocks}
        footer: list[tuple[str, str]] = []
        fields: dict[str, Any] = {}
        result = match.result
        if outcome is not None:
            result = {"winner": outcome.winner, "reason": outcome.reason,
                      "score": list(outcome.score) if outcome.score else None}
            fields.update(status=MatchStatus.FINISHED, result=result, ended_at=now)
            footer.append(("public", outcome_line(outcome, match.seed, match.salt)))
        seq = match.seq + (1 if action else 0)
        shown = game.status(state) if outcome is None else None
        posted = new_prompts if pause <= 0 else []
        outbox = compose(events, posted, clocks, header=header, footer=footer, status=shown,
                         met=self.table.met.get(match.id, ()))
        if outcome is not None:
            mark_final(outbox)
        write = MatchWrite(match.id, seq, outbox=outbox, clocks_new=new_clocks,
                           clocks_changed=closed, match_fields=fields)
        if has_feed(match.transport):  # what this step made over, for the spectator feed
            write.outbox += reveal_rows(game, match.state, state, outcome is not None)
        if outcome is not None:  # history and ratings, in the result's own transaction
            ended = as_ended(match, status, result)
            write.also.append(result_statement(ended, now))
            write.also.extend(self.ends.statements(ended, now))
        if action is not None:
            seat, command, source = action
            write.action = (seat, command.model_dump(mode="json"), source)
            if game.snapshots and (seq % self.snapshot_every == 0 or outcome is not None):
                write.snapshot = state.model_dump_json()
        await self.store(match, write, now)
        # Stored: the step takes effect.
        match.state, match.seq, match.status, match.result = state, seq, status, result
        self.table.explained(match.id, posted)
        match.prompts = prompts
        for c in closed:
            match.clocks.pop(c.key, None)
            self.clocks.scheduler.set((match.id, c.key), None)
            self.bots.settled(match.id, c.key)
        match.clocks.update(clocks)
        self.clocks.arm(match)
        self.bots.schedule(match)
        # the next step's copy of the state, made once this one has answered
        asyncio.get_running_loop().call_soon(match.prepare_draft)
        if outcome is not None:
            self.ends.tell(match)
            await self.ends.notify()

    async def store(self, match: LiveMatch, write: MatchWrite, now: datetime) -> None:
        """`commit`, or `NotStored` (a sentence for the person) when the store could not
        take the write: the caller has changed nothing of the live match yet."""
        try:
            await self.committer(match, write, now)
        except Exception as exc:
            if isinstance(exc, StoreUnavailable | FencedOut):
                log.warning("match %s: a write was not stored: %s", match.id, exc)
            else:
                log.exception("match %s: a write was not stored", match.id)
            if log_conflict(exc):  # the memory is stale: retrying it would fail again
                self.conflicted(match)
            raise NotStored(NOT_STORED) from exc

    async def commit(self, match: LiveMatch, write: MatchWrite, now: datetime) -> None:
        """Store the write and hand its messages to delivery (their prompts' clocks held
        until they arrive)."""
        # a person's move is stored at once; clocks, bots and the rest share transactions
        write.outbox = mirrored(match.transport, write.outbox)  # the spectator feed's copy
        waited_on = write.action is not None and write.action[2] in WAITED_ON
        fenced(self.repo, write, match.transport)  # sharded: by the lease held now
        ids = await self.repo.commit(write, now, at_once=waited_on)
        self.enqueue(match, write, ids, now, hold=True)

    def enqueue(self, match: LiveMatch, write: MatchWrite, ids: Sequence[int], now: datetime,
                *, hold: bool) -> None:
        """Hand a stored write's messages to delivery (`hold`: their prompts' clocks wait
        for them to arrive)."""
        for message_id, data in zip(ids, write.outbox, strict=True):
            if hold:
                self.clocks.hold(match.id, message_id, data.payload)
            self.delivery.enqueue(match.info, StoredMessage(
                id=message_id, match_id=match.id, seq=write.seq, audience=data.audience,
                text=data.text, payload=data.payload, created_at=now))


def advised(advice: str | None) -> str:
    """The game's advice as the umpire's line (a sign first, as the umpire's own lines have:
    `verify` tells them from the game's events by it)."""
    return f"💡 {advice}" if advice else ""


def break_seconds(match: LiveMatch, events: Sequence[Event]) -> float:
    """The break an event asks for (`pause_seconds`, e.g. between two rounds). A break is for
    the people at the table: between two built-in bots (the demo) there is none."""
    if all(p.bot is not None for p in match.players):
        return 0.0
    return max((float(e.data.get("pause_seconds", 0)) for e in events), default=0.0)


def answered(pending: Sequence[Prompt], command: Command) -> Prompt:
    """The pending prompt a command answers (by key for a timeout, else the seat's prompt)."""
    if isinstance(command, Timeout):
        return next((p for p in pending if p.key == command.prompt_key), pending[0])
    return pending[0]


def oldest_clock(match: LiveMatch, seat: int) -> ClockData | None:
    clocks = [c for c in match.clocks.values()
              if c.seat == seat and c.status == ClockStatus.ARMED]
    return min(clocks, key=lambda c: c.started_at) if clocks else None


def validation_text(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors())
