"""Bot files in lockstep: a wave of matches, one message per bot per step.

When every bot of a tournament starts fresh each match and one at least is a bot file
(`batchable`), all matches of a wave (a chunk, up to 500) take the same steps at the same
time: five draft rounds, ten games and the end. For each step and seat, each bot process
gets one message with a fixed-width record per match where it has that seat (its pending
notification's card, then the call's cards), and answers with one character per match
(`hostloop.answer_batch`, `host.js`). A built-in bot answers the same records in the worker
(`_Local`, running `hostloop.answer_batch`), and a match between two built-in bots is played at
once by `match.play_match`. Seat 0's calls of a step go first, to every bot at
once (the processes work in parallel), then seat 1's, only in the matches whose seat-0 call
did not fail: exactly the calls that one call at a time makes, in the same order within
each match, so the results are the same (a test compares them).

The rules are driven as in `match.play_match` (the same `Deal`, `DRAFT` positions, draws
and judge table); every check is the same: an invalid index (`_bad`), a call over the limit
or a failure reported by the host (which times every call), a notification's failure
reported with the next answer. A disqualification in match m drops the bot's later live
matches (void: it left the tournament) and lets its earlier ones play on, so the first
failure in schedule order is the one reported. A process that answers nothing for
limit + SLACK (a call that never returns) is killed, its bot disqualified in the match of
the first unanswered call, and its other matches dropped; a process that ends, in its
earliest live match.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Callable, Iterable
from time import perf_counter
from typing import Any

from bot.arena.hostloop import answer_batch
from bot.arena.match import (
    _DRAFT_BYTES,
    _GAMES_BYTES,
    GAMES,
    SIZES,
    Deal,
    Disqualified,
    _bad,
    match_key,
    play_match,
)
from bot.arena.process import SLACK, PipeBot, _Invalid, failure_parts
from bot.arena.watchdog import Watchdog
from bot.arena.wave import Wave, deal_bytes
from games.rps_poker.rules import DRAFT_DEAL, DRAFT_ROUNDS

_DIGITS = "0123456789"
_DIGIT = {c: i for i, c in enumerate(_DIGITS)}
# (kind, step, size of the answer's range, the call, the notification before it) per step
STEPS = (*(("d", r, DRAFT_DEAL, "draft_pick", "draft_receive" if r else "")
           for r in range(DRAFT_ROUNDS)),
         *(("m", g, 0, "main_play", "main_postprocess" if g else "draft_receive")
           for g in range(GAMES)),
         ("s", 0, 1, "the end of the match", "main_postprocess"))


def batchable(contestants: list[Any]) -> bool:
    """Lockstep needs every bot to start fresh each match (a built-in bot, a Python class, or
    a JavaScript bot, whose host makes a new object per match) and at least one bot file
    (built-in bots alone are faster one match at a time)."""
    files = [c.target for c in contestants if isinstance(c.target, PipeBot)]
    return bool(files) and all(c.fresh for c in contestants
                               if not isinstance(c.target, PipeBot)) and all(
        f.fresh_instances or type(f).__name__ == "JsBot" for f in files)


class _Match:
    """One live match: its number, bots, and place `w` in its wave (whose `Wave` holds its
    cards, answers and points)."""

    __slots__ = ("m", "key", "bots", "live", "w")

    def __init__(self, m: int, a: int, b: int, w: int) -> None:
        self.m = m
        self.key = str(m)
        self.bots = (a, b)
        self.live = True
        self.w = w


class _Host:
    """A bot file's process: the batch it is answering (its matches, in order) and the
    answer characters and details read so far."""

    def __init__(self, bot: PipeBot, index: int) -> None:
        self.bot = bot
        self.index = index
        self.alive = bot.rfd >= 0  # (a process stopped in an earlier chunk stays stopped)
        self.batch: list[_Match] = []
        self.ws: list[int] = []  # the batch's places in the wave
        self.chars = ""
        self.details: list[str] = []
        self.buf = b""
        self.progress = 0.0

    def send(self, head: str, batch: list[_Match], keys: str, payload: bytes) -> None:
        self.batch = batch
        self.chars = ""
        self.details = []
        with contextlib.suppress(OSError):  # the process ended: the read says why
            os.write(self.bot.wfd, b"".join((f"@{head} {keys} ".encode(), payload, b"\n")))
        self.progress = perf_counter()

    def due(self) -> bool:
        return self.alive and len(self.chars) < len(self.batch)

    def read(self) -> bool:
        """Take what the process wrote; False if it closed its answer pipe."""
        chunk = os.read(self.bot.rfd, 1 << 16)
        if not chunk:
            return False
        self.progress = perf_counter()
        *lines, self.buf = (self.buf + chunk).split(b"\n")
        for line in lines:
            chars, *details = line.decode(errors="replace").split("\x1f")
            self.chars += chars
            self.details += details
        return True

    def kill(self) -> None:
        self.alive = False
        self.batch = []
        self.bot.close()


class _Local:
    """A built-in bot in lockstep: the same records and answers as a bot file's process
    (`hostloop.answer_batch`), run in this worker and timed call by call; a call that never
    returns is stopped by the worker's watchdog (`hung`: the match it was stuck in)."""

    names: dict[str, str] = {}
    skip = ()

    def __init__(self, target: Any, index: int, limit: float, beat: list) -> None:
        self.target = target
        self.index = index
        self.limit = limit
        self.beat = beat
        self.alive = True
        self.slots: dict[str, Any] = {}
        self.batch: list[_Match] = []
        self.ws: list[int] = []
        self.chars = ""
        self.details: list[str] = []
        self.hung: _Match | None = None

    def send(self, head: str, batch: list[_Match], keys: str, payload: bytes) -> None:
        self.batch = batch
        pieces: list[str] = []
        beat = self.beat
        try:
            answer_batch(f"@{head} {keys} {payload.decode()}", self.slots, self.target,
                         self.limit, pieces.append, Exception, beat)
        except KeyboardInterrupt:
            if not beat[1]:  # Ctrl-C, not the watchdog
                raise
            beat[1] = False
            self.hung = batch[beat[2]]
        finally:
            beat[0] = 0.0
        chars, details = [], []
        for line in "".join(pieces).split("\n")[:-1]:
            c, *d = line.split("\x1f")
            chars.append(c)
            details += d
        self.chars = "".join(chars)
        self.details = details

    def due(self) -> bool:
        return False

    def kill(self) -> None:
        self.alive = False
        self.batch = []


