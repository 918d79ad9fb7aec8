"""Every command finds the same database (issue 42, items 1 to 3): --db, else the configured
one, else one default file in the user's data folder, whatever folder the command runs in;
`run --check` refuses what `run` refuses before any network call; `health` creates nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.cli import main as cli_main
from bot.discord import runner

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gabcde.not-a-real-secret"


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder as the current one, no config, a data folder of its own."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("UMPIRE_CONFIG", "UMPIRE_DATABASE__URL", "UMPIRE_SHARDS__COUNT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    return tmp_path


def _runner_sees(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Record the database (and --check) `umpire run` hands the runner, without Discord."""
    seen: list[tuple[str, bool]] = []

    def fake_main(settings: Any, check: bool = False) -> int:
        seen.append((settings.database.url, check))
        return 0

    monkeypatch.setattr(runner, "main", fake_main)
    return seen


def test_every_command_uses_one_default_file(empty: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    default = empty / "data" / "umpire" / "umpire.db"
    assert cli_main(["migrate"]) == 0
    assert f"Created the database: sqlite+aiosqlite:///{default}" in capsys.readouterr().out
    assert cli_main(["matches"]) == 0  # finds it (a missing file would be an error)
    assert cli_main(["vacuum"]) == 0
    assert str(default) in capsys.readouterr().out
    cli_main(["health"])
    assert f"ok   database: sqlite+aiosqlite:///{default} answers" in capsys.readouterr().out
    seen = _runner_sees(monkeypatch)
    assert cli_main(["run", "--check"]) == 0 and cli_main(["run"]) == 0
    assert seen == [(f"sqlite+aiosqlite:///{default}", True),
                    (f"sqlite+aiosqlite:///{default}", False)]
    assert not (empty / "work" / "umpire.db").exists()  # the old default of run and health


def test_the_configured_database_wins_over_the_default(
        empty: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    mine = empty / "mine.db"
    monkeypatch.setenv("UMPIRE_DATABASE__URL", str(mine))
    assert cli_main(["migrate"]) == 0
    assert str(mine) in capsys.readouterr().out
    seen = _runner_sees(monkeypatch)
    cli_main(["run", "--check"])
    assert seen == [(f"sqlite+aiosqlite:///{mine}", True)]
    assert not (empty / "data" / "umpire").exists()


def test_health_in_an_empty_folder_creates_nothing_and_fails_the_database(
        empty: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["health"]) == 1
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "database" in x)
    assert line.startswith("FAIL database: there is no database at "), out
    assert not (empty / "work" / "umpire.db").exists()
    assert not (empty / "data" / "umpire").exists()  # not even its folder


def test_an_old_default_file_is_named_not_silently_left_behind(
        empty: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = empty / "work" / "umpire.db"
    old.write_bytes(b"")
    assert cli_main(["matches"]) == 2
    err = capsys.readouterr().err
    assert str(old) in err and "umpire.db" in err and "--db" in err


def test_run_check_refuses_shards_on_sqlite_as_run_does_before_the_network(
        empty: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("UMPIRE_SHARDS__COUNT", "2")
    network: list[str] = []
    monkeypatch.setattr("bot.discord.check.run_check",
                        lambda *a, **k: network.append("check"))  # the first network call
    for argv in (["run"], ["run", "--check"]):
        assert cli_main(argv) == 2, argv
        assert "[shards] count is more than 1, but the database is an SQLite file" in \
            capsys.readouterr().err
    assert network == []


@pytest.mark.parametrize("argv", [["run"], ["run", "--check"]])
def test_a_token_of_the_wrong_shape_is_refused_before_the_network(
        empty: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str]) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-bot-token")
    network: list[str] = []
    monkeypatch.setattr("bot.discord.check.run_check",
                        lambda *a, **k: network.append("check"))
    monkeypatch.setattr(runner, "run", lambda *a, **k: network.append("run"))
    assert cli_main(argv) == 2
    assert "does not look like a bot token" in capsys.readouterr().err
    assert network == []


def test_the_help_of_every_database_option_names_the_one_default() -> None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("play", "migrate", "matches", "export", "vacuum"):
        db = next(a for a in sub.choices[name]._actions if a.dest == "db")  # type: ignore[attr-defined]
        assert "~/.local/share/umpire/umpire.db" in db.help, name
