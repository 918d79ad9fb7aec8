"""No database URL is printed or logged with its password: the CLI's database commands on a
PostgreSQL server that is down (connection refused) say which database, password hidden."""

from __future__ import annotations

import logging

import pytest

from bot.cli import main as cli_main
from bot.cli import shown_url

PASSWORD = "S3cret-PW"
DOWN = [f"postgresql://umpire:{PASSWORD}@127.0.0.1:1/games",  # port 1: nothing listens
        f"postgresql+asyncpg://umpire:{PASSWORD}@127.0.0.1:1/games"]


@pytest.mark.parametrize("url", DOWN)
@pytest.mark.parametrize("command", [["migrate"], ["matches"], ["export", "1"], ["vacuum"]])
def test_a_down_server_is_named_without_its_password(
        command: list[str], url: str, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    code = cli_main(["-v", *command, "--db", url])
    out, err = capsys.readouterr()
    logged = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    assert code != 0
    assert "umpire:***@127.0.0.1:1/games" in err, err
    assert "cannot be reached" in err
    for where, text in (("stdout", out), ("stderr", err), ("log", logged)):
        assert PASSWORD not in text, where


def test_shown_url_hides_the_password_of_any_url() -> None:
    assert shown_url(f"postgresql+asyncpg://u:{PASSWORD}@h/db") == \
        "postgresql+asyncpg://u:***@h/db"
    assert PASSWORD not in shown_url(f"not a url://u:{PASSWORD}@h/db")
    assert shown_url("sqlite+aiosqlite:///games.db") == "sqlite+aiosqlite:///games.db"