def play_lockstep(contestants: list[Any], schedule: Any, seed: int, limit: float,
                  matches: Iterable[int], dead: set[int], skipped: int,
                  emit: Callable[[int, int], None],
                  disqualify: Callable[[int, int, str], None], wave: int = 500) -> None:
    """Play `matches` (numbers, in schedule order), a wave at a time. For each: emit(m, seat
    0's score, or `skipped` when not played); disqualify(m, bot, reason) for a failure (the
    bot is added to `dead` and its process stopped; its later live matches are dropped as
    skipped). A match between two built-in bots is played at once with `play_match`."""
    watchdog = Watchdog(limit)
    beat = watchdog.beat
    beat.append(0)  # the position in its batch of the built-in bot's call in progress
    hosts: dict[int, _Host | _Local] = {
        i: _Host(c.target, i) if isinstance(c.target, PipeBot) else
        _Local(c.target, i, limit, beat) for i, c in enumerate(contestants)}
    todo = list(matches)
    try:
        for start in range(0, len(todo), wave):
            running: dict[int, _Match] = {}
            deals: dict[int, tuple[Deal, bytes]] = {}
            cards = Wave(len(todo[start:start + wave]), _DRAFT_BYTES, _GAMES_BYTES)
            for m in todo[start:start + wave]:
                a, b, deal_no = schedule.match(m)
                if a in dead or b in dead:
                    emit(m, skipped)
                    continue
                known = deals.get(deal_no)
                if known is None:
                    new = Deal(match_key(seed, deal_no))
                    known = deals[deal_no] = (new, deal_bytes(new))
                deal = known[0]
                if type(hosts[a]) is _Local and type(hosts[b]) is _Local:
                    try:
                        emit(m, play_match(contestants[a].for_match(),
                                           contestants[b].for_match(), deal, limit, beat))
                    except Disqualified as dq:  # (its later matches are skipped: dead)
                        dead.add((a, b)[dq.side])
                        disqualify(m, (a, b)[dq.side], dq.reason)
                    finally:
                        beat[0] = 0.0
                    continue
                running[m] = mt = _Match(m, a, b, len(running))
                cards.deal(mt.w, known[1])
            _play_wave(hosts, running, cards, limit, dead, skipped, emit, disqualify)
    finally:
        watchdog.stop()


