"""The tournament: round-robin cycles, worker processes, disqualification, totals.

Schedule: cycle c plays one match per unordered pair of bots (i < j), in a fixed order;
matches are numbered in that order. Balance: cycles come in twins. Cycle 2k seats i first
(seat 0) and cycle 2k+1 seats j first, and every match of both cycles plays deal k (the
same shuffles), so each pair plays every deal once from each seat, and every bot meets the
same deals (like duplicate bridge). With an odd number of cycles the last one has no twin.

Workers: the matches are cut into chunks of CHUNK; with J jobs, worker w plays chunks
w, w+J, w+2J, ... in order (a fixed split, so a run is repeatable for the same --jobs),
except when every bot is built-in (no state outside its instance): then each chunk goes to
whichever worker is free (`worker_chunks`).

Disqualification: a bot that raises, returns an invalid index or runs past the per-call
limit leaves the tournament: every match it played or would have played is void, for every
opponent (so the table does not depend on the schedule). The first failing match in
schedule order is the one reported; a worker stops playing the bot's matches once it has
seen the failure itself.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import queue as queue_module
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, overload

from bot.arena.loader import BotSpec, Contestant
from bot.arena.match import (
    Deal,
    Disqualified,
    match_key,
    play_match,
    quiet_notices,
)
from bot.arena.watchdog import Watchdog

CHUNK = 500
SKIPPED = 255  # a match a worker did not play (one bot already disqualified there)
POINTS = 10


@dataclass
class Schedule:
    bots: int
    rounds: int
    pairs: list[tuple[int, int]] = field(init=False)
    seatings: tuple[tuple[int, int], ...] = field(init=False)

    def __post_init__(self) -> None:
        self.pairs = list(combinations(range(self.bots), 2))
        # The seats of matches m with the same m % len(seatings): a twin of cycles.
        self.seatings = (*self.pairs, *((j, i) for i, j in self.pairs))

    @property
    def matches(self) -> int:
        return self.rounds * len(self.pairs)

    def match(self, m: int) -> tuple[int, int, int]:
        """(bot in seat 0, bot in seat 1, deal number) of match m."""
        deal, k = divmod(m, len(self.seatings))
        return (*self.seatings[k], deal)


@dataclass
class MatchResult:
    number: int
    seats: tuple[int, int]
    score: tuple[int, int]
    disqualified: int | None = None  # the bot (index), if this match disqualified one
    reason: str = ""


def play_chunks(specs: list[BotSpec], schedule: Schedule, seed: int, limit: float,
                chunks: Iterable[int], emit: Callable[[int, bytes, list[tuple]], None],
                batch: bool = True) -> None:
    """Play the given chunks in order; emit(chunk, scores, disqualifications) after each.

    scores[k] is seat 0's score of match chunk*CHUNK+k (SKIPPED if not played);
    disqualifications are (match, bot, reason). With bot files that start fresh each match,
    the matches of a chunk are played many at a time (`lockstep.py`) unless `batch` is False.
    """
    contestants = [s.load(limit, wait=False) for s in specs]  # bot files start together
    try:
        for s, c in zip(specs, contestants, strict=True):
            if s.kind != "builtin":
                c.target.loaded()
    except BaseException:
        for c in contestants:
            c.close()
        raise
    from bot.arena.lockstep import batchable  # (bot files only: its imports wait till then)

    if batch and batchable(contestants):
        _play_chunks_batched(contestants, schedule, seed, limit, chunks, emit)
        return
    dead: set[int] = set()
    watchdog = Watchdog(limit)
    beat = watchdog.beat
    twin = len(schedule.seatings)
    # Per seating: (bot in seat 0, bot in seat 1, their makers, their arena_sync flags,
    # their empty notifications when both are built-in: see play_match's `quiet`).
    quiet = {i: quiet_notices(c.for_match()) for i, (s, c) in enumerate(
        zip(specs, contestants, strict=True)) if s.kind == "builtin"}
    seats = [(a, b, contestants[a].for_match, contestants[b].for_match,
              (contestants[a].sync, contestants[b].sync),
              quiet[a] + quiet[b] if a in quiet and b in quiet else None)
             for a, b in schedule.seatings]
    deal_no, deal = -1, None
    chunk, scores = -1, bytearray()
    dqs: list[tuple[int, int, str]] = []  # (match, seat's bot, reason)
    try:
        for chunk in chunks:
            first = chunk * CHUNK
            last = min(first + CHUNK, schedule.matches)
            scores = bytearray()
            dqs = []
            for m in range(first, last):
                a, b, new0, new1, sync, notes = seats[m % twin]
                if dead and (a in dead or b in dead):
                    scores.append(SKIPPED)
                    continue
                if m // twin != deal_no:
                    deal_no = m // twin
                    deal = Deal(match_key(seed, deal_no))
                try:
                    scores.append(play_match(new0(), new1(), deal, limit, beat, sync, notes))  # type: ignore[arg-type]  # (set at m = 0)
                except Disqualified as dq:
                    culprit = (a, b)[dq.side]
                    dead.add(culprit)
                    dqs.append((m, culprit, dq.reason))
                    scores.append(POINTS if dq.side == 1 else 0)
                    contestants[culprit].close()
                beat[0] = 0.0
            emit(chunk, bytes(scores), dqs)
            chunk = -1
    except KeyboardInterrupt:  # Ctrl-C: what this chunk played so far still counts
        if chunk >= 0:
            emit(chunk, bytes(scores), dqs)
        raise
    finally:
        watchdog.stop()
        for c in contestants:
            c.close()


def _play_chunks_batched(contestants: list[Contestant], schedule: Schedule, seed: int,
                         limit: float, chunks: Iterable[int],
                         emit: Callable[[int, bytes, list[tuple]], None]) -> None:
    """`play_chunks` in lockstep: each chunk's matches many at a time."""
    from bot.arena import lockstep

    dead: set[int] = set()
    chunk, scores = -1, bytearray()
    dqs: list[tuple[int, int, str]] = []  # (match, seat's bot, reason)
    try:
        for chunk in chunks:
            first = chunk * CHUNK
            last = min(first + CHUNK, schedule.matches)
            scores = bytearray([SKIPPED]) * (last - first)
            dqs = []

            def put(m: int, s0: int, scores: bytearray = scores, first: int = first) -> None:
                scores[m - first] = s0

            def disqualify(m: int, bot: int, reason: str,
                           dqs: list[tuple[int, int, str]] = dqs) -> None:
                dqs.append((m, bot, reason))

            lockstep.play_lockstep(contestants, schedule, seed, limit, range(first, last),
                                   dead, SKIPPED, put, disqualify)
            emit(chunk, bytes(scores), dqs)
            chunk = -1
    except KeyboardInterrupt:
        if chunk >= 0:
            emit(chunk, bytes(scores), dqs)
        raise
    finally:
        for c in contestants:
            c.close()


