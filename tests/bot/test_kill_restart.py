"""Kill-and-restart: a real process is killed with SIGKILL at random moments and restarted.

On SQLite and on PostgreSQL (the worker takes a database URL). After every restart: every action the process had accepted is stored exactly; every match's
state (snapshot + replay) equals an uninterrupted replay from the seed; every armed clock
has the time it had left at the kill (never less, at most one heartbeat more). At the end
every outbox message has been delivered.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.live import LiveMatch
from bot.store.database import create_engine
from bot.store.repository import Repository
from tests.support.kill_restart import HEARTBEAT
from tests.support.kill_restart import check_store as _check_store

ROOT = Path(__file__).resolve().parents[2]


def _start(db: str, accepted: Path, delivered: Path, *, finish: bool = False) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "tests.bot.crash_worker", str(db), str(accepted), str(delivered)]
    proc = subprocess.Popen(cmd + (["--finish"] if finish else []), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.split()[:1] == ["READY"], f"worker did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}"
    proc.start_after_shift = timedelta(seconds=float(line.split()[1]))  # type: ignore[attr-defined]
    return proc


async def _armed_clocks(db: str) -> dict[tuple[int, str], datetime]:
    engine = create_engine(db)
    async with engine.connect() as conn:
        rows = (await conn.execute(text(
            "SELECT match_id, prompt_key, deadline_at FROM deadlines WHERE status = 'armed'"))).all()
    await engine.dispose()
    return {(r.match_id, r.prompt_key): datetime.fromisoformat(str(r.deadline_at)).replace(tzinfo=UTC)
            for r in rows}


def test_sigkill_at_random_moments_loses_nothing(tmp_path: Path, process_db_url: str) -> None:
    started: list[subprocess.Popen[str]] = []
    try:
        _kill_and_restart(tmp_path, process_db_url, started)
    finally:  # never leave a worker behind, even when an assertion failed
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _kill_and_restart(tmp_path: Path, db: str, started: list[subprocess.Popen[str]]) -> None:
    accepted, delivered = tmp_path / "accepted", tmp_path / "delivered"
    rng = random.Random(20261121)
    kills = 0
    for _ in range(6):
        proc = _start(db, accepted, delivered)
        started.append(proc)
        time.sleep(rng.uniform(0.2, 1.2))
        before = asyncio.run(_armed_clocks(db))
        killed_at = datetime.now(UTC)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        kills += 1
        asyncio.run(_check_store(db, accepted))
        restarted = _start(db, accepted, delivered)
        started.append(restarted)
        resumed_at = datetime.now(UTC)
        after = asyncio.run(_armed_clocks(db))
        for key, old_deadline in before.items():
            if key in after and key[1].startswith("r"):  # a person's clock in a duel match
                left_at_kill = old_deadline - killed_at
                left_now = after[key] - resumed_at
                # only the start's own work after the clock shift runs on the clock
                charged = left_at_kill - left_now
                assert charged <= restarted.start_after_shift + timedelta(seconds=0.5), \
                    ("time was charged", charged)
                assert left_now <= left_at_kill + HEARTBEAT + timedelta(seconds=0.5)
        os.kill(restarted.pid, signal.SIGKILL)
        restarted.wait()
    final = _start(db, accepted, delivered, finish=True)
    started.append(final)
    out, err = final.communicate(timeout=180)
    assert final.returncode == 0 and "FINISHED" in out, err
    actions = asyncio.run(_check_store(db, accepted))
    assert kills == 6 and actions > 0

    async def outbox() -> tuple[int, int, set[int]]:
        engine = create_engine(db)
        async with engine.connect() as conn:
            total = (await conn.execute(text("SELECT count(*) FROM outbox"))).scalar_one()
            pending = (await conn.execute(text(
                "SELECT count(*) FROM outbox WHERE delivered_at IS NULL"))).scalar_one()
            ids = {r[0] for r in (await conn.execute(text("SELECT id FROM outbox"))).all()}
            finished = (await conn.execute(text(
                "SELECT count(*) FROM matches WHERE game = 'rps-poker' AND status = 'finished'"
            ))).scalar_one()
        await engine.dispose()
        assert finished == 6
        return total, pending, ids

    total, pending, ids = asyncio.run(outbox())
    seen = {int(x) for x in delivered.read_text().split()}
    assert pending == 0 and total > 0
    assert ids <= seen, f"{len(ids - seen)} messages never reached the transport"


async def _openings(db: str) -> dict[int, tuple[int | None, set[str], set[str]]]:
    """Per stored match: the id of its opening message (the one that publishes the seed
    commitment; None if missing), its armed clocks, and the prompts its stored state asks."""
    engine = create_engine(db)
    repo = Repository(engine)
    found = {}
    for row in await repo.list_matches(100):
        opening = [m.id for m in await repo.messages(row.id)
                   if row.seed_commitment in m.text and "Seed commitment" in m.text]
        stored = await repo.load_match(row.id)
        assert stored is not None
        live = LiveMatch.from_store(stored)
        found[row.id] = (opening[0] if opening else None, {c.key for c in stored.clocks},
                         {p.key for p in live.prompts})
    await engine.dispose()
    return found


@pytest.mark.parametrize("point", ["transaction", "delivery"])
def test_a_kill_while_a_match_starts_never_leaves_it_without_its_opening(
        tmp_path: Path, process_db_url: str, point: str) -> None:
    """SIGKILL inside the transaction that opens a match (its row is written, its opening not
    yet committed), or right after that commit: after a restart every stored match has its
    seed commitment published, a clock for every decision it waits for, and the opening is
    delivered."""
    db, accepted, delivered = process_db_url, tmp_path / "accepted", tmp_path / "delivered"
    cmd = [sys.executable, "-m", "tests.bot.crash_worker", db, str(accepted), str(delivered),
           "--kill-in-start", point]
    dying = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert dying.returncode == -signal.SIGKILL, dying.stderr
    at_kill = asyncio.run(_openings(db))
    # the third start either left nothing (killed inside its transaction) or all of it
    assert len(at_kill) == (2 if point == "transaction" else 3)
    for match_id, (opening, clocks, prompts) in at_kill.items():
        assert opening is not None, f"match {match_id} never published its seed commitment"
        assert prompts and clocks == prompts, f"match {match_id} waits without clocks"
    restarted = _start(db, accepted, delivered)
    try:
        wanted = {opening for opening, _, _ in at_kill.values()}
        deadline = time.monotonic() + 30
        seen: set[int] = set()
        while time.monotonic() < deadline and not wanted <= seen:
            time.sleep(0.1)
            seen = {int(x) for x in delivered.read_text().split()} if delivered.exists() else set()
        assert wanted <= seen, "an opening was never delivered after the restart"
    finally:
        restarted.kill()
        restarted.wait()
    asyncio.run(_check_store(db, accepted))  # asserts: the log has no gap, states replay
