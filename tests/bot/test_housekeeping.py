"""Storage stays bounded over months: the service prunes on its own, `umpire vacuum` on demand."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.cli import main as cli_main
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.support.driver import drive
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
    await drive(service).drain()
    assert await drive(service).count_undelivered() == 0
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


async def _live_match(url: str, moves: int) -> int:
    """A match of two people left running after `moves` moves (its clocks: live and done)."""
    engine = create_engine(url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    match = await service.start_match("rps-poker", [PlayerRef("c", "C"), PlayerRef("d", "D")],
                                      seed="live")
    rng = random.Random(1)
    for _ in range(moves):
        live = service.matches[match.id]
        prompt = live.prompts[0]
        reply = await service.submit_command(
            match.id, prompt.seat, live.game.random_command(live.state, prompt, rng))
        assert reply.accepted
    await drive(service).drain()
    await service.stop()
    await engine.dispose()
    return match.id


def _clock_rows(db: Path) -> dict[int, list[str]]:
    """Each match's clock rows' statuses."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT match_id, status FROM deadlines ORDER BY id").fetchall()
    out: dict[int, list[str]] = {}
    for match_id, status in rows:
        out.setdefault(match_id, []).append(status)
    return out


def test_vacuum_prunes_the_clock_rows_of_ended_matches_and_no_live_ones(tmp_path, capsys):
    db = tmp_path / "umpire.db"
    url = f"sqlite+aiosqlite:///{db}"
    live = asyncio.run(_live_match(url, 4))
    ended = asyncio.run(_played(url, 2))  # (its service pruned on start, before they ended)
    before = _clock_rows(db)
    assert all(before[m] for m in ended) and "done" in before[live]
    dead = sum(len(before[m]) for m in ended)
    assert cli_main(["vacuum", "--db", url, "--retention-days", "1"]) == 0
    assert _clock_rows(db) == {live: before[live]}
    assert f"and {dead} clock rows of ended matches" in capsys.readouterr().out


async def test_the_service_prunes_the_clock_rows_of_ended_matches(tmp_path):
    """Also without a message retention (messages kept forever)."""
    db = tmp_path / "umpire.db"
    url = f"sqlite+aiosqlite:///{db}"
    live = await _live_match(url, 4)
    ended = await _played(url, 2)  # (its service pruned on start, before they ended)
    before = _clock_rows(db)
    assert all(before[m] for m in ended)
    outbox = _counts(db)[0]
    engine = create_engine(url)
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    for _ in range(100):  # the first round runs as soon as the service has started
        if set(_clock_rows(db)) == {live}:
            break
        await asyncio.sleep(0.05)
    await service.stop()
    await engine.dispose()
    assert _clock_rows(db) == {live: before[live]}
    assert _counts(db)[0] == outbox, "no retention: every message is kept"


def _delivered(db: Path) -> tuple[int, int]:
    """(delivered, undelivered) outbox rows."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(delivered_at), count(*) - count(delivered_at) "
                            "FROM outbox").fetchone()


def test_retention_zero_deletes_every_delivered_message_and_forever_none(tmp_path, capsys):
    db = tmp_path / "umpire.db"
    url = f"sqlite+aiosqlite:///{db}"
    asyncio.run(_played(url, 2))
    with sqlite3.connect(db) as conn:  # a message not delivered yet, newest of all
        conn.execute("INSERT INTO outbox (match_id, seq, audience, text, payload, created_at, "
                     "attempts) SELECT 1, 0, 'public', 'late', '{}', created_at, 0 FROM outbox "
                     "LIMIT 1")
    delivered, undelivered = _delivered(db)
    assert delivered > 0 and undelivered == 1
    assert cli_main(["vacuum", "--db", url, "--retention-days", "forever"]) == 0
    assert _delivered(db) == (delivered, 1), "forever: nothing deleted"
    assert cli_main(["vacuum", "--db", url, "--retention-days", "0"]) == 0
    assert _delivered(db) == (0, 1), "0: every delivered message, none undelivered"
    assert f"Deleted {delivered} delivered messages" in capsys.readouterr().out
