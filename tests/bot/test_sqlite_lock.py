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

from bench.service import timed_settings
from bot.store.database import create_engine
from bot.store.errors import StoreUnavailable
from bot.store.repository import MatchWrite, OutboxData, Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from games.registry import installed_games
from tests.support.driver import drive
from tests.support.sqlite_lock import locked
from tests.support.transport import RecordingTransport

#: The longest the loop may go without running a task that wants to run every millisecond.
MAX_STALL = 0.1

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
    assert repo.writer._made == {}, "nothing kept of the answered writes"
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
            start = time.perf_counter()
            assert [m.id for m in await repo.messages(ids[2])] == [delivered]
            assert time.perf_counter() - start < MAX_STALL, "reads do not wait for the lock"
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


# --- the service, playing while another process holds the lock ----------------------------

class Players:
    """Matches of every game (timers long enough never to run out), played by their two
    players with random moves and short pauses, each reply recorded."""

    def __init__(self, service: MatchService) -> None:
        self.service = service
        self.accepted: dict[int, list[tuple[float, dict]]] = {}  # when answered, command
        self.refused: list[str] = []  # "not recorded, send it again"
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, per_game: int) -> None:
        for i, game in enumerate(installed_games() * per_game):
            match = await self.service.start_match(
                game, [PlayerRef(f"{i}a", "A"), PlayerRef(f"{i}b", "B")], seed=f"lock{i}",
                settings=timed_settings(game, 600, short=True))
            self.accepted[match.id] = []
        self._tasks = [asyncio.create_task(self._play(m, random.Random(m)))
                       for m in self.accepted]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def answered(self) -> list[float]:
        return sorted(at for moves in self.accepted.values() for at, _ in moves)

    async def check_stored(self) -> None:
        """Every accepted move is stored, in order, and nothing else."""
        for match_id, moves in self.accepted.items():
            stored = [_timeless(a.command) for a in await drive(self.service).actions(match_id)]
            assert stored == [c for _, c in moves], \
                f"match {match_id}: the store is not what was accepted"

    async def _play(self, match_id: int, rng: random.Random) -> None:
        service = self.service
        while (match := drive(service).match(match_id)) and match.status == "active":
            await asyncio.sleep(rng.uniform(0.01, 0.2))
            match = service.matches[match_id]  # a refused move rebuilds the live match
            if not match.prompts:
                continue
            prompt = rng.choice(match.prompts)
            command = match.game.random_command(match.state, prompt, rng)
            reply = await service.submit_command(match_id, prompt.seat, command)
            if reply.accepted:
                self.accepted[match_id].append((time.perf_counter(), _timeless(
                    command.model_dump(mode="json"))))
            elif "not record" in reply.message:
                self.refused.append(reply.message)


def _timeless(command: dict) -> dict:
    """A command without the time the service measured and added to it."""
    return {k: v for k, v in command.items() if k != "elapsed"}


@contextlib.asynccontextmanager
async def playing(db: Path) -> AsyncIterator[Players]:
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    players = Players(service)
    try:
        await players.start(per_game=4)
        yield players
    finally:
        await players.stop()
        await service.stop()
        await engine.dispose()


@pytest.mark.slow
async def test_a_twelve_second_lock_stalls_no_match_and_loses_no_move(tmp_path):
    """Matches of every game play on while another process holds the lock for 12 s: the
    loop never stalls over 100 ms, moves made during the lock wait the wait setting (5 s)
    and are refused, every accepted move is stored, and nothing of a refused one."""
    db = tmp_path / "umpire.db"
    async with playing(db) as players:
        await asyncio.sleep(1.0)
        # (probed from the lock to a second after it: the machine's other work stalls the
        # loop of a busy test now and then, lock or not)
        async with locked(db, 12.0):
            taken = time.perf_counter()
            with StallProbe() as probe:
                await asyncio.sleep(13.0)
        await asyncio.sleep(1.0)
        await players.stop()
        assert probe.longest < MAX_STALL, f"the loop stalled {probe.longest * 1000:.0f} " \
            f"ms, {probe.at - taken:.2f} s into the lock"
        assert len(players.refused) >= len(players.accepted), "moves during the lock: refused"
        answered = players.answered()
        assert not [at for at in answered if taken + 0.05 < at < taken + 11.9], \
            "a move was accepted while the file was locked"
        assert [at for at in answered if at > taken + 12.1], "play went on after the lock"
        await players.check_stored()


def _fill(db: Path, megabytes: int) -> None:
    """An ended match with `megabytes` MB of actions: VACUUM then takes a while."""
    with sqlite3.connect(db, isolation_level=None) as conn:
        match_id = conn.execute("INSERT INTO matches (game, settings, seed, seed_commitment, players, "
                     "status, transport, action_count, created_at, updated_at, shard) VALUES "
                     "('duel', '{}', 's', 'c', '[]', 'finished', '{}', 0, "
                     "'2026-01-01 00:00:00.000000', '2026-01-01 00:00:00.000000', 0)").lastrowid
        conn.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                     f"WHERE i < {megabytes * 500}) INSERT INTO actions (match_id, seq, seat, "
                     f"command, source, created_at) SELECT {match_id}, i, 0, "
                     "json_object('pad', hex(randomblob(1000))), 'player', "
                     "'2026-01-01 00:00:00.000000' FROM n")


@pytest.mark.slow
async def test_umpire_vacuum_beside_the_playing_service_stalls_no_match(tmp_path):
    """`umpire vacuum` rewrites the file (here 60 MB, about half a second with the lock
    held) while matches play: the loop never stalls over 100 ms and no move is lost."""
    db = tmp_path / "umpire.db"
    url = f"sqlite+aiosqlite:///{db}"
    async with playing(db) as players:
        _fill(db, 60)
        await asyncio.sleep(1.0)
        with StallProbe() as probe:
            vacuum = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.cli", "vacuum", "--db", url, "--retention-days", "0",
                stdout=asyncio.subprocess.PIPE)
            out, _ = await vacuum.communicate()
            await asyncio.sleep(0.5)
        await players.stop()
        assert vacuum.returncode == 0 and b"vacuumed" in out
        assert probe.longest < MAX_STALL, f"the loop stalled {probe.longest * 1000:.0f} ms"
        await players.check_stored()