def _play_wave(hosts: dict[int, Any], running: dict[int, _Match], cards: Wave,
               limit: float, dead: set[int], skipped: int, emit: Callable[[int, int], None],
               disqualify: Callable[[int, int, str], None]) -> None:
    """Play the wave's matches (`running`, their cards in `cards`) step by step to their
    end or disqualification."""
    batches: dict[tuple[int, int], tuple[list[_Match], list[int], str]] = {}

    def fail(m: int, bot: int, reason: str, hung: bool = False) -> None:
        """Bot `bot` failed in match m: it leaves the tournament; its later live matches
        are dropped, its earlier ones play on (all of them when its process is stopped)."""
        batches.clear()  # (each bot's live matches are found again)
        dead.add(bot)
        disqualify(m, bot, reason)
        for other, mt in list(running.items()):
            if bot in mt.bots and (other >= m or hung):
                del running[other]
                mt.live = False
                emit(other, skipped)
        host = hosts[bot]
        if host.alive and (hung or not any(bot in mt.bots for mt in running.values())):
            host.kill()

    # Each bot's matches in each seat, in schedule order.
    seats: tuple[dict[int, list[_Match]], dict[int, list[_Match]]] = ({}, {})
    for mt in running.values():
        seats[0].setdefault(mt.bots[0], []).append(mt)
        seats[1].setdefault(mt.bots[1], []).append(mt)
    for kind, step, size, call, note in STEPS:
        if kind == "s":
            _end(hosts, running, cards, seats, limit, fail, call, note, emit)
            break
        n = size or SIZES[step]
        for seat in (0, 1):
            sent = _send(hosts, seats[seat], cards, batches, kind, step, seat)
            _wait(sent, running, limit, fail, call, note)
            _stopped(sent, running, limit, fail, call, note)
            for host in sent:
                if not host.alive:
                    continue
                if not host.chars.strip(_DIGITS[:n]):  # every answer a valid index
                    # (a dropped match is still played through, uncounted)
                    if seat == 0:
                        cards.picks(host.ws, host.chars)
                    else:
                        cards.plays(kind, step, host.ws, host.chars)
                    host.batch = []
                    continue
                details = iter(host.details)
                bot = host.index
                for mt, ch in zip(host.batch, host.chars, strict=False):
                    i = _DIGIT.get(ch)  # None for "!": a detail follows
                    if i is None or i >= n:
                        if mt.live:
                            fail(mt.m, bot, _reason(_value(next(details)) if i is None else i,
                                                    seat, kind, n, limit).reason)
                        elif i is None:
                            next(details)
                    elif not mt.live:
                        continue
                    elif seat == 0:
                        cards.set_pick(mt.w, i)
                    elif kind == "d":
                        cards.drafted(mt.w, step, i)
                    else:  # both plays of game `step` are in: judge, notify, draw
                        cards.played(mt.w, step, i)
                host.batch = []
    for bot, host in hosts.items():
        if bot in dead and host.alive:
            host.kill()


def _end(hosts: dict[int, Any], running: dict[int, _Match], cards: Wave,
         seats: tuple[dict[int, list[_Match]], ...], limit: float, fail: Callable[..., None],
         call: str, note: str, emit: Callable[[int, int], None]) -> None:
    """The end of the wave's matches (both seats at once: only failures of the last
    notifications are reported); seat 0's failures count first, as play_match finds them."""
    sent = _send(hosts, {}, cards, {}, "s", 0, 2, seats)
    _wait(sent, running, limit, fail, call, note)
    _stopped(sent, running, limit, fail, call, note)
    failures = []
    for host in sent:
        if host.alive and host.chars.count("0") < len(host.chars):
            details = iter(host.details)
            for mt, ch in zip(host.batch, host.chars, strict=False):
                if ch != "0":
                    value = _value(next(details)) if ch == "!" else _DIGIT[ch]
                    failures.append((mt.bots.index(host.index), mt.m, host.index, value))
        host.batch = []
    for seat, m, bot, value in sorted(failures, key=lambda f: f[:2]):
        if m in running:
            fail(m, bot, _reason(value, seat, "s", 1, limit).reason)
    for mt in list(running.values()):
        del running[mt.m]
        emit(mt.m, GAMES - cards.score1(mt.w))


