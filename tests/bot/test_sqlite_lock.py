"""Another process holding the SQLite file's write lock (a backup, `umpire vacuum`, a second
bot) never freezes the event loop: writes wait for the lock off the loop, up to the wait
setting, then are refused with StoreUnavailable, and nothing is lost or stored twice."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.service import installed_games, timed_settings
from bot.store.database import create_engine
from bot.store.errors import StoreUnavailable
from bot.store.repository import MatchWrite, OutboxData, Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.support.transport import RecordingTransport

#: The longest the loop may go without running a task that wants to run every millisecond.
MAX_STALL = 0.1

HOLD = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


@contextlib.asynccontextmanager
async def locked(db: Path, seconds: float) -> AsyncIterator[asyncio.subprocess.Process]:
    """Another process holds the file's write lock for `seconds` from when this enters."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLD, str(db), str(seconds), stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    assert (await proc.stdout.readline()).strip() == b"locked"
    try:
        yield proc
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        raise
    finally:
        await proc.wait()


class StallProbe:
    """A task that asks to run every millisecond and records the longest gap between runs."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.at = 0.0  # when the longest gap ended (perf_counter)
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            if now - last > self.longest:
                self.longest, self.at = now - last, now
            last = now

    def __enter__(self) -> StallProbe:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def _repo(url: str, wait: float) -> tuple[Repository, list[int]]:
    repo = Repository(create_engine(url))
    repo.writer.wait = wait
    await repo.migrate()
    now = datetime.now(UTC)
    ids = [await repo.create_match(game="duel", settings={}, seed="s", commitment="c",
                                   players=[], transport={}, now=now) for _ in range(3)]
    return repo, ids


def _move(match_id: int, seq: int = 1) -> MatchWrite:
    return MatchWrite(match_id, seq, action=(0, {"type": "pick"}, "player"),
                      outbox=[OutboxData("public", f"move {seq} of {match_id}")])


def _rows(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


async def test_a_write_waits_for_a_short_lock_off_the_loop_and_is_stored_once(tmp_path):
    """Held for less than the wait: the move waits, the loop does not, and once the lock is
    gone every write is stored exactly once: the waited-on move, the queued writes beside
    it, and the delivery marks riding along."""
    db = tmp_path / "umpire.db"
    repo, ids = await _repo(f"sqlite+aiosqlite:///{db}", wait=4.0)
    now = datetime.now(UTC)
    (delivered,) = await repo.commit(_move(ids[2]), now)
    repo.queue_delivered([delivered], now)
    with StallProbe() as probe:
        async with locked(db, 1.5):
            start = time.perf_counter()
            results = await asyncio.gather(
                repo.commit(_move(ids[0]), now, at_once=True),
                repo.commit(_move(ids[1]), now),
                repo.commit(_move(ids[2], 2), now))
            waited = time.perf_counter() - start
    assert 1.0 < waited < 4.0, "the writes waited for the lock, and no longer"
    assert probe.longest < MAX_STALL, f"the loop stalled {probe.longest * 1000:.0f} ms"
    assert all(len(r) == 1 for r in results)
    assert _rows(db, "actions") == 4 and _rows(db, "outbox") == 4, "each stored once"
    assert [m.id for m in await repo.undelivered()] == [r[0] for r in results], \
        "the delivery mark was stored"
    await repo.close()
    await repo.engine.dispose()


async def test_a_write_locked_out_longer_than_the_wait_is_refused_and_leaves_nothing(
        tmp_path):
    db = tmp_path / "umpire.db"
    repo, ids = await _repo(f"sqlite+aiosqlite:///{db}", wait=1.0)
    now = datetime.now(UTC)
    (delivered,) = await repo.commit(_move(ids[2]), now)
    repo.queue_delivered([delivered], now)
    with StallProbe() as probe:
        async with locked(db, 3.0):
            start = time.perf_counter()
            results = await asyncio.gather(
                repo.commit(_move(ids[0]), now, at_once=True), repo.commit(_move(ids[1]), now),
                return_exceptions=True)
            waited = time.perf_counter() - start
            assert 0.9 < waited < 2.0, "refused once the wait was over, not at once"
            assert all(isinstance(r, StoreUnavailable) for r in results), results
    assert probe.longest < MAX_STALL, f"the loop stalled {probe.longest * 1000:.0f} ms"
    assert _rows(db, "actions") == 1 and _rows(db, "outbox") == 1, "nothing of them stored"
    assert repo.writer.refused == 2
    await repo.flush_delivered()  # the delivery mark was put back, not lost
    assert await repo.undelivered() == []
    (again,) = await repo.commit(_move(ids[0]), now, at_once=True)  # sent again: stored
    assert _rows(db, "actions") == 2
    await repo.close()
    await repo.engine.dispose()


async def test_a_checkpoint_due_while_the_file_is_locked_does_not_stall_the_loop(tmp_path):
    db = tmp_path / "umpire.db"
    repo, ids = await _repo(f"sqlite+aiosqlite:///{db}", wait=4.0)
    now = datetime.now(UTC)
    checkpointer = repo.writer.checkpointer
    assert checkpointer is not None
    with StallProbe() as probe:
        async with locked(db, 1.0):
            checkpointer.restart_due = True  # the writer finishes a checkpoint first
            await repo.commit(_move(ids[0]), now)
        await asyncio.sleep(0.6)  # the checkpoint thread's pass after that commit
    assert probe.longest < MAX_STALL, f"the loop stalled {probe.longest * 1000:.0f} ms"
    assert checkpointer.finished >= 1 and checkpointer.checkpoints >= 1
    await repo.close()
    await repo.engine.dispose()


# --- the service, playing while another process holds the lock for 12 s -------------------

async def _play(service: MatchService, match_id: int, rng: random.Random,
                accepted: dict[int, list[tuple[float, dict]]], refused: list[str]) -> None:
    """One match's two players: answer an open decision, pause, again, until it ends."""
    while (match := service.matches.get(match_id)) and match.status == "active":
        await asyncio.sleep(rng.uniform(0.01, 0.2))
        match = service.matches[match_id]  # a refused move rebuilds the live match
        if not match.prompts:
            continue
        prompt = rng.choice(match.prompts)
        command = match.game.random_command(match.state, prompt, rng)
        reply = await service.submit_command(match_id, prompt.seat, command)
        if reply.accepted:
            accepted[match_id].append((time.perf_counter(), _timeless(
                command.model_dump(mode="json"))))
        elif "not record" in reply.message:
            refused.append(reply.message)


