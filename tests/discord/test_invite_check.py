"""`umpire invite` (the exact permissions each channel mode needs, checked against
discord.py's Permissions) and `umpire run --check` against the fake Discord."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import discord
import pytest

from bot.cli import main as cli_main
from bot.discord.invite import client_id_of
from bot.discord.preflight import TO_CREATE, TO_POST, TO_THREAD
from testbed.fake_discord import permissions as P
from testbed.fake_discord.fixtures import fake_discord  # noqa: F401
from testbed.fake_discord.server import FakeDiscord
from tests.support.run_process import run_env as _env

#: What docs/discord.md lists, by Discord's names, per mode (written out independently).
CHANNELS = ["View Channels", "Send Messages", "Read Message History", "Embed Links",
            "Attach Files", "Manage Channels", "Manage Roles", "Manage Messages"]
THREADS = [*CHANNELS, "Create Private Threads", "Send Messages in Threads", "Manage Threads"]
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gabcde.not-a-real-secret"


def _by_label(labels: list[str]) -> discord.Permissions:
    names = {"View Channels": "view_channel", "Send Messages in Threads":
             "send_messages_in_threads"}
    return discord.Permissions(**{names.get(x, x.lower().replace(" ", "_")): True
                                  for x in labels})


@pytest.mark.parametrize("mode, labels", [("threads", THREADS), ("channels", CHANNELS)])
def test_invite_gives_the_exact_permissions_of_the_mode_each_with_why(
        mode: str, labels: list[str], monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("UMPIRE_DISCORD__CHANNEL_MODE", mode)
    assert cli_main(["invite"]) == 0
    out = capsys.readouterr().out
    url = re.search(r"https://discord\.com/oauth2/authorize\?\S+", out).group(0)  # type: ignore[union-attr]
    assert "client_id=123456789012345678" in url and "scope=bot+applications.commands" in url
    value = int(re.search(r"permissions=(\d+)", url).group(1))  # type: ignore[union-attr]
    assert discord.Permissions(value) == _by_label(labels)
    granted = discord.Permissions(value)
    assert all(getattr(granted, p) for p in (*TO_CREATE, *TO_POST))  # what /match start checks
    assert all(getattr(granted, p) == (mode == "threads") for p in TO_THREAD)
    listed = re.findall(r"^  - ([^:]+): (.+)\.$", out, re.M)
    assert [name for name, _ in listed] == labels
    assert all(len(why) > 10 for _, why in listed)  # each says why
    assert f"integer {value}" in out


def test_invite_without_a_token_says_where_the_id_comes_from(monkeypatch, tmp_path: Path,
                                                             capsys) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    assert cli_main(["invite"]) == 0
    out = capsys.readouterr().out
    assert "client_id=CLIENT_ID" in out and "Application ID" in out
    assert out.startswith("(No bot token is configured")
    assert client_id_of("not a token") is None
    monkeypatch.setenv("DISCORD_TOKEN", "not a token")  # set, but not a bot token
    assert cli_main(["invite"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("(The configured bot token does not look like one") and \
        "client_id=CLIENT_ID" in out


def test_the_docs_list_the_permissions_of_both_modes() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "discord.md").read_text()
    for mode, labels in (("threads", THREADS), ("channels", CHANNELS)):
        assert str(_by_label(labels).value) in text, mode
    for name in THREADS:
        assert f"**{name}**" in text or name in text


def test_invite_and_the_docs_say_the_same_of_who_reads_a_table(monkeypatch, capsys) -> None:
    """Threads mode, the default: a table thread is read by its player and the bot only,
    never by the hosts; channels mode: by its player and the host role (docs/discord.md,
    *Who reads what*, and the invite's reasons)."""
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    text = (Path(__file__).resolve().parents[2] / "docs" / "discord.md").read_text()
    for mode in ("threads", "channels"):
        monkeypatch.setenv("UMPIRE_DISCORD__CHANNEL_MODE", mode)
        assert cli_main(["invite"]) == 0
        out = capsys.readouterr().out
        assert "player and the hosts can read" not in out and "the hosts read" not in out
        assert "in channels mode a table for its player and the host role only" in out
        if mode == "threads":
            assert "only that player and the bot read (not even the hosts)" in out
    assert "only that player and the bot read (not even the hosts)" in text
    assert "in channels mode a table for its player and the host role only" in text
    assert "**hosts never read a table**" in text
    assert "every table and the host log" not in text  # (the old, contradicting table)


async def _check(fake: FakeDiscord, tmp_path: Path, **env: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.discord.run_under_fake", "run", "--check",
        env=_env(fake, str(tmp_path / "u.db"), tmp_path / "s.json", **env), cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert "Traceback" not in err.decode(), err.decode()
    return proc.returncode or 0, out.decode()


async def test_run_check_says_each_check_in_one_line_and_fails_on_a_missing_permission(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:  # noqa: F811
    fake = fake_discord
    fake.add_guild("Ready Club", bot_permissions=P.THREADS_BOT | P.MANAGE_CHANNELS
                   | P.MANAGE_ROLES | P.MANAGE_MESSAGES)
    code, out = await _check(fake, tmp_path)
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "ok   database", "ok   migrations", "ok   token", "ok   intents",
        lines[-1].split(":")[0]]
    assert code == 0, out
    fake.add_guild("Bare Club", bot_permissions=P.DEFAULT_BOT)
    code, out = await _check(fake, tmp_path)
    assert code == 1
    bare = next(line for line in out.splitlines() if "Bare Club" in line)
    assert bare.startswith("FAIL ") and "Create Private Threads" in bare
    assert "Manage Threads" in bare and "(threads mode)" in bare
    code, out = await _check(fake, tmp_path, UMPIRE_DISCORD__CHANNEL_MODE="channels")
    bare = next(line for line in out.splitlines() if "Bare Club" in line)
    assert "Create Private Threads" not in bare and "channels mode" in bare


async def test_run_check_with_a_wrong_token(fake_discord: FakeDiscord, tmp_path: Path) -> None:  # noqa: F811
    code, out = await _check(fake_discord, tmp_path,
                             DISCORD_TOKEN="MTIzNDU2Nzg5MDEyMzQ1Njc4.Gabcde.wrong")
    assert code == 1
    assert any(line.startswith("FAIL token: Discord refuses it") for line in out.splitlines())
