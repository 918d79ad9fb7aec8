"""Bot files at batch speed: many matches at once, one round trip per batch of calls.

Every bot file still runs in a process of its own (`pyhost.py`, `host.js`), killable, with
its time limit per call; but instead of one pipe round trip per call, a worker plays up to
LIVE matches at the same time and sends each bot process, per round trip, every call its
live matches are waiting for ("<slot> <command>" lines, ended by "."). The host keeps one
bot instance per match (slot) and writes the batch's answers together.

Each match is the ordinary `match.play_match`, run in a greenlet: a bot file's seat is a
`Remote` whose calls queue a line and switch back to the driver until the answer comes, so
every check (valid index, per-call time limit, the first failure in call order) is the
same code as one call at a time, and a match's result does not depend on what other
matches run beside it. The match's clock leaves out its waits for other matches; the host
times each of the bot's calls itself and reports a call over the limit.

A host that has answered nothing for limit + SLACK seconds (a call that never returns) is
killed and its bot disqualified in the match of the call it was stuck in; the bot leaves the
tournament, and the other matches go on at once.

When every bot is a bot file, `lockstep.py` plays the chunk instead (one message per bot per
step, no greenlets); this mode serves tournaments that mix bot files and built-in bots.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Callable, Iterable
from time import perf_counter
from typing import Any

from greenlet import GreenletExit, greenlet

from bot.arena.match import CallTimeout, Deal, Disqualified, match_key, play_match
from bot.arena.process import SLACK, BotProcessError, PipeBot, _Invalid

LIVE = 256  # matches played at the same time in one worker


class Host:
    """A bot file's process in batch mode: the lines to send, the seats waiting for an
    answer (in order), and what has been read but not yet handed out."""

    def __init__(self, bot: PipeBot, index: int) -> None:
        self.bot = bot
        self.index = index  # the bot's number in the tournament
        self.lines: list[str] = []
        self.waiting: list[Remote] = []
        self.buf = b""
        self.progress = perf_counter()  # when the host last showed it is working
        self.alive = True

    def flush(self) -> None:
        self.lines.append(".\n")
        with contextlib.suppress(OSError):  # the process ended: the read says why
            os.write(self.bot.wfd, "".join(self.lines).encode())
        self.lines = []
        self.progress = perf_counter()

    def read(self) -> list[str] | None:
        """The complete lines available now; None if the process closed its answer pipe."""
        chunk = os.read(self.bot.rfd, 65536)
        if not chunk:
            return None
        self.progress = perf_counter()
        self.buf += chunk
        *lines, self.buf = self.buf.split(b"\n")
        return [line.decode(errors="replace") for line in lines]

    def kill(self) -> None:
        self.alive = False
        self.waiting = []
        self.lines = []
        self.bot.close()


class Remote:
    """A bot file's seat in one match: its four methods (and `arena_sync`) as batch lines."""

    def __init__(self, host: Host, slot: int, seat: int, waited: list[float],
                 driver: greenlet) -> None:
        self.host = host
        self.slot = slot
        self.seat = seat
        self.greenlet = greenlet.getcurrent()  # the match's
        self.waited = waited  # [seconds this match spent waiting for answers]
        self.driver = driver
        self.pending: list[str] = []  # notifications sent since the last answer
        self.calls: tuple[list[str], str] = ([], "")  # the calls the answer is for
        names = host.bot.names
        self.name_of = lambda c: names.get(c, c)
        for method in getattr(host.bot, "skip", ()):
            setattr(self, method, _nothing)  # a method that can do nothing: not sent
        host.lines.append(f"{slot} n\n")

    def draft_pick(self, cards: list[str]) -> object:
        return self._answer(f"{self.slot} p {cards[0]} {cards[1]}\n", "draft_pick")

    def draft_receive(self, card: str) -> None:
        self.host.lines.append(f"{self.slot} r {card}\n")
        self.pending.append("draft_receive")

    def main_play(self, cards: list[str], base: str) -> object:
        return self._answer(f"{self.slot} m {base} {' '.join(cards)}\n", "main_play")

    def main_postprocess(self, card: str) -> None:
        self.host.lines.append(f"{self.slot} o {card}\n")
        self.pending.append("main_postprocess")

    def arena_sync(self) -> None:
        """The end of the match: failures of the last notifications, and the slot is freed."""
        self._answer(f"{self.slot} s\n", "the end of the match")

    def _answer(self, line: str, where: str) -> object:
        host = self.host
        if not host.alive:
            raise BotProcessError("the process of the bot was stopped earlier")
        host.lines.append(line)
        host.waiting.append(self)
        self.calls = (self.pending, where)  # named only if the bot hangs (`what`)
        self.pending = []
        start = perf_counter()
        text = self.driver.switch()
        self.waited[0] += perf_counter() - start
        try:
            return int(text)
        except ValueError:
            pass
        if text.startswith("E "):
            kind, _, sentence = text[2:].partition("\t")
            raise CallTimeout(sentence) if kind == "timeout" else BotProcessError(sentence)
        if text == "ok":
            return None
        return _Invalid(text[2:] if text.startswith("X ") else text)

    def what(self) -> str:
        """The calls the pending answer is for, in the bot's language ("a or b")."""
        pending, where = self.calls
        return " or ".join(dict.fromkeys(self.name_of(c) for c in (*pending, where)))


def _nothing(card: str) -> None:
    """Stands for a notification method of the bot whose body is empty."""


