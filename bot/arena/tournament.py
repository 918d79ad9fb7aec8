"""The tournament: round-robin cycles, worker processes, disqualification, totals.

Schedule: cycle c plays one match per unordered pair of bots (i < j), in a fixed order;
matches are numbered in that order. Balance: cycles come in twins. Cycle 2k seats i first
(seat 0) and cycle 2k+1 seats j first, and every match of both cycles plays deal k (the
same shuffles), so each pair plays every deal once from each seat, and every bot meets the
same deals (like duplicate bridge). With an odd number of cycles the last one has no twin.

Workers: the matches are cut into chunks of CHUNK; with J jobs, worker w plays chunks
w, w+J, w+2J, ... in order (a fixed split, so a run is repeatable for the same --jobs).

Disqualification: the first match (in schedule order) in which a bot raises, returns an
invalid index or runs past the per-call limit is recorded as lost 0-10 by that bot; none of
its later matches count (a worker also stops playing the bot's matches once it has seen the
failure itself).
"""

from __future__ import annotations

import _thread
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

from bot.arena.loader import BotSpec
from bot.arena.match import Disqualified, match_key, play_match

CHUNK = 500
SKIPPED = 255  # a match a worker did not play (one bot already disqualified there)
POINTS = 10


@dataclass
class Schedule:
    bots: int
    rounds: int
    pairs: list[tuple[int, int]] = field(init=False)

    def __post_init__(self) -> None:
        self.pairs = list(combinations(range(self.bots), 2))

    @property
    def matches(self) -> int:
        return self.rounds * len(self.pairs)

    def match(self, m: int) -> tuple[int, int, int]:
        """(bot in seat 0, bot in seat 1, deal number) of match m."""
        cycle, p = divmod(m, len(self.pairs))
        i, j = self.pairs[p]
        deal = cycle // 2
        return (i, j, deal) if cycle % 2 == 0 else (j, i, deal)


@dataclass
class MatchResult:
    number: int
    seats: tuple[int, int]
    score: tuple[int, int]
    disqualified: int | None = None  # the bot (index), if this match disqualified one
    reason: str = ""


class Watchdog:
    """Interrupts the main thread when one bot call runs far past the limit (a Python bot
    stuck in a loop): calls that return are timed exactly by the match loop itself."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.beat: list = [0.0, False]  # [start of the call in progress, fired]
        self.patience = 2 * limit + 1.0  # longer than a JS bot's own pipe timeout
        thread = threading.Thread(target=self._run, daemon=True, name="arena-watchdog")
        thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(max(0.05, self.limit / 4))
            start = self.beat[0]
            if start and time.perf_counter() - start > self.patience and not self.beat[1]:
                self.beat[1] = True
                _thread.interrupt_main()


def play_chunks(specs: list[BotSpec], schedule: Schedule, seed: int, limit: float,
                chunks: list[int], emit: Callable[[int, bytes, list[tuple]], None]) -> None:
    """Play the given chunks in order; emit(chunk, scores, disqualifications) after each.

    scores[k] is seat 0's score of match chunk*CHUNK+k (SKIPPED if not played);
    disqualifications are (match, bot, reason).
    """
    contestants = [s.load(limit) for s in specs]
    dead: set[int] = set()
    watchdog = Watchdog(limit)
    beat = watchdog.beat
    pc = time.perf_counter
    key, key_deal = b"", -1
    try:
        for chunk in chunks:
            first = chunk * CHUNK
            last = min(first + CHUNK, schedule.matches)
            scores = bytearray()
            dqs: list[tuple] = []
            for m in range(first, last):
                a, b, deal = schedule.match(m)
                if a in dead or b in dead:
                    scores.append(SKIPPED)
                    continue
                if deal != key_deal:
                    key, key_deal = match_key(seed, deal), deal
                try:
                    beat[0] = pc()
                    s0, _ = play_match(contestants[a].for_match(), contestants[b].for_match(),
                                       key, limit, beat)
                    beat[0] = 0.0
                    scores.append(s0)
                except Disqualified as dq:
                    beat[0] = 0.0
                    culprit = (a, b)[dq.side]
                    dead.add(culprit)
                    dqs.append((m, culprit, dq.reason))
                    scores.append(POINTS if dq.side == 1 else 0)
                    contestants[culprit].close()
            emit(chunk, bytes(scores), dqs)
    finally:
        for c in contestants:
            c.close()


def _worker(specs, schedule, seed, limit, chunks, queue) -> None:  # pragma: no cover - subprocess
    try:
        play_chunks(specs, schedule, seed, limit, chunks,
                    lambda c, s, d: queue.put(("chunk", c, s, d)))
        queue.put(("done", None, None, None))
    except BaseException as exc:  # report, never hang the parent
        queue.put(("error", None, f"{type(exc).__name__}: {exc}", None))


def run(specs: list[BotSpec], rounds: int, seed: int, jobs: int, limit: float,
        progress: Callable[[int, int], None] | None = None) -> list[MatchResult]:
    """Play the tournament; return the counted matches in schedule order."""
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

    if jobs == 1:
        play_chunks(specs, schedule, seed, limit, list(range(total_chunks)), collect)
    else:
        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        queue = ctx.Queue()
        procs = [ctx.Process(target=_worker, daemon=True,
                             args=(specs, schedule, seed, limit,
                                   list(range(w, total_chunks, jobs)), queue))
                 for w in range(jobs)]
        for p in procs:
            p.start()
        running = jobs
        try:
            while running:
                kind, chunk, scores, dqs = queue.get()
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
    return _count(schedule, results)


def _count(schedule: Schedule, results: dict[int, tuple[bytes, list[tuple]]]) -> list[MatchResult]:
    """Apply the disqualification rule in schedule order and list the counted matches."""
    dq_at: dict[int, tuple[int, str]] = {}
    for _, dqs in results.values():
        for m, bot, reason in dqs:
            if bot not in dq_at or m < dq_at[bot][0]:
                dq_at[bot] = (m, reason)
    out = []
    for chunk in sorted(results):
        scores, _ = results[chunk]
        for k, s0 in enumerate(scores):
            m = chunk * CHUNK + k
            a, b, _ = schedule.match(m)
            if s0 == SKIPPED:
                continue
            if any(x in dq_at and m > dq_at[x][0] for x in (a, b)):
                continue  # after a disqualification: not counted
            culprit = next((x for x in (a, b) if x in dq_at and dq_at[x][0] == m), None)
            out.append(MatchResult(m, (a, b), (s0, POINTS - s0), culprit,
                                   dq_at[culprit][1] if culprit is not None else ""))
    return out


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
