"""Service load: concurrent bot-driven matches of every game on SQLite or PostgreSQL.

    python -m bench.service [--matches 1000] [--games all] [--db sqlite|postgresql]
                            [--pg-url URL] [--think 5] [--limit 10] [--ramp 0]
                            [--memory-matches 200] [--memory-waves 5]
                            [--resume 1000 10000]

Each run prints one line per figure, the targets with met / NOT met, and finally one JSON
object (the last line). Progress goes to stderr.

1. Floor: the storage's own durable-commit time, measured in the same run in the same place:
   on SQLite, write + fsync of a small file in the database's directory; on PostgreSQL, one
   autocommitted INSERT into a scratch table (the server's commit, fsync included).
2. Load: `--matches` concurrent matches, the games taken round-robin from `--games`, each
   seat driven by a random player that thinks `--think` seconds (exponentially distributed,
   mean) before each move, with every decision limit set to `--limit` seconds so that clocks
   run out now and then. The matches start all at once (in batches of 100: the clocks of a
   batch fall due together), or, with `--ramp S`, one by one spread evenly over S seconds,
   as when hosts start them. Measures commands/s, command latency (submit until committed and
   handed to the transport: p50, p99, max; also for the commands submitted while at least
   half of the matches were running and for those after), timer lateness (the moment the scheduler hands a
   due clock to the service minus the moment it was due), and database bytes per finished
   match (before and after pruning every delivered message, as the service's retention
   eventually does, and VACUUM).
3. Memory (tracemalloc, in its own phase because tracing slows everything down): per active
   match (after `--memory-matches` matches started), and per finished match (the slope of the
   traced memory over `--memory-waves` waves of `--memory-matches` matches played to the end,
   after a first wave that warms every cache: the service keeps only a bounded number of
   ended matches in memory, so this should be 0).
4. Resume: `--resume` active matches in the database (one run per count; counts above
   `--resume-fill` are copies of the first ones, made with INSERT ... SELECT, then ANALYZE on
   PostgreSQL, as autovacuum would have done): the time until a fresh
   service's `start()` returns, after a crash and after a clean stop, and the longest time
   the event loop was blocked meanwhile (a probe that asks to wake every millisecond). If the
   service offers `hydrated()`, also the time until every match is in memory.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator, Hashable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.gc_tuning import collect_less, settle_after_start
from bot.store.database import create_engine
from bot.store.repository import Repository, StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService
from games.registry import all_games, installed_games


def log(text: str) -> None:
    print(f"[bench.service] {text}", file=sys.stderr, flush=True)


class NullTransport:
    def __init__(self) -> None:
        self.count = 0

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.count += 1


def timed_settings(slug: str, seconds: float, *, short: bool) -> dict[str, Any]:
    """Every decision timer of the game at `seconds` and nothing else timed (no breaks, no
    fix window, no reminders), a match no host attends; `short`: a short match too. The game
    declares them (`Game.quick_settings`)."""
    return all_games()[slug].quick_settings(seconds, short=short)


def _players(i: int) -> list[PlayerRef]:
    return [PlayerRef(f"p{i}a", "A"), PlayerRef(f"p{i}b", "B")]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


# --- the databases --------------------------------------------------------------------------
class Database:
    """Where the bench's databases live: fresh ones by name, their size, the commit floor."""

    kind = "sqlite"

    def __init__(self, root: Path) -> None:
        self.root = root

    async def fresh(self, name: str) -> str:
        return f"sqlite+aiosqlite:///{self.root / (name + '.db')}"

    async def size(self, url: str) -> int:
        """The file and its WAL, after a checkpoint (the WAL holds only recent pages)."""
        path = Path(url.split("///", 1)[1])
        with contextlib.closing(sqlite3.connect(path)) as conn:
            for _ in range(100):  # busy while the service's checkpoint thread holds the WAL
                busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                if not busy:
                    break
                await asyncio.sleep(0.05)
        return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())

    async def floor(self, samples: int) -> list[float]:
        """Write + fsync of a small file in the databases' directory, `samples` times."""
        path = self.root / "fsync.probe"
        times = []
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for i in range(samples):
                start = time.perf_counter()
                os.pwrite(fd, f"{i:08d}".encode() * 64, 0)
                os.fsync(fd)
                times.append(time.perf_counter() - start)
        finally:
            os.close(fd)
            path.unlink()
        return times

    async def clone(self, url: str, played: int, total: int) -> None:
        """Copy the `played` matches (rows, actions, snapshots, clocks) until there are
        `total`: playing 10,000 matches only to fill the database would take minutes of
        commits; a copy replays exactly like its original."""
        db = url.split("///", 1)[1]
        with contextlib.closing(sqlite3.connect(db)) as conn:
            cols = {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")]
                    for t in ("matches", "actions", "snapshots", "deadlines")}
            for statement in _clone_statements(cols, played, total):
                conn.execute(statement)
            conn.commit()