def batchable(contestants: list[Any]) -> bool:
    """Batch mode needs every bot file to start fresh each match (a Python class, or a
    JavaScript bot, whose host makes a new object per match) and at least one bot file."""
    files = [c for c in contestants if isinstance(c.target, PipeBot)]
    return bool(files) and all(
        c.target.fresh_instances or type(c.target).__name__ == "JsBot" for c in files)


def play_batch(contestants: list[Any], schedule: Any, seed: int, limit: float,
               matches: Iterable[int], dead: set[int], skipped: int,
               emit: Callable[[int, int], None], disqualify: Callable[[int, int, str], None],
               live_max: int = LIVE) -> None:
    """Play `matches` (numbers, in schedule order) up to `live_max` at a time. For each:
    emit(m, seat 0's score, or `skipped` when not played); disqualify(m, bot, reason) for a
    failure (the bot is added to `dead` and its process stopped; its live matches are
    dropped as skipped)."""
    driver = greenlet.getcurrent()
    hosts = {i: Host(c.target, i) for i, c in enumerate(contestants)
             if isinstance(c.target, PipeBot)}
    twin = len(schedule.seatings)
    deals: dict[int, Deal] = {}
    running: dict[int, tuple[int, int]] = {}  # match -> its two bots

    def run(m: int, a: int, b: int, deal: Deal) -> None:
        waited = [0.0]

        def clock() -> float:
            return perf_counter() - waited[0]

        seats = [Remote(hosts[x], m, seat, waited, driver) if x in hosts
                 else contestants[x].for_match() for seat, x in enumerate((a, b))]
        try:
            s0 = play_match(seats[0], seats[1], deal, limit, [0.0, False],
                            (a in hosts, b in hosts), clock)
        except Disqualified as dq:
            fail(m, (a, b)[dq.side], dq.reason)
            return
        except GreenletExit:
            return
        if running.pop(m, None) is not None:
            emit(m, s0)
        for x in (a, b):
            if x in dead:
                reap(x)

    def fail(m: int, bot: int, reason: str, hung: bool = False) -> None:
        """Bot `bot` failed in match m. Its later matches are dropped (void anyway: it left
        the tournament); its earlier live ones play on, so that the first failure in
        schedule order is the one reported, as one call at a time would find it, unless its
        process is hung and must be stopped now."""
        dead.add(bot)
        disqualify(m, bot, reason)
        for other, pair in list(running.items()):
            if bot in pair and (other >= m or hung):
                del running[other]
                emit(other, skipped)
        if hung:
            hosts[bot].kill()
        reap(bot)

    def reap(bot: int) -> None:
        """Stop a disqualified bot's process once none of its matches is live."""
        if bot in hosts and hosts[bot].alive and not any(bot in p for p in running.values()):
            hosts[bot].kill()

    todo = iter(matches)
    more = True
    while True:
        while more and len(running) < live_max:
            m = next(todo, None)
            if m is None:
                more = False
                break
            a, b, deal_no = schedule.match(m)
            if a in dead or b in dead:
                emit(m, skipped)
                continue
            if deal_no not in deals:
                if len(deals) > 2 * live_max // twin + 4:
                    deals.pop(next(iter(deals)))
                deals[deal_no] = Deal(match_key(seed, deal_no))
            running[m] = (a, b)
            greenlet(run).switch(m, a, b, deals[deal_no])
        if not running:
            return
        waiting = [h for h in hosts.values() if h.alive and (h.lines or h.waiting)]
        for h in waiting:
            if h.lines:
                h.flush()
        waiting = [h for h in waiting if h.waiting]
        if not waiting:  # every live match waits on a dead host: all were dropped
            continue
        deadline = min(h.progress for h in waiting) + limit + SLACK
        ready, _, _ = select.select([h.bot.rfd for h in waiting], [], [],
                                    max(0.0, deadline - perf_counter()))
        for h in waiting:
            if h.bot.rfd in ready:
                _deliver(h, h.read(), running, fail)
            elif perf_counter() - h.progress > limit + SLACK:
                _hung(h, running, fail, limit)


def _deliver(host: Host, lines: list[str] | None, running: dict[int, tuple[int, int]],
             fail: Callable[..., None]) -> None:
    """Hand each answer to the match waiting for it (in order); "+" only shows progress."""
    if lines is None:  # the process ended; its unwritten answers are lost, so which call
        # ended it is not known: its earliest live match, as one call at a time finds it
        live = [m for m, pair in running.items() if host.index in pair]
        if live:
            fail(min(live), host.index, f"the process of the bot ended ({host.bot._ended()})",
                 hung=True)
        else:
            host.kill()
        return
    for line in lines:
        if line == "+" or not host.waiting:
            continue
        remote = host.waiting.pop(0)
        if remote.slot in running:  # else dropped: a bot of the match left
            remote.greenlet.switch(line)  # the match runs until it waits again


def _hung(host: Host, running: dict[int, tuple[int, int]],
          fail: Callable[..., None], limit: float) -> None:
    """No answer for limit + SLACK: the call in progress never returned."""
    remote = host.waiting[0]
    took = perf_counter() - host.progress
    reason = (f"exceeded the time limit of {limit:g} s in {remote.what()}: no answer after "
              f"{took:.1f} s, so the bot was stopped")
    if remote.slot in running:
        fail(remote.slot, host.index, reason, hung=True)
    else:
        live = [m for m, pair in running.items() if host.index in pair]
        if live:
            fail(min(live), host.index, reason, hung=True)
        else:
            host.kill()
