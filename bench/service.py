"""Service speed on the real SQLite store.

    python -m bench.service [--matches 200] [--think 0.05] [--resume 1000 [10000 ...]]

1. Commands through the service: `--matches` concurrent RPS Poker matches, each driven by a
   random player that waits `--think` seconds (exponentially distributed, mean) between
   moves; measures commands per second and the latency of each command from submit until it
   is committed and handed to the transport (p50, p99, max). `--think 0` saturates the store.
2. Resume: `--resume` active matches in the database (several counts: one run each); the
   time for a fresh service to start (migrate, shift the clocks by the downtime, load
   snapshots, replay, resend the outbox, arm every clock), and the longest time the event
   loop was blocked meanwhile (a probe task that asks to wake every millisecond measures how
   late it wakes). `--matches 0` skips part 1.
The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bot.gc_tuning import settle_after_start
from bot.store.database import create_engine
from bot.store.repository import Repository, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService

GAME = "rps-poker"


class NullTransport:
    def __init__(self) -> None:
        self.count = 0

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.count += 1


def _players(i: int) -> list[PlayerRef]:
    return [PlayerRef(f"p{i}a", "A"), PlayerRef(f"p{i}b", "B")]


async def _drive(service: MatchService, match_id: int, think: float, rng: random.Random,
                 latencies: list[float]) -> None:
    match = service.matches[match_id]
    while match.status == "active":
        if think:
            await asyncio.sleep(rng.expovariate(1 / think))
        prompts = match.prompts
        if not prompts:
            break
        prompt = rng.choice(prompts)
        command = match.game.random_command(match.state, prompt, rng)
        start = time.perf_counter()
        reply = await service.submit_command(match_id, prompt.seat, command)
        latencies.append(time.perf_counter() - start)
        assert reply.accepted, reply.message


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def commands(db: Path, matches: int, think: float) -> dict[str, float]:
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    transport = NullTransport()
    service = MatchService(Repository(engine), transport)
    await service.start()
    settle_after_start()  # as the bot's runner does
    ids = [(await service.start_match(GAME, _players(i), seed=f"b{i}")).id for i in range(matches)]
    latencies: list[float] = []
    start = time.perf_counter()
    await asyncio.gather(*(_drive(service, m, think, random.Random(m), latencies) for m in ids))
    elapsed = time.perf_counter() - start
    await service.delivery.drain()
    await service.stop()
    await engine.dispose()
    return {
        "matches": matches, "think_seconds": think, "commands": len(latencies),
        "commands_per_second": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 3),
        "p99_ms": round(_pct(latencies, 0.99) * 1000, 3),
        "max_ms": round(max(latencies) * 1000, 3),
        "messages_delivered": transport.count,
    }


async def _fill(service: MatchService, matches: int, moves: int) -> None:
    """`matches` active matches of `moves` actions each, started and played concurrently in
    chunks (the writer shares transactions among them)."""
    async def one(i: int) -> None:
        rng = random.Random(i)
        # clocks far from their limits: resume measures loading, not timeouts falling due
        match = await service.start_match(GAME, _players(i), seed=f"r{i}",
                                          settings={"decision_seconds": 3600})
        for _ in range(moves):
            prompt = rng.choice(match.prompts)
            await service.submit_command(match.id, prompt.seat,
                                         match.game.random_command(match.state, prompt, rng))

    for first in range(0, matches, 250):
        await asyncio.gather(*(one(i) for i in range(first, min(matches, first + 250))))


async def _stall_probe(longest: list[float], stop: asyncio.Event) -> None:
    """Wake every millisecond; record the longest delay beyond that (the loop was blocked),
    in wall time (longest[0]) and in the loop thread's own CPU time (longest[1]: leaves out
    the time the OS gave the CPU to other processes, on a busy machine)."""
    while not stop.is_set():
        before, cpu = time.perf_counter(), time.thread_time()
        await asyncio.sleep(0.001)
        longest[0] = max(longest[0], time.perf_counter() - before - 0.001)
        longest[1] = max(longest[1], time.thread_time() - cpu)


def _clone(db: Path, played: int, total: int) -> None:
    """Copy the `played` matches (rows, actions, snapshots, clocks) until there are `total`:
    playing 10,000 matches through the service only to fill the database would take minutes
    of fsyncs; a copy replays exactly like its original."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        cols = {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")]
                for t in ("matches", "actions", "snapshots", "deadlines")}
        for k in range(1, -(-total // played)):
            offset, limit = k * played, min(played, total - k * played)
            if limit <= 0:
                break
            m = [c for c in cols["matches"] if c != "id"]
            conn.execute(f"INSERT INTO matches (id, {', '.join(m)}) SELECT id + {offset}, "
                         f"{', '.join(m)} FROM matches WHERE id <= {limit}")
            for table in ("actions", "snapshots", "deadlines"):
                c = [x for x in cols[table] if x not in ("id", "match_id")]
                conn.execute(f"INSERT INTO {table} (match_id, {', '.join(c)}) SELECT "
                             f"match_id + {offset}, {', '.join(c)} FROM {table} "
                             f"WHERE match_id <= {limit}")
        conn.commit()


async def _resume_once(db: Path) -> dict[str, float]:
    """Start a fresh service on `db`; how long, and the loop's longest block meanwhile."""
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    service = MatchService(Repository(engine), NullTransport())
    longest, stop = [0.0, 0.0], asyncio.Event()
    probe = asyncio.create_task(_stall_probe(longest, stop))
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    await service.start()
    elapsed = time.perf_counter() - start
    stop.set()
    await probe
    loaded = sum(1 for m in service.matches.values() if m.status == "active")
    await service.stop()  # a clean stop: snapshots of the matches that moved since theirs
    await engine.dispose()
    return {"matches": loaded, "seconds": round(elapsed, 3),
            "longest_block_ms": round(longest[0] * 1000, 1),
            "longest_block_cpu_ms": round(longest[1] * 1000, 1)}


async def resume(db: Path, matches: int, moves: int = 12) -> dict[str, dict[str, float]]:
    """Resume `matches` active matches of `moves` actions (no snapshot yet: snapshot_every
    is 25) twice: after a crash (every match replays its actions) and after a clean stop
    (the first resume's stop stored a snapshot of each: no replay)."""
    played = min(matches, 1000)
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    service = MatchService(Repository(engine), NullTransport())
    service.snapshot_on_stop = False  # leave the store as a crash would
    await service.start()
    await _fill(service, played, moves)
    await service.delivery.drain()
    await service.stop()
    await engine.dispose()
    if matches > played:
        _clone(db, played, matches)
    return {"after_crash": await _resume_once(db), "after_stop": await _resume_once(db)}


async def run(matches: int, think: float, resume_counts: list[int]) -> dict[str, object]:
    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if matches:
            result["paced"] = await commands(Path(tmp) / "paced.db", matches, think)
            result["saturated"] = await commands(Path(tmp) / "saturated.db", matches, 0.0)
        result["resume"] = [await resume(Path(tmp) / f"resume{n}.db", n)
                            for n in resume_counts if n]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200,
                        help="concurrent matches (0: skip the command runs)")
    parser.add_argument("--think", type=float, default=1.0,
                        help="mean seconds between a match's moves in the paced run (people on "
                             "Discord take seconds; 1.0 with 200 matches offers ~130 commands/s)")
    parser.add_argument("--resume", type=int, nargs="*", default=[1000],
                        help="active matches to resume (one run per count, e.g. 1000 10000)")
    args = parser.parse_args()
    result = asyncio.run(run(args.matches, args.think, args.resume))
    for name in ("paced", "saturated"):
        r = result.get(name)
        if isinstance(r, dict):
            print(f"{name}: {r['matches']} matches, think {r['think_seconds']} s: "
                  f"{r['commands_per_second']} commands/s, p50 {r['p50_ms']} ms, "
                  f"p99 {r['p99_ms']} ms, max {r['max_ms']} ms")
    resumed = result["resume"]
    assert isinstance(resumed, list)
    for pair in resumed:
        for how, r in pair.items():
            print(f"resume {how.replace('_', ' ')}: {r['matches']} active matches in "
                  f"{r['seconds']} s, loop blocked at most {r['longest_block_ms']} ms at a time "
                  f"({r['longest_block_cpu_ms']} ms of the loop thread's own CPU)")
    paced = result.get("paced")
    verdict = {True: "met", False: "NOT met", None: "not measured"}
    p99_met = paced["p99_ms"] <= 5.0 if isinstance(paced, dict) else None
    ten = [r for pair in resumed for r in pair.values() if r["matches"] >= 10000]
    resume_met = (all(r["seconds"] <= 3.0 and r["longest_block_ms"] <= 100 for r in ten)
                  if ten else None)
    result["targets"] = {"p99_ms": 5.0, "p99_met": p99_met, "resume_10000_seconds": 3.0,
                         "resume_block_ms": 100, "resume_met": resume_met}
    print(f"targets: p99 <= 5 ms: {verdict[p99_met]}; resume of 10,000 <= 3 s with the loop "
          f"never blocked > 100 ms: {verdict[resume_met]}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