def _send(hosts: dict[int, Any], matches_of: dict[int, list[_Match]], cards: Wave,
          batches: dict[tuple[int, int], tuple[list[_Match], list[int], str]], kind: str,
          step: int, seat: int, seats: tuple[dict[int, list[_Match]], ...] = ()
          ) -> list[_Host]:
    """Send each bot its records of this step and seat (2: the end, both seats). Each bot's
    live matches in a seat (`batches`) are found once, until a failure drops some."""
    sent = []
    head = f"{kind}{step}" if kind != "s" else "s"
    if seat == 2:
        ends: dict[int, list[tuple[_Match, bytes]]] = {}
        for s in (0, 1):
            for bot, matches in seats[s].items():
                ends.setdefault(bot, []).extend(
                    (mt, cards.notice(mt.w, s)) for mt in matches if mt.live)
        for bot, pairs in ends.items():
            host = hosts[bot]
            if host.alive and pairs:
                pairs.sort(key=lambda p: p[0].m)
                batch = [mt for mt, _ in pairs]
                host.send(head, batch, ",".join([mt.key for mt in batch]),
                          b"".join([n for _, n in pairs]))
                sent.append(host)
        return sent
    for bot, matches in matches_of.items():
        host = hosts[bot]
        known = batches.get((bot, seat))
        if known is None:
            batch = [mt for mt in matches if mt.live]
            known = batches[bot, seat] = (batch, [mt.w for mt in batch],
                                          ",".join([mt.key for mt in batch]))
        batch, ws, keys = known
        if not host.alive or not batch:
            continue
        host.ws = ws
        host.send(head, batch, keys, cards.records(kind, step, seat, ws))
        sent.append(host)
    return sent


def _wait(sent: list[_Host], running: dict[int, _Match], limit: float,
          fail: Callable[..., None], call: str, note: str) -> None:
    """Read until every live host has answered its batch; a host silent for limit + SLACK
    is killed (its bot disqualified in the match of its first unanswered call)."""
    while True:
        due = [h for h in sent if h.due()]
        if not due:
            return
        deadline = min(h.progress for h in due) + limit + SLACK
        ready, _, _ = select.select([h.bot.rfd for h in due], [], [],
                                    max(0.0, deadline - perf_counter()))
        for h in due:
            if h.bot.rfd in ready:
                if not h.read():
                    live = [m for m, mt in running.items() if h.index in mt.bots]
                    reason = f"the process of the bot ended ({h.bot._ended()})"
                    if live:
                        fail(min(live), h.index, reason, hung=True)
                    else:
                        h.kill()
            elif perf_counter() - h.progress > limit + SLACK:
                stuck = h.batch[len(h.chars)]
                names = h.bot.names
                skip = getattr(h.bot, "skip", ())
                what = " or ".join(names.get(c, c) for c in (note, call)
                                   if c and c not in skip)
                reason = (f"exceeded the time limit of {limit:g} s in {what}: no answer "
                          f"after {perf_counter() - h.progress:.1f} s, so the bot was stopped")
                live = [m for m, mt in running.items() if h.index in mt.bots]
                if stuck.m in running:
                    fail(stuck.m, h.index, reason, hung=True)
                elif live:
                    fail(min(live), h.index, reason, hung=True)
                else:
                    h.kill()


def _stopped(sent: list[Any], running: dict[int, _Match], limit: float,
             fail: Callable[..., None], call: str, note: str) -> None:
    """A built-in bot's call that the watchdog stopped disqualifies it in that match."""
    for host in sent:
        if type(host) is _Local and host.hung is not None:
            mt, host.hung = host.hung, None
            entry = host.slots.get(mt.key)  # [bot, receive, postprocess]; None: does nothing
            inert = entry is not None and entry[1 if note == "draft_receive" else 2] is None
            what = " or ".join(c for c in (note, call) if c and not (c == note and inert))
            reason = (f"exceeded the time limit of {limit:g} s in {what}: the call never "
                      "returned and was stopped")
            live = [m for m, other in running.items() if host.index in other.bots]
            if mt.m in running:
                fail(mt.m, host.index, reason, hung=True)
            elif live:
                fail(min(live), host.index, reason, hung=True)


def _value(detail: str) -> object:
    """An answer other than a digit: the host's old answer line."""
    if detail.startswith("E "):
        return detail
    if detail.startswith("X "):
        return _Invalid(detail[2:])
    try:
        return int(detail)
    except ValueError:
        return _Invalid(detail)


def _reason(value: object, seat: int, kind: str, size: int, limit: float) -> Disqualified:
    """The disqualification for an answer that is not a valid index, as play_match words it."""
    if isinstance(value, str):  # "E timeout|error\t<sentence>[\t<traceback>]"
        failure, sentence, _trace = failure_parts(value)
        return Disqualified(seat, sentence if failure == "timeout" else sentence[:300])
    return _bad(seat if kind == "d" else 4 + seat, (0.0, 0.0), limit, value, size)