class Claimed:
    """Chunk numbers handed out one at a time, to whichever worker asks first, from a
    counter shared by the workers (so a worker on a slower core simply plays fewer)."""

    def __init__(self, counter: Any, total: int) -> None:
        self.counter = counter  # a multiprocessing Value("i")
        self.total = total

    def __iter__(self) -> Iterator[int]:
        while True:
            with self.counter.get_lock():
                chunk = self.counter.value
                self.counter.value = chunk + 1
            if chunk >= self.total:
                return
            yield chunk


def worker_chunks(specs: list[BotSpec], total_chunks: int, jobs: int,
                  ctx: Any) -> list[Iterable[int]]:
    """The chunks of each worker. Built-in bots keep nothing between matches, so it does not
    matter which worker plays a chunk: they go to whichever is free (`Claimed`). Any other
    bot may keep state in its object, module or class, so the split is fixed (worker w:
    chunks w, w+J, ...) to keep a run repeatable for the same --jobs."""
    if all(s.kind == "builtin" for s in specs):
        return [Claimed(ctx.Value("i", 0), total_chunks)] * jobs
    return [list(range(w, total_chunks, jobs)) for w in range(jobs)]


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """Python's own SIGINT handler while bots play in this process: the watchdog stops a
    stuck call with `_thread.interrupt_main`, which does nothing while SIGINT is ignored or
    left to the system (an embedding program's, or an earlier run's `_worker`, setting)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        yield
        return
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _worker(specs, schedule, seed, limit, chunks, queue,  # pragma: no cover - subprocess
            batch=True) -> None:
    # Our own process group: Ctrl-C in the terminal reaches the controller only, which
    # passes it on once (SIGINT) and collects what each worker played until then.
    os.setpgrp()
    try:
        play_chunks(specs, schedule, seed, limit, chunks,
                    lambda c, s, d: queue.put(("chunk", c, s, d)), batch)
        queue.put(("done", None, None, None))
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        queue.put(("done", None, None, None))
    except BaseException as exc:  # report, never hang the parent
        queue.put(("error", None, f"{type(exc).__name__}: {exc}", None))


def run(specs: list[BotSpec], rounds: int, seed: int, jobs: int, limit: float,
        progress: Callable[[int, int], None] | None = None, batch: bool = True) -> Results:
    """Play the tournament; return the counted matches in schedule order. On Ctrl-C
    (KeyboardInterrupt) the matches played until then are returned, marked interrupted."""
    schedule = Schedule(len(specs), rounds)
    total_chunks = -(-schedule.matches // CHUNK)
    jobs = max(1, min(jobs, total_chunks or 1))
    results: dict[int, tuple[bytes, list[tuple]]] = {}
    done_matches = 0

    def collect(chunk: int, scores: bytes, dqs: list[tuple]) -> None:
        nonlocal done_matches
        results[chunk] = (scores, dqs)
        done_matches += len(scores)
        if progress:
            progress(done_matches, schedule.matches)

    interrupted = False
    if jobs == 1:
        try:
            with _interruptible():
                play_chunks(specs, schedule, seed, limit, list(range(total_chunks)), collect,
                            batch)
        except KeyboardInterrupt:
            interrupted = True
    else:
        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        queue = ctx.Queue()
        procs = [ctx.Process(target=_worker,  # type: ignore[attr-defined]  # (typeshed: literal names only) daemon=True,
                             args=(specs, schedule, seed, limit, chunks, queue, batch))
                 for chunks in worker_chunks(specs, total_chunks, jobs, ctx)]
        for p in procs:
            p.start()
        running = jobs
        deadline = None
        try:
            while running:
                try:
                    kind, chunk, scores, dqs = queue.get(
                        timeout=None if deadline is None else max(0.0, deadline - time.time()))
                except KeyboardInterrupt:
                    if interrupted:
                        raise
                    interrupted = True
                    deadline = time.time() + 2 * limit + 2.0
                    for p in procs:
                        if p.is_alive() and p.pid is not None:
                            os.kill(p.pid, signal.SIGINT)
                    continue
                except queue_module.Empty:
                    break  # a worker did not answer Ctrl-C in time: stop it
                if kind == "chunk":
                    collect(chunk, scores, dqs)
                elif kind == "done":
                    running -= 1
                else:
                    raise RuntimeError(f"an arena worker failed: {scores}")
        finally:
            for p in procs:
                if p.is_alive():
                    p.terminate()
                p.join()
    counted = _count(schedule, results)
    counted.interrupted = interrupted
    return counted


class Results(Sequence[MatchResult]):
    """The counted matches of a tournament, in schedule order, kept as one byte per match.

    `scores[m]` is seat 0's score of match m, or SKIPPED when the match is not counted (not
    played, or after a disqualification of one of its bots). Items are built on demand;
    `tallies()` sums without building them.
    """

    def __init__(self, schedule: Schedule, scores: bytearray,
                 disqualified: dict[int, tuple[int, str]]) -> None:
        self.schedule = schedule
        self.scores = scores
        self.disqualified = disqualified  # bot -> (match, reason): left the tournament
        self._numbers: list[int] | None = None
        self.interrupted = False  # stopped by Ctrl-C: only the matches played until then

    def __len__(self) -> int:
        return len(self.scores) - self.scores.count(SKIPPED)

    def _result(self, m: int) -> MatchResult:
        a, b, _ = self.schedule.match(m)
        s0 = self.scores[m]
        return MatchResult(m, (a, b), (s0, POINTS - s0))

    def __iter__(self) -> Iterator[MatchResult]:
        return (self._result(m) for m, s0 in enumerate(self.scores) if s0 != SKIPPED)

    @overload
    def __getitem__(self, i: int) -> MatchResult: ...
    @overload
    def __getitem__(self, i: slice) -> list[MatchResult]: ...

    def __getitem__(self, i: int | slice) -> MatchResult | list[MatchResult]:
        if self._numbers is None:
            self._numbers = [m for m, s0 in enumerate(self.scores) if s0 != SKIPPED]
        if isinstance(i, slice):
            return [self._result(m) for m in self._numbers[i]]
        return self._result(self._numbers[i])

    def tallies(self) -> Iterator[tuple[int, int, int, int]]:
        """(bot in seat 0, bot in seat 1, seat 0's score, number of counted matches) for
        every seating and score that occurs."""
        seatings = self.schedule.seatings
        for k, (a, b) in enumerate(seatings):
            column = self.scores[k::len(seatings)]
            for s0 in range(POINTS + 1):
                n = column.count(s0)
                if n:
                    yield a, b, s0, n

    def rated(self, per_pair: int) -> Iterator[tuple[int, int, int, int]]:
        """(deal, bot in seat 0, bot in seat 1, seat 0's score) of the first `per_pair`
        counted matches of each pair, in deal order, half from each seating."""
        seatings = self.schedule.seatings
        twin = len(seatings)
        for k, (a, b) in enumerate(seatings):
            taken = 0
            for deal, s0 in enumerate(self.scores[k::twin]):
                if s0 != SKIPPED:
                    yield deal, a, b, s0
                    taken += 1
                    if taken >= (per_pair + 1) // 2:
                        break

    def departures(self) -> Iterator[tuple[int, int, int, str]]:
        """(bot, match, opponent, reason) of each disqualified bot."""
        for bot, (m, reason) in self.disqualified.items():
            a, b, _ = self.schedule.match(m)
            yield bot, m, b if a == bot else a, reason


def _count(schedule: Schedule, results: dict[int, tuple[bytes, list[tuple]]]) -> Results:
    """Apply the disqualification rule in schedule order: the first disqualification of a
    bot stands, and none of its later matches count."""
    dq_at: dict[int, tuple[int, str]] = {}
    for _, dqs in results.values():
        for m, bot, reason in dqs:
            if bot not in dq_at or m < dq_at[bot][0]:
                dq_at[bot] = (m, reason)
    total = -(-schedule.matches // CHUNK)
    # A chunk not played, or cut short by Ctrl-C, is filled with SKIPPED.
    scores = bytearray(b"".join(
        results.get(c, (b"", []))[0].ljust(min(CHUNK, schedule.matches - c * CHUNK),
                                           bytes([SKIPPED]))
        for c in range(total)))
    # A disqualified bot leaves the tournament: every match of its pairs is void, played
    # or not, before or after its failure (docs/arena.md, Disqualification).
    step = len(schedule.pairs)
    for bot in dq_at:
        for p, pair in enumerate(schedule.pairs):
            if bot in pair:
                scores[p::step] = bytes([SKIPPED]) * len(range(p, len(scores), step))
    return Results(schedule, scores, dq_at)


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