class Postgres(Database):
    """One server (ours, or `--pg-url`'s); a fresh database per name."""

    kind = "postgresql"

    def __init__(self, root: Path, template: str) -> None:
        super().__init__(root)
        self.template = template  # "postgresql+asyncpg://user@host:port/{db}"

    def _dsn(self, db: str) -> str:
        return self.template.format(db=db).replace("postgresql+asyncpg", "postgresql")

    async def fresh(self, name: str) -> str:
        import asyncpg

        conn = await asyncpg.connect(self._dsn("postgres"))
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "bench_{name}"')
            await conn.execute(f'CREATE DATABASE "bench_{name}"')
        finally:
            await conn.close()
        return self.template.format(db=f"bench_{name}")

    async def size(self, url: str) -> int:
        import asyncpg

        conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
        try:
            return int(await conn.fetchval("SELECT pg_database_size(current_database())"))
        finally:
            await conn.close()

    async def floor(self, samples: int) -> list[float]:
        """One autocommitted INSERT into a scratch table, `samples` times: the server's
        commit (WAL write + fsync) plus a round trip."""
        import asyncpg

        await self.fresh("floor")
        conn = await asyncpg.connect(self._dsn("bench_floor"))
        times = []
        try:
            await conn.execute("CREATE TABLE scratch (id serial PRIMARY KEY, v text)")
            for i in range(samples):
                start = time.perf_counter()
                await conn.execute("INSERT INTO scratch (v) VALUES ($1)", f"{i:08d}")
                times.append(time.perf_counter() - start)
        finally:
            await conn.close()
        return times

    async def clone(self, url: str, played: int, total: int) -> None:
        import asyncpg

        conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
        try:
            cols = {}
            for table in ("matches", "actions", "snapshots", "deadlines"):
                rows = await conn.fetch("SELECT column_name FROM information_schema.columns "
                                        "WHERE table_name = $1 ORDER BY ordinal_position", table)
                cols[table] = [r["column_name"] for r in rows]
            async with conn.transaction():
                for statement in _clone_statements(cols, played, total):
                    await conn.execute(statement)
                for table in ("matches", "actions", "snapshots", "deadlines"):
                    # explicit ids went past the sequence: move it on, or new rows collide
                    await conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                       f"(SELECT max(id) FROM {table}))")
            # A database that grew to this size over weeks has the planner statistics that
            # autovacuum keeps; one just filled in a single transaction has none yet (the
            # planner then scans every clock ever stored for each batch of a resume).
            await conn.execute("ANALYZE")
        finally:
            await conn.close()