def _timeless(command: dict) -> dict:
    """A command without the time the service measured and added to it."""
    return {k: v for k, v in command.items() if k != "elapsed"}


@pytest.mark.slow
async def test_a_twelve_second_lock_stalls_no_match_and_loses_no_move(tmp_path):
    """Matches of every game play on while another process holds the lock for 12 s: the
    loop never stalls over 100 ms, moves made during the lock wait the wait setting (5 s)
    and are refused, every accepted move is stored, and nothing of a refused one."""
    db = tmp_path / "umpire.db"
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    games = installed_games()
    ids = [(await service.start_match(
        g, [PlayerRef(f"{i}a", "A"), PlayerRef(f"{i}b", "B")], seed=f"lock{i}",
        settings=timed_settings(g, 600, short=True))).id
        for i, g in enumerate(games * 4)]
    accepted: dict[int, list[tuple[float, dict]]] = {m: [] for m in ids}
    refused: list[str] = []
    players = [asyncio.create_task(_play(service, m, random.Random(m), accepted, refused))
               for m in ids]
    await asyncio.sleep(1.0)
    # (probed from the lock to a second after it: the machine's other work stalls the loop
    # of a busy test now and then, lock or not)
    async with locked(db, 12.0):
        taken = time.perf_counter()
        with StallProbe() as probe:
            await asyncio.sleep(13.0)
    await asyncio.sleep(1.0)
    for player in players:
        player.cancel()
    await asyncio.gather(*players, return_exceptions=True)
    assert probe.longest < MAX_STALL, \
        f"the loop stalled {probe.longest * 1000:.0f} ms, {probe.at - taken:.2f} s into the lock"
    assert len(refused) >= len(ids), "moves made during the lock were refused"
    answered = sorted(at for moves in accepted.values() for at, _ in moves)
    assert not [at for at in answered if taken + 0.05 < at < taken + 11.9], \
        "a move was accepted while the file was locked"
    assert [at for at in answered if at > taken + 12.1], "play went on after the lock"
    for match_id in ids:
        stored = [_timeless(a.command) for a in await service.repo.actions(match_id)]
        assert stored == [c for _, c in accepted[match_id]], \
            f"match {match_id}: the store is not what was accepted"
    await service.stop()
    await engine.dispose()
