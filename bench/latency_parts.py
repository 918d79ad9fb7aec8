"""Where a player's command spends its time under the load of `bench.service` (SQLite).

    python -m bench.latency_parts [--seconds 45] [--skip 5] [--matches 1000] [--think 5]
                                  [--limit 10] [--storage real|none]

Plays the load part of `bench.service` (the same matches, random players and clocks, started
at once) for `--seconds`, then stops; the commands submitted in the first `--skip` seconds
are left out. For every player's command it splits the latency `bench.service` reports
(submit until stored and handed to the transport) into three parts: before its write (the
checks, the rules, composing the messages), the write (the statements and SQLite's COMMIT,
the COMMIT also on its own), and after it (handing the messages over, arming the clocks).
It prints p50 and p99 of each, and the mean of each among the commands over the whole p99.

`--storage none` answers each player's write at once with made-up message ids and stores
nothing for it (match starts, clocks running out and the bots' moves are still stored): what
is left is the service's own path, against which the database's share of the latency target
can be read. Only a diagnostic: the matches' records are incomplete afterwards.

Progress goes to stderr; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.service import (
    Database,
    NullTransport,
    _drive,
    _ms,
    _pct,
    _players,
    timed_settings,
)
from bot.gc_tuning import settle_after_start
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.umpire import MatchService
from games.registry import installed_games

PARTS = ("total", "before_write", "write", "commit", "after_write")


@dataclass
class Command:
    """One player's command, as perf_counter() times; `write`/`commit` are durations."""

    submitted: float
    write_started: float | None = None
    write_ended: float | None = None
    commit: float = 0.0
    done: float | None = None

    def parts(self) -> dict[str, float] | None:
        if self.write_started is None or self.write_ended is None or self.done is None:
            return None  # refused before any write (the clock got there first)
        return {"total": self.done - self.submitted,
                "before_write": self.write_started - self.submitted,
                "write": self.write_ended - self.write_started,
                "commit": self.commit,
                "after_write": self.done - self.write_ended}


@dataclass
class Probe:
    """Times each player's command and its write, without changing what the service does."""

    commands: list[Command] = field(default_factory=list)
    #: The command each match is running now (its write is timed), by match id.
    current: dict[int, Command] = field(default_factory=dict)
    #: Seconds spent in COMMITs since the running write started.
    commit_seconds: float = 0.0

    def attach(self, service: MatchService, *, store: bool) -> None:
        submit = service.submit_command
        commit = service.repo.commit
        ids = itertools.count(10**12)

        async def timed_submit(match_id: int, seat: int, command: Any, **kw: Any) -> Any:
            record = Command(time.perf_counter())
            self.current[match_id] = record
            try:
                return await submit(match_id, seat, command, **kw)
            finally:
                record.done = time.perf_counter()
                self.current.pop(match_id, None)
                self.commands.append(record)

        async def timed_commit(write: Any, now: Any, *, at_once: bool = False) -> list[int]:
            record = self.current.get(write.match_id) if at_once else None
            if record is None:
                return await commit(write, now, at_once=at_once)
            record.write_started = time.perf_counter()
            # stored at once, the write runs without yielding, so the COMMITs timed until it
            # returns are its own (queued behind a batch, it shares that batch's COMMIT)
            self.commit_seconds = 0.0
            if store:
                result = await commit(write, now, at_once=at_once)
            else:  # a made-up id per message; nothing stored
                result = [next(ids) for _ in write.outbox]
            record.write_ended = time.perf_counter()
            record.commit = self.commit_seconds
            return result

        service.submit_command = timed_submit  # type: ignore[method-assign]
        service.repo.commit = timed_commit  # type: ignore[method-assign]
        engine = service.repo.writer.sync_engine
        if engine is not None:
            self._time_commits(engine.dialect)

    def _time_commits(self, dialect: Any) -> None:
        do_commit: Callable[[Any], None] = dialect.do_commit

        def timed(dbapi_connection: Any) -> None:
            start = time.perf_counter()
            do_commit(dbapi_connection)
            self.commit_seconds += time.perf_counter() - start

        dialect.do_commit = timed


