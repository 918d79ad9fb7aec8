"""Local records: `play`, `matches`, `export` and `vacuum` share one default database, the
end of a match names the exact export command, and transcripts render every placeholder."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main as cli_main

UMPIRE = [sys.executable, "-m", "bot.cli"]


def test_play_then_matches_and_export_find_the_match_without_db(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    env.pop("UMPIRE_DATABASE__URL", None)
    env.pop("UMPIRE_CONFIG", None)

    def umpire(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([*UMPIRE, *args], input=stdin, capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=120)

    played = umpire("play", "rps-poker", "--bot", "random", stdin="/quit\n")
    assert played.returncode == 0, played.stderr
    last = played.stdout.strip().splitlines()[-1]
    assert last == ("The match is kept as #1: `umpire export 1` writes its record, "
                    "`umpire export 1 --text` its transcript.")
    assert (tmp_path / "data" / "umpire" / "umpire.db").is_file()
    listed = umpire("matches")
    assert listed.returncode == 0 and "rps-poker" in listed.stdout, listed.stderr
    exported = umpire("export", "1")
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["game"] == "rps-poker"
    # a configured database wins for all of them alike
    env["UMPIRE_DATABASE__URL"] = str(tmp_path / "other.db")
    assert umpire("migrate").returncode == 0
    assert "No matches" in umpire("matches").stdout
    with_db = umpire("play", "rps-poker", "--bot", "random", "--db", "x.db", stdin="/quit\n")
    assert "`umpire export 1 --db x.db`" in with_db.stdout


def test_play_help_names_the_default_database() -> None:
    done = subprocess.run([*UMPIRE, "play", "--help"], capture_output=True, text=True)
    assert "play.db" not in done.stdout
    assert "umpire/umpire.db" in done.stdout


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bot.console.demo import run_demo

    db = tmp_path_factory.mktemp("tr") / "d.db"
    asyncio.run(run_demo([], 11, quiet=True, db=str(db), out=io.StringIO()))
    return db


@pytest.mark.parametrize("match_id", [1, 2, 3, 4, 5])
def test_the_transcript_renders_every_placeholder(demo_db: Path, match_id: int,
                                                  capsys) -> None:
    assert cli_main(["export", str(match_id), "--db", str(demo_db), "--text"]) == 0
    text = capsys.readouterr().out
    assert not re.search(r"\{P\d\}|\{until:", text), re.search(r".*\{(P\d|until:).*", text)
    if match_id == 1:  # RPS Poker: each decision's deadline, absolute and relative
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, 30 s after this message", text)


def test_the_hosts_transcript_renders_every_placeholder_too(demo_db: Path, capsys) -> None:
    """/match export's transcript (bot/discord/cogs/host.py) renders deadlines the same way."""
    from bot.console.records import transcript_text
    from bot.transport import PlayerRef

    assert cli_main(["export", "1", "--db", str(demo_db)]) == 0
    record = json.loads(capsys.readouterr().out)
    players = tuple(PlayerRef(p["id"], p["name"]) for p in record["players"])
    text = transcript_text(record, players)
    assert not re.search(r"\{P\d\}|\{until:", text)
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, 30 s after this message", text)
