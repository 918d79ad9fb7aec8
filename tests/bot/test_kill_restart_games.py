"""Kill-and-restart for every game: a worker playing bot matches of all five games (and one
match per game where a person's clock runs) is killed with SIGKILL at random moments, and
right after a commit before its messages went out, then restarted, on SQLite and on PostgreSQL.

After every kill: every accepted action is stored exactly and every match's state equals an
uninterrupted replay from the seed (tests/support/kill_restart.py check_store). After every
restart: the person's clocks have the time they had at the kill (never less; at most a
heartbeat more, or a fresh clock started at its late delivery). At the end: every bot match
finished, every message was sent, and a message was sent again only within the transport's
nonce window (Discord answers a repeated nonce with the first message for a few minutes).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.store.database import create_engine
from bot.store.repository import Repository
from tests.bot.crash_worker_games import GAMES
from tests.support.kill_restart import HEARTBEAT
from tests.support.kill_restart import check_store as _check_store

ROOT = Path(__file__).resolve().parents[2]
NONCE_WINDOW = 120.0  # seconds: well inside the few minutes Discord keeps a nonce


def _start(paths: tuple[str, Path, Path], *args: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "tests.bot.crash_worker_games", *map(str, paths), *args]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.split()[:1] == ["READY"], f"worker did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}"
    proc.start_after_shift = timedelta(seconds=float(line.split()[1]))  # type: ignore[attr-defined]
    return proc


async def _person_clocks(db: str) -> dict[tuple[int, str], tuple[datetime, datetime]]:
    """(match, key) -> (started_at, deadline_at) of the armed clocks of people (not bots)."""
    engine = create_engine(db)
    async with engine.connect() as conn:
        rows = (await conn.execute(text(
            "SELECT d.match_id, d.prompt_key, d.started_at, d.deadline_at FROM deadlines d "
            "JOIN matches m ON m.id = d.match_id WHERE d.status = 'armed' AND d.seat = 0 "
            "AND d.deadline_at IS NOT NULL AND CAST(m.players AS TEXT) LIKE '%\"bot\": null%'"))).all()
    await engine.dispose()

    def utc(value: object) -> datetime:
        return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)
    return {(r.match_id, r.prompt_key): (utc(r.started_at), utc(r.deadline_at)) for r in rows}


async def _outbox(db: str) -> tuple[set[int], int, dict[str, int]]:
    engine = create_engine(db)
    async with engine.connect() as conn:
        ids = {r[0] for r in (await conn.execute(text("SELECT id FROM outbox"))).all()}
        pending = (await conn.execute(text(
            "SELECT count(*) FROM outbox WHERE delivered_at IS NULL"))).scalar_one()
        finished = dict((await conn.execute(text(
            "SELECT game, count(*) FROM matches WHERE status = 'finished' GROUP BY game"))).all())
    await engine.dispose()
    return ids, pending, finished


async def _last_heartbeat(db: str) -> datetime:
    engine = create_engine(db)
    try:
        last = await Repository(engine).last_heartbeat()
    finally:
        await engine.dispose()
    assert last is not None
    return last


def _run(tmp_path: Path, db: str, started: list[subprocess.Popen[str]], *, random_kills: int,
         commit_kills: tuple[int, ...], per_game: int, seed: int) -> None:
    paths = (db, tmp_path / "accepted", tmp_path / "sent")
    rng = random.Random(seed)
    plan = ["random"] * random_kills + [f"commit:{n}" for n in commit_kills]
    rng.shuffle(plan)
    clocks_checked = 0
    for kind in plan:
        extra = ["--per-game", str(per_game)]
        # dies by itself right after a commit, before sending: the Nth, or the one that ends
        # the last bot match (never waits on a person's clock)
        if kind.startswith("commit:"):
            proc = _start(paths, *extra, "--kill-after-commits", kind[7:])
            started.append(proc)
            proc.wait(timeout=120)
            assert proc.returncode == -signal.SIGKILL, proc.stderr.read() if proc.stderr else ""
        else:
            proc = _start(paths, *extra)
            started.append(proc)
            time.sleep(rng.uniform(0.1, 1.5))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        killed_at = datetime.now(UTC)
        before = asyncio.run(_person_clocks(paths[0]))
        stale = killed_at - asyncio.run(_last_heartbeat(paths[0]))  # the dead one's last beat
        asyncio.run(_check_store(paths[0], paths[1]))
        restarted = _start(paths, *extra)
        started.append(restarted)
        resumed_at = datetime.now(UTC)
        after = asyncio.run(_person_clocks(paths[0]))
        os.kill(restarted.pid, signal.SIGKILL)
        restarted.wait()
        for key, (_, old_deadline) in before.items():
            if key not in after:
                continue  # decided or timed out since
            started_at, deadline = after[key]
            left_at_kill, left_now = old_deadline - killed_at, deadline - resumed_at
            charged = left_at_kill - left_now  # only the start's own work after the shift
            assert charged <= restarted.start_after_shift + timedelta(seconds=0.5), \
                (f"{key}: time was charged", charged)
            fresh = started_at >= resumed_at - timedelta(seconds=0.5)  # started at its delivery
            # At most what the downtime counted from the last heartbeat adds (how long before
            # the kill it was written: its period, more on a loaded machine), with slack.
            assert fresh or left_now <= left_at_kill + max(stale, HEARTBEAT) + timedelta(
                seconds=0.5), \
                (key, left_at_kill, left_now)
            clocks_checked += 1
    final = _start(paths, "--per-game", str(per_game), "--finish")
    started.append(final)
    out, err = final.communicate(timeout=300)
    assert final.returncode == 0 and "FINISHED" in out, err[-3000:]
    assert asyncio.run(_check_store(paths[0], paths[1])) > 0
    ids, pending, finished = asyncio.run(_outbox(paths[0]))
    assert finished == {game: per_game for game in GAMES}, finished
    assert pending == 0 and ids
    sends: dict[int, list[float]] = defaultdict(list)
    for line in paths[2].read_text().split("\n"):
        if line.strip():
            message_id, at = line.split()
            sends[int(message_id)].append(float(at))
    assert ids <= set(sends), f"{len(ids - set(sends))} messages never reached the transport"
    again = {m: t for m, t in sends.items() if len(t) > 1}
    for message_id, times in again.items():
        assert max(times) - min(times) < NONCE_WINDOW, f"message {message_id} resent late"
        assert len(times) <= len(plan) * 2 + 1
    assert clocks_checked > 0, "no person's clock survived a kill to be compared"
    print(f"{len(plan)} kills, {len(ids)} messages, {len(again)} sent again within the window, "
          f"{clocks_checked} clocks compared")


def _cleanup(started: list[subprocess.Popen[str]]) -> None:
    for proc in started:  # never leave a worker behind, even when an assertion failed
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sigkill_of_every_game_loses_nothing_and_sends_nothing_twice(tmp_path: Path,
                                                                     process_db_url: str) -> None:
    started: list[subprocess.Popen[str]] = []
    try:
        _run(tmp_path, process_db_url, started, random_kills=3, commit_kills=(7, 40), per_game=2, seed=20261123)
    finally:
        _cleanup(started)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("UMPIRE_LONG_KILLS"), reason="set UMPIRE_LONG_KILLS=1")
def test_many_kills_of_every_game(tmp_path: Path, process_db_url: str) -> None:
    started: list[subprocess.Popen[str]] = []
    try:
        _run(tmp_path, process_db_url, started, random_kills=12, commit_kills=(1, 3, 17, 60, 150), per_game=4,
             seed=7)
    finally:
        _cleanup(started)
