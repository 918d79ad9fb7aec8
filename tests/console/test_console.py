"""`umpire demo` and `umpire play` through the real service on a temporary SQLite file."""

from __future__ import annotations

import io
import threading
import time

from bot.cli import main as cli_main
from bot.console.demo import run_demo
from bot.console.play import run_play
from games.registry import all_games


async def test_demo_plays_every_game_to_the_end_and_prints_every_channel():
    out = io.StringIO()
    games = [g for g in all_games() if g != "duel"]
    lines = await run_demo(games, seed=3, out=out)
    assert len(lines) == len(games) >= 3
    for game, line in zip(games, lines, strict=True):
        assert line.startswith(f"{game}: match #")
        assert " wins " in line or "a draw" in line, line
        assert "{P" not in line
    text = out.getvalue()
    for place in ("· room]", "· table of Ada", "· table of Bea", "· host log]"):
        assert place in text
    assert "{until:" not in text and "{P0}" not in text


async def test_demo_with_the_same_seed_plays_the_same_matches():
    first = await run_demo(["rps-poker", "devils-deal"], seed=11, out=io.StringIO())
    second = await run_demo(["rps-poker", "devils-deal"], seed=11, out=io.StringIO())
    assert [line.split(": ", 2)[2] for line in first] == [line.split(": ", 2)[2] for line in second]


class ScriptedPlayer(io.TextIOBase):
    """Stdin for the console: answers "1" (first card) whenever asked, paced like a person."""

    def __init__(self, lines: int) -> None:
        self.left = lines
        self.lock = threading.Lock()

    def readline(self, size: int = -1) -> str:
        time.sleep(0.02)
        with self.lock:
            if self.left <= 0:
                return ""
            self.left -= 1
        return "1\n" if self.left % 7 else "/status\n"


async def test_a_person_plays_a_whole_rps_poker_match_in_the_terminal():
    out = io.StringIO()
    result = await run_play("rps-poker", bot="random", seat=0, seed="console", db=None,
                            name="Tess", stream=ScriptedPlayer(2000), out=out, bot_think=0.01)
    assert result is not None and result["reason"] != "the console input ended", result
    text = out.getvalue()
    assert "[your table]" in text and "▶ Tess, your decision" in text
    assert "[room] 🎲 Match #1" in text and "🏁 Match over" in text
    assert "table of random (bot)" not in text, "the opponent's table channel must stay hidden"
    assert "Waiting for" in text  # /status output


async def test_leaving_the_console_aborts_the_match():
    out = io.StringIO()
    result = await run_play("rps-poker", bot="random", seat=1, seed="quit", db=None, name="Q",
                            stream=io.StringIO("/help\nbanana\n/quit\n"), out=out, bot_think=0.01)
    assert result is not None and result["winner"] is None
    text = out.getvalue()
    assert "Console commands:" in text
    assert "🛑 The hosts aborted the match" in text


def test_cli_refuses_unknown_games_and_bots(capsys):
    assert cli_main(["demo", "chess"]) == 2
    assert "Unknown game 'chess'" in capsys.readouterr().err
    assert cli_main(["play", "rps-poker", "--bot", "nobody"]) == 2
    assert "Unknown bot 'nobody'" in capsys.readouterr().err


async def test_an_arena_bot_file_takes_a_seat_in_a_console_match():
    """Issue 5: any arena bot (here the seed's JavaScript Simple bot) can play a real match."""
    from pathlib import Path

    js_bot = Path(__file__).resolve().parents[2] / "bot" / "arena" / "examples" / "simple.js"
    out = io.StringIO()
    result = await run_play("rps-poker", bot=str(js_bot), seat=0, seed="arena-seat", db=None,
                            name="Tess", stream=ScriptedPlayer(2000), out=out, bot_think=0.01)
    assert result is not None and result["reason"] != "the console input ended", result
    assert "simple.js (bot)" in out.getvalue()
