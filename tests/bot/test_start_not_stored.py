"""A match the store cannot take (a full disk, a locked file, a lost server) is refused with
one sentence, to the host on Discord and on the command line alike, never a traceback; and
nothing of it stays behind."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.cli import main as cli_main
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.umpire import NOT_STARTED, MatchService, UmpireError
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.sqlite_lock import locked
from tests.support.transport import RecordingTransport


def _disk_full(*_: Any) -> Any:
    raise sqlite3.OperationalError("database or disk is full")


async def _server_gone(*_: Any, **__: Any) -> Any:
    raise OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))


async def _refused(db: Path, break_store: Any) -> str:
    engine = create_engine(f"sqlite+aiosqlite:///{db}")
    service = MatchService(Repository(engine), RecordingTransport())
    await service.start()
    try:
        async with break_store(service):
            with pytest.raises(UmpireError) as refused:
                await service.start_match("duel", [ANN, BOB])
        assert service.matches == {}
        match = await service.start_match("duel", [ANN, BOB])  # the store is back
        assert [m.id for m in await drive(service).stored_matches()] == [match.id]
    finally:
        await service.stop()
        await engine.dispose()
    return str(refused.value)


class _Patched:
    def __init__(self, service: MatchService, attribute: str, fake: Any, *,
                 on: str = "writer") -> None:
        self.target = drive(service).writer if on == "writer" else service.repo
        self.attribute, self.fake = attribute, fake

    async def __aenter__(self) -> None:
        self.real = getattr(self.target, self.attribute)
        setattr(self.target, self.attribute, self.fake)

    async def __aexit__(self, *exc: object) -> None:
        setattr(self.target, self.attribute, self.real)


@pytest.mark.parametrize("case", ["disk full", "file locked", "server gone"])
async def test_a_start_the_store_cannot_take_is_one_sentence(tmp_path, case):
    db = tmp_path / "umpire.db"

    def broken(service: MatchService) -> Any:
        if case == "disk full":  # the opening's transaction fails
            return _Patched(service, "bulk", _disk_full)
        if case == "server gone":  # the new match's id cannot be read
            return _Patched(service, "reserve_match", _server_gone, on="repo")
        drive(service).writer.wait = 0.3  # another process holds the file: StoreUnavailable
        return locked(db, 1.0)

    text = await _refused(db, broken)
    assert text == NOT_STARTED
    assert text.endswith(".") and ". " not in text and "\n" not in text, "one sentence"


def test_the_command_line_shows_the_sentence_not_a_traceback(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(Repository, "_apply_writes", _disk_full)
    code = cli_main(["demo", "rps-poker", "--quiet", "--db", str(tmp_path / "demo.db")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"umpire demo: {NOT_STARTED}\n"