def summary(commands: list[Command], since: float) -> dict[str, Any]:
    """p50 and p99 of each part, and each part's mean among the commands over the p99."""
    rows = [p for c in commands if c.submitted >= since and (p := c.parts()) is not None]
    if not rows:
        return {"commands": 0}
    p99 = _pct([r["total"] for r in rows], 0.99)
    tail = [r for r in rows if r["total"] > p99]
    out: dict[str, Any] = {"commands": len(rows), "over_p99": len(tail)}
    for part in PARTS:
        values = [r[part] for r in rows]
        out[part] = {"p50_ms": _ms(statistics.median(values)), "p99_ms": _ms(_pct(values, 0.99)),
                     "mean_over_p99_ms": _ms(statistics.mean(r[part] for r in tail))
                     if tail else None}
    return out


async def measure(root: Path, *, seconds: float, skip: float, matches: int, think: float,
                  limit: float, store: bool) -> dict[str, Any]:
    db = Database(root)
    engine = create_engine(await db.fresh("parts"))
    service = MatchService(Repository(engine), NullTransport())
    probe = Probe()
    await service.start()
    settle_after_start()
    probe.attach(service, store=store)
    games = installed_games()
    settings = {g: timed_settings(g, limit, short=True) for g in games}
    ids: list[int] = []
    for first in range(0, matches, 100):
        starts = [service.start_match(games[i % len(games)], _players(i), seed=f"b{i}",
                                      settings=settings[games[i % len(games)]])
                  for i in range(first, min(matches, first + 100))]
        ids += [m.id for m in await asyncio.gather(*starts)]
    print(f"[bench.latency_parts] {matches} matches started; playing {seconds:.0f} s "
          f"(storage: {'real' if store else 'none'})", file=sys.stderr, flush=True)
    begun = time.perf_counter()
    players = [asyncio.create_task(_drive(service, m, think, random.Random(m), None))
               for m in ids]
    await asyncio.sleep(seconds)
    for player in players:
        player.cancel()
    await asyncio.gather(*players, return_exceptions=True)
    result = {"storage": "real" if store else "none", "matches": matches, "think": think,
              "limit": limit, "seconds": seconds, "skip": skip,
              **summary(probe.commands, begun + skip)}
    await service.stop()
    await engine.dispose()
    return result


def report(result: dict[str, Any]) -> list[str]:
    lines = [f"storage: {result['storage']}; {result['matches']} matches, {result['seconds']:.0f} s "
             f"(the first {result['skip']:.0f} s left out): {result.get('commands', 0)} "
             f"players' commands"]
    for part in PARTS:
        if part in result:
            f = result[part]
            lines.append(f"{part:>12}: p50 {f['p50_ms']:.3f} ms, p99 {f['p99_ms']:.3f} ms, "
                         f"mean over the total's p99 {f['mean_over_p99_ms']} ms")
    return lines


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 2)[2])
    p.add_argument("--seconds", type=float, default=45.0, help="how long to play (default 45)")
    p.add_argument("--skip", type=float, default=5.0,
                   help="leave out the commands of the first SKIP seconds (default 5)")
    p.add_argument("--matches", type=int, default=1000, help="concurrent matches (default 1000)")
    p.add_argument("--think", type=float, default=5.0,
                   help="a player's mean thinking time in seconds (default 5)")
    p.add_argument("--limit", type=float, default=10.0,
                   help="every decision limit in seconds (default 10)")
    p.add_argument("--storage", choices=("real", "none"), default="real",
                   help="none: players' writes answered at once, not stored (default real)")
    return p


def main() -> None:
    args = parser().parse_args()
    if args.seconds <= args.skip:
        parser().error("--seconds must be longer than --skip")
    if args.matches < 1:
        parser().error("--matches must be at least 1")
    with tempfile.TemporaryDirectory(prefix="umpire-parts-") as tmp:
        result = asyncio.run(measure(Path(tmp), seconds=args.seconds, skip=args.skip,
                                     matches=args.matches, think=args.think, limit=args.limit,
                                     store=args.storage == "real"))
    for line in report(result):
        print(line)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