def _clone_statements(cols: dict[str, list[str]], played: int, total: int) -> Iterator[str]:
    """INSERT ... SELECT statements that copy matches 1..`played` (with their actions,
    snapshots and clocks) under new ids until there are `total` (either database)."""
    for k in range(1, -(-total // played)):
        offset, limit = k * played, min(played, total - k * played)
        if limit <= 0:
            break
        m = [c for c in cols["matches"] if c != "id"]
        yield (f"INSERT INTO matches (id, {', '.join(m)}) SELECT id + {offset}, "
               f"{', '.join(m)} FROM matches WHERE id <= {limit}")
        for table in ("actions", "snapshots", "deadlines"):
            c = [x for x in cols[table] if x not in ("id", "match_id")]
            yield (f"INSERT INTO {table} (match_id, {', '.join(c)}) SELECT match_id + {offset}, "
                   f"{', '.join(c)} FROM {table} WHERE match_id <= {limit}")


@contextlib.asynccontextmanager
async def database(kind: str, pg_url: str | None) -> AsyncIterator[Database]:
    """The bench's databases: SQLite files in a temporary directory, or a PostgreSQL server
    (`pg_url`, a template with "{db}" for the database name, or a throwaway one)."""
    with tempfile.TemporaryDirectory(prefix="umpire-bench-") as tmp:
        if kind == "sqlite":
            yield Database(Path(tmp))
            return
        if pg_url:
            yield Postgres(Path(tmp), pg_url if "{db}" in pg_url else
                           pg_url.rsplit("/", 1)[0] + "/{db}")
            return
        from testbed.pg_server import postgres_server

        log("starting a throwaway PostgreSQL server")
        with postgres_server() as template:
            yield Postgres(Path(tmp), template)


# --- playing --------------------------------------------------------------------------------
@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    #: For each command, how many of the load's matches had ended when it was submitted.
    ended_before: list[int] = field(default_factory=list)
    ended: int = 0
    refused: int = 0
    lateness: list[float] = field(default_factory=list)
    timeouts: int = 0


def watch_timers(service: MatchService, figures: Figures) -> None:
    """Record how late each clock fires: the scheduler's due time for a token (the last one
    it was armed for) against the moment the service's `_on_due` is called. Measuring only:
    the service's own callback runs unchanged."""
    scheduler = service.scheduler
    armed: dict[Hashable, datetime] = {}
    original_set, original_due = scheduler.set, scheduler._on_due

    def set_(token: Hashable, when: datetime | None) -> None:
        if when is None:
            armed.pop(token, None)
        else:
            armed[token] = when
        original_set(token, when)

    async def on_due(token: Hashable) -> None:
        due = armed.pop(token, None)
        if due is not None:
            figures.lateness.append((service.now() - due).total_seconds())
        await original_due(token)

    scheduler.set = set_  # type: ignore[method-assign]
    scheduler._on_due = on_due  # type: ignore[method-assign]


async def _drive(service: MatchService, match_id: int, think: float, rng: random.Random,
                 figures: Figures | None) -> None:
    """Play one match to its end as its two players: think, then answer an open decision
    (if a clock ran out meanwhile, the timeout answered it and the player moves on)."""
    match = service.matches[match_id]
    while match.status in ("active", "paused"):
        if think:
            await asyncio.sleep(rng.expovariate(1 / think))
        else:
            await asyncio.sleep(0)
        prompts = match.prompts
        if not prompts:
            # nothing open (a break between rounds): wait for the service
            await asyncio.sleep(0.05)
            continue
        prompt = rng.choice(prompts)
        command = match.game.random_command(match.state, prompt, rng)
        start = time.perf_counter()
        reply = await service.submit_command(match_id, prompt.seat, command)
        if figures is not None:
            figures.latencies.append(time.perf_counter() - start)
            figures.ended_before.append(figures.ended)
            if not reply.accepted:
                figures.refused += 1  # the clock got there first
    if figures is not None:
        figures.ended += 1


async def _retired(service: MatchService, ids: list[int], timeout: float = 60.0) -> None:
    """Wait until every message is out and the ended matches are retired."""
    await service.delivery.drain()
    deadline = time.monotonic() + timeout
    while any(service.delivery.busy(m) for m in ids) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.1)


async def _progress(label: str, total: int, service: MatchService, ids: list[int],
                    figures: Figures) -> None:
    started = time.perf_counter()
    while True:
        await asyncio.sleep(10)
        ended = sum(1 for m in ids if (x := service.matches.get(m)) is None
                    or x.status not in ("active", "paused"))
        log(f"{label}: {ended}/{total} matches ended, {len(figures.latencies)} commands, "
            f"{len(figures.lateness)} clocks fired, {time.perf_counter() - started:.0f} s")


async def load(db: Database, matches: int, games: list[str], think: float,
               limit: float, ramp: float = 0.0) -> dict[str, Any]:
    """Part 2: `matches` concurrent matches played to their end, started all at once or
    (`ramp` seconds) one by one."""
    url = await db.fresh("load")
    engine = create_engine(url)
    transport = NullTransport()
    service = MatchService(Repository(engine), transport)
    figures = Figures()
    watch_timers(service, figures)
    await service.start()
    settle_after_start()  # as the bot's runner does
    empty = await db.size(url)
    settings = {g: timed_settings(g, limit, short=True) for g in games}
    log(f"load: starting {matches} matches of {', '.join(games)}"
        + (f" over {ramp} s" if ramp else ""))

    def start_one(i: int) -> Any:
        game = games[i % len(games)]
        return service.start_match(game, _players(i), seed=f"b{i}", settings=settings[game])

    ids: list[int] = []
    if ramp:
        async def started_then_played(i: int) -> None:
            await asyncio.sleep(i * ramp / matches)
            match = await start_one(i)
            ids.append(match.id)
            await _drive(service, match.id, think, random.Random(match.id), figures)

        progress = asyncio.create_task(_progress("load", matches, service, ids, figures))
        start = time.perf_counter()
        await asyncio.gather(*(started_then_played(i) for i in range(matches)))
    else:
        for first in range(0, matches, 100):
            batch = [start_one(i) for i in range(first, min(matches, first + 100))]
            ids += [m.id for m in await asyncio.gather(*batch)]
        progress = asyncio.create_task(_progress("load", matches, service, ids, figures))
        start = time.perf_counter()
        await asyncio.gather(*(_drive(service, m, think, random.Random(m), figures)
                               for m in ids))
    elapsed = time.perf_counter() - start
    progress.cancel()
    await _retired(service, ids)
    repo = service.repo
    finished = sum(1 for row in await repo.match_rows(ids) if row.status in ("finished", "aborted"))
    before = await db.size(url)
    pruned = await repo.prune(service.now())  # every delivered message, as retention will
    await repo.vacuum()
    after = await db.size(url)
    await service.stop()
    await engine.dispose()
    commands = len(figures.latencies)
    return {**by_phase(figures, matches),
        "matches": matches, "games": games, "think_seconds": think, "limit_seconds": limit,
        "ramp_seconds": ramp, "seconds": round(elapsed, 1), "commands": commands,
        "refused": figures.refused,
        "commands_per_second": round(commands / elapsed, 1),
        "p50_ms": _ms(statistics.median(figures.latencies)),
        "p99_ms": _ms(_pct(figures.latencies, 0.99)),
        "max_ms": _ms(max(figures.latencies)),
        "clocks_fired": len(figures.lateness),
        "lateness_p50_ms": _ms(_pct(figures.lateness, 0.5)),
        "lateness_p99_ms": _ms(_pct(figures.lateness, 0.99)),
        "lateness_max_ms": _ms(max(figures.lateness, default=0.0)),
        "messages_delivered": transport.count,
        "finished": finished,
        "messages_pruned": pruned.messages, "snapshots_pruned": pruned.snapshots,
        "bytes_per_finished_before_prune": round((before - empty) / max(finished, 1)),
        "bytes_per_finished_after_prune": round((after - empty) / max(finished, 1)),
    }


def by_phase(figures: Figures, matches: int) -> dict[str, Any]:
    """Latency while at least half of the matches were running, and after it (the last, long
    matches: a lighter load; on this VM every step is slower then, docs/bench.md)."""
    pairs = list(zip(figures.latencies, figures.ended_before, strict=True))
    steady = [lat for lat, ended in pairs if 2 * ended < matches]
    rest = [lat for lat, ended in pairs if 2 * ended >= matches]

    def figures_of(part: list[float]) -> dict[str, Any]:
        if not part:
            return {"commands": 0, "p50_ms": None, "p99_ms": None}
        return {"commands": len(part), "p50_ms": _ms(statistics.median(part)),
                "p99_ms": _ms(_pct(part, 0.99))}

    return {"while_half_running": figures_of(steady), "after": figures_of(rest)}


async def memory(db: Database, matches: int, games: list[str], waves: int = 5) -> dict[str, Any]:
    """Part 3: traced memory per active match, and the growth per finished match: the
    least-squares slope of the traced memory after each of `waves` waves of `matches`
    finished matches (at least 2; with 2 it is the growth from one wave to the next).

    One wave-to-wave difference is mostly noise: bounded caches hold entries of different
    sizes from wave to wave, and so do the recently ended matches the service keeps (200
    matches a wave, measured: -0.84 to +0.92 KB per match between consecutive waves, a slope
    of 0.07 KB over six). The slope shows steady growth; each difference is reported too."""
    if waves < 2:
        raise ValueError(f"the memory part needs at least 2 measured waves, not {waves}")
    url = await db.fresh("memory")
    engine = create_engine(url)
    service = MatchService(Repository(engine), NullTransport())
    # the service keeps the last `keep_ended` ended matches in memory (a bounded cost): a
    # wave must be at least that large to show what each finished match leaves
    service.keep_ended = min(service.keep_ended, matches)
    await service.start()
    settings = {g: timed_settings(g, 3600, short=True) for g in games}

    def traced() -> int:
        gc.collect()
        return tracemalloc.get_traced_memory()[0]

    async def wave(first: int) -> tuple[int, int]:
        """(traced after starting the wave's matches, traced after they all ended)"""
        ids = [(await service.start_match(games[i % len(games)], _players(i), seed=f"m{i}",
                                          settings=settings[games[i % len(games)]])).id
               for i in range(first, first + matches)]
        await service.delivery.drain()
        active = traced()
        await asyncio.gather(*(_drive(service, m, 0.0, random.Random(m), None) for m in ids))
        await _retired(service, ids)
        return active, traced()

    log(f"memory: {matches} matches per wave, traced")
    tracemalloc.start()
    try:
        # a first wave warms every cache (games imported, statements compiled, the service's
        # bounded list of recently ended matches filled) so the waves measured are alike
        await wave(0)
        base = traced()
        active, end = await wave(matches)
        ends = [end]
        for n in range(2, waves + 1):
            ends.append((await wave(n * matches))[1])
            log(f"memory: wave {n} of {waves} ended")
    finally:
        tracemalloc.stop()
    await service.stop()
    await engine.dispose()
    slope = statistics.linear_regression(range(len(ends)), ends).slope

    def kb(growth: float) -> float:
        return round(growth / matches / 1024, 2)

    return {"matches_per_wave": matches, "keep_ended": service.keep_ended,
            "waves": waves, "kb_per_active_match": kb(active - base),
            "kb_per_finished_match": kb(slope),
            "kb_per_finished_match_each_wave": [kb(b - a) for a, b in itertools.pairwise(ends)]}


async def _stall_probe(longest: list[float], stop: asyncio.Event) -> None:
    """Wake every millisecond; record the longest delay beyond that (the loop was blocked),
    in wall time (longest[0]) and in the loop thread's own CPU time (longest[1]: leaves out
    the time the OS gave the CPU to other processes, on a busy machine)."""
    while not stop.is_set():
        before, cpu = time.perf_counter(), time.thread_time()
        await asyncio.sleep(0.001)
        longest[0] = max(longest[0], time.perf_counter() - before - 0.001)
        longest[1] = max(longest[1], time.thread_time() - cpu)


async def _fill(service: MatchService, games: list[str], matches: int, moves: int) -> None:
    """`matches` active matches of `moves` actions each, started and played concurrently in
    chunks (the writer shares transactions among them)."""
    settings = {g: timed_settings(g, 3600, short=False) for g in games}

    async def one(i: int) -> None:
        rng = random.Random(i)
        game = games[i % len(games)]
        # clocks far from their limits: resume measures loading, not timeouts falling due
        match = await service.start_match(game, _players(i), seed=f"r{i}",
                                          settings=settings[game])
        for _ in range(moves):
            if match.status != "active" or not match.prompts:
                break
            prompt = rng.choice(match.prompts)
            await service.submit_command(match.id, prompt.seat,
                                         match.game.random_command(match.state, prompt, rng))

    for first in range(0, matches, 250):
        await asyncio.gather(*(one(i) for i in range(first, min(matches, first + 250))))


async def _resume_once(url: str) -> dict[str, Any]:
    """Start a fresh service on `url`; how long until `start()` returns (and, if the service
    offers `hydrated()`, until every match is in memory), and the loop's longest block."""
    engine = create_engine(url)
    service = MatchService(Repository(engine), NullTransport())
    active = len(await service.repo.active_ids())
    longest, stop = [0.0, 0.0], asyncio.Event()
    probe = asyncio.create_task(_stall_probe(longest, stop))
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    collect_less()  # as the bot's runner does, before and after its start
    await service.start()
    ready = time.perf_counter() - start
    settle_after_start()
    hydrated = None
    if callable(getattr(service, "hydrated", None)):
        await service.hydrated()  # type: ignore[attr-defined]
        hydrated = round(time.perf_counter() - start, 3)
    stop.set()
    await probe
    await service.stop()  # a clean stop: snapshots of the matches that moved since theirs
    await engine.dispose()
    del service
    gc.collect()  # this service's matches, collected now, not in the next measured start
    return {"matches": active, "seconds": round(ready, 3), "hydrated_seconds": hydrated,
            "longest_block_ms": round(longest[0] * 1000, 1),
            "longest_block_cpu_ms": round(longest[1] * 1000, 1)}


async def resume(db: Database, games: list[str], matches: int, fill: int = 1000,
                 moves: int = 12) -> dict[str, dict[str, Any]]:
    """Resume `matches` active matches of up to `moves` actions (no snapshot yet:
    snapshot_every is 25) twice: after a crash (every match replays its actions) and after
    a clean stop (the first resume's stop stored a snapshot of each: no replay). At most
    `fill` matches are played; the rest are copies of them."""
    played = min(matches, fill)
    url = await db.fresh(f"resume{matches}")
    engine = create_engine(url)
    service = MatchService(Repository(engine), NullTransport())
    service.snapshot_on_stop = False  # leave the store as a crash would
    await service.start()
    log(f"resume: filling {played} matches")
    await _fill(service, games, played, moves)
    await service.delivery.drain()
    await service.stop()
    await engine.dispose()
    if matches > played:
        log(f"resume: copying them up to {matches}")
        await db.clone(url, played, matches)
    log(f"resume: {matches} after a crash")
    crash = await _resume_once(url)
    log(f"resume: {matches} after a clean stop")
    stop = await _resume_once(url)
    for r in (crash, stop):
        r["requested"] = matches  # a few filled matches may have ended in their moves
    return {"after_crash": crash, "after_stop": stop}


# --- the whole run --------------------------------------------------------------------------
async def run(args: argparse.Namespace) -> dict[str, Any]:
    games = installed_games() if args.games == "all" else args.games.split(",")
    unknown = [g for g in games if g not in all_games()]
    if unknown:
        raise SystemExit(f"unknown games: {', '.join(unknown)} (known: {', '.join(all_games())})")
    if args.memory_matches and args.memory_waves < 2:
        raise SystemExit(f"--memory-waves {args.memory_waves}: the growth per finished match "
                         "needs at least 2 waves to compare (default 5)")
    result: dict[str, Any] = {"db": args.db, "games": games}
    async with database(args.db, args.pg_url) as db:
        floor = await db.floor(args.floor_samples)
        result["floor"] = {"what": "fsync of a small file" if db.kind == "sqlite"
                           else "autocommitted INSERT", "samples": len(floor),
                           "p50_ms": _ms(statistics.median(floor)), "p99_ms": _ms(_pct(floor, 0.99))}
        log(f"floor: {json.dumps(result['floor'])}")
        if args.matches:
            result["load"] = await load(db, args.matches, games, args.think, args.limit,
                                        args.ramp)
            log(f"load: {json.dumps(result['load'])}")  # each part's figures once measured
        if args.memory_matches:
            result["memory"] = await memory(db, args.memory_matches, games, args.memory_waves)
            log(f"memory: {json.dumps(result['memory'])}")
        result["resume"] = []
        for n in args.resume:
            if n:
                result["resume"].append(await resume(db, games, n, args.resume_fill))
                log(f"resume: {json.dumps(result['resume'][-1])}")
    result["targets"] = targets(result)
    return result


def targets(result: dict[str, Any]) -> dict[str, bool | None]:
    load_, mem, floor = result.get("load"), result.get("memory"), result["floor"]
    ten = [r for pair in result["resume"] for r in pair.values() if r["requested"] >= 10000]
    return {
        "p99_latency": (load_["p99_ms"] <= 2 * floor["p99_ms"] + 1) if load_ else None,
        "timer_lateness": (load_["lateness_p99_ms"] <= 20) if load_ and load_["clocks_fired"]
        else None,
        "memory_active": mem["kb_per_active_match"] <= 50 if mem else None,
        "memory_finished": mem["kb_per_finished_match"] <= 0.5 if mem else None,
        "resume_10000": (all(r["seconds"] <= 3.0 and r["longest_block_ms"] <= 100 for r in ten)
                         if ten else None),
    }


def report(result: dict[str, Any]) -> list[str]:
    lines = []
    f = result["floor"]
    lines.append(f"floor ({result['db']}, {f['what']}, {f['samples']} times): "
                 f"p50 {f['p50_ms']} ms, p99 {f['p99_ms']} ms")
    if (r := result.get("load")):
        lines += [
            f"load: {r['matches']} matches of {', '.join(r['games'])}, think {r['think_seconds']} s,"
            f" limits {r['limit_seconds']} s, "
            + (f"started over {r['ramp_seconds']} s" if r["ramp_seconds"] else "started at once")
            + f": {r['commands']} commands in {r['seconds']} s",
            f"throughput: {r['commands_per_second']} commands/s ({r['refused']} refused: a clock "
            "ran out first)",
            f"command latency: p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, max {r['max_ms']} ms",
            *(f"  {label}: {part['commands']} commands, p50 {part['p50_ms']} ms, "
              f"p99 {part['p99_ms']} ms" for label, part in (
                  ("while at least half of the matches ran", r["while_half_running"]),
                  ("after (fewer matches left)", r["after"])) if part["commands"]),
            f"timer lateness: {r['clocks_fired']} clocks fired, p50 {r['lateness_p50_ms']} ms, "
            f"p99 {r['lateness_p99_ms']} ms, max {r['lateness_max_ms']} ms",
            f"database per finished match ({r['finished']} finished): "
            f"{r['bytes_per_finished_before_prune']} bytes before pruning, "
            f"{r['bytes_per_finished_after_prune']} after pruning {r['messages_pruned']} "
            "delivered messages and VACUUM",
        ]
    if (m := result.get("memory")):
        each = ", ".join(f"{x:+}" for x in m["kb_per_finished_match_each_wave"])
        lines.append(f"memory (traced, {m['matches_per_wave']} matches a wave): "
                     f"{m['kb_per_active_match']} KB per active match, "
                     f"{m['kb_per_finished_match']} KB per finished match (the slope over "
                     f"{m['waves']} waves; wave to wave: {each})")
    for pair in result["resume"]:
        for how, r in pair.items():
            hydrated = (f", every match hydrated after {r['hydrated_seconds']} s"
                        if r["hydrated_seconds"] is not None else "")
            lines.append(f"resume {how.replace('_', ' ')}: {r['matches']} active matches ready "
                         f"in {r['seconds']} s{hydrated}, loop blocked at most "
                         f"{r['longest_block_ms']} ms at a time ({r['longest_block_cpu_ms']} ms "
                         "of the loop thread's own CPU)")
    verdict = {True: "met", False: "NOT met", None: "not measured"}
    t = result["targets"]
    lines += [
        f"target p99 command latency <= 2 x fsync p99 + 1 ms "
        f"(= {round(2 * f['p99_ms'] + 1, 3)} ms): {verdict[t['p99_latency']]}",
        f"target timer lateness p99 <= 20 ms: {verdict[t['timer_lateness']]}",
        f"target <= 50 KB per active match: {verdict[t['memory_active']]}",
        f"target 0 KB per finished match (under 0.5 KB): {verdict[t['memory_finished']]}",
        f"target resume of 10,000 <= 3 s, loop never blocked > 100 ms: "
        f"{verdict[t['resume_10000']]}",
    ]
    return lines


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--matches", type=int, default=1000,
                   help="concurrent matches in the load part (0: skip it; default 1000)")
    p.add_argument("--games", default="all",
                   help=f"comma-separated games, round-robin over the matches, or 'all' "
                        f"(default; {', '.join(installed_games())})")
    p.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite",
                   help="the store: SQLite files in a temporary directory, or PostgreSQL "
                        "(default sqlite)")
    p.add_argument("--pg-url", default=None,
                   help="an existing PostgreSQL server, as postgresql+asyncpg://user@host:port/"
                        "{db} (the bench creates and drops databases named bench_*; default: "
                        "start a throwaway server with initdb)")
    p.add_argument("--think", type=float, default=5.0,
                   help="mean seconds a player thinks before each move (exponential; people "
                        "on Discord take seconds; 0: saturate the store; default 5, which "
                        "with 1000 matches offers about 200 commands/s)")
    p.add_argument("--limit", type=float, default=10.0,
                   help="every decision limit of the load part in seconds, short so that "
                        "clocks run out now and then (about 1 decision in 7 at the default "
                        "think) and timer lateness is measured (default 10)")
    p.add_argument("--ramp", type=float, default=0.0,
                   help="seconds over which the load's matches start, one by one at even "
                        "intervals, as hosts start them (default 0: all at once, in batches "
                        "of 100, whose clocks then fall due together)")
    p.add_argument("--memory-matches", type=int, default=200,
                   help="matches per wave of the traced memory part (0: skip it; default 200)")
    p.add_argument("--memory-waves", type=int, default=5,
                   help="waves of finished matches whose traced memory gives the growth per "
                        "finished match, as a least-squares slope (at least 2; default 5)")
    p.add_argument("--floor-samples", type=int, default=300,
                   help="fsync / commit samples for the floor (default 300)")
    p.add_argument("--resume", type=int, nargs="*", default=[1000, 10000],
                   help="active matches to resume, one run per count (default 1000 10000; "
                        "none: skip)")
    p.add_argument("--resume-fill", type=int, default=1000,
                   help="matches played through the service to fill a resume database; "
                        "larger counts are copies of these (default 1000)")
    return p


def main() -> None:
    args = parser().parse_args()
    result = asyncio.run(run(args))
    for line in report(result):
        print(line)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
