"""Storage stays bounded over months: the service prunes on its own, `umpire vacuum` on demand."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.cli import main as cli_main
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.support.transport import RecordingTransport

PLAYERS = [PlayerRef("a", "A", bot="random"), PlayerRef("b", "B", bot="random")]


async def _played(url: str, matches: int) -> list[int]:
    """`matches` bot matches played to the end, every message delivered."""
    engine = create_engine(url)
    service = MatchService(Repository(engine), RecordingTransport(), snapshot_every=2)
    await service.start()
    ids = [(await service.start_match("rps-poker", PLAYERS, seed=f"h{i}")).id
           for i in range(matches)]
    await service.wait_finished(ids, timeout=60)
    await service.delivery.drain()
    assert await service.repo.count_undelivered() == 0
    await service.stop()
    await engine.dispose()
    return ids


def _counts(db: Path) -> tuple[int, int, int]:
    with sqlite3.connect(db) as conn:
        return tuple(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # type: ignore[return-value]
                     for t in ("outbox", "snapshots", "actions"))


async def test_the_service_prunes_messages_delivered_before_the_retention(tmp_path):
    db = tmp_path / "umpire.db"
    url = f"sqlite+aiosqlite:///{db}"
    ids = await _played(url, 3)
    outbox, snapshots, actions = _counts(db)
    assert snapshots == len(ids), "a finished match keeps only its latest snapshot"
    later = datetime.now(UTC) + timedelta(days=31)
    engine = create_engine(url)
    service = MatchService(Repository(engine), RecordingTransport(), now=lambda: later,
                           outbox_retention=timedelta(days=30))
    await service.start()
    for _ in range(100):  # the first round runs as soon as the service has started
        if _counts(db)[0] == 1:
            break
        await asyncio.sleep(0.05)
    await service.stop()
    await engine.dispose()
    assert _counts(db) == (1, snapshots, actions), "only the newest message stays; moves stay"


async def test_a_service_without_retention_keeps_every_message(tmp_path):
    db = tmp_path / "umpire.db"
    url = f"sqlite+aiosqlite:///{db}"
    await _played(url, 1)
    before = _counts(db)
    engine = create_engine(url)
    later = datetime.now(UTC) + timedelta(days=3650)
    service = MatchService(Repository(engine), RecordingTransport(), now=lambda: later)
    await service.start()
    await asyncio.sleep(0.2)
    await service.stop()
    await engine.dispose()
    assert _counts(db) == before


def test_umpire_vacuum_prunes_and_gives_the_space_back(tmp_path, capsys):
    db = tmp_path / "umpire.db"
    url = f"sqlite+aiosqlite:///{db}"
    asyncio.run(_played(url, 4))
    outbox, snapshots, actions = _counts(db)
    assert cli_main(["vacuum", "--db", url, "--retention-days", "1"]) == 0
    assert _counts(db) == (outbox, snapshots, actions), "nothing was delivered a day ago"
    time.sleep(0.2)  # every message is now older than the 0.086 s retention below
    assert cli_main(["vacuum", "--db", url, "--retention-days", "0.000001"]) == 0
    assert _counts(db) == (1, snapshots, actions)
    assert f"Deleted {outbox - 1} delivered messages" in capsys.readouterr().out
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA freelist_count").fetchone() == (0,)
