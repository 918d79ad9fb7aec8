"""`umpire demo` and `umpire play` through the real service on a temporary SQLite file."""

from __future__ import annotations

import io
import threading
import time

from bot.cli import main as cli_main
from bot.console.demo import run_demo
from bot.console.play import run_play
from games.registry import installed_games


async def test_demo_plays_every_game_to_the_end_and_prints_every_channel():
    out = io.StringIO()
    games = installed_games()
    lines = await run_demo(games, seed=3, out=out)
    assert len(lines) == len(games) >= 3
    for game, line in zip(games, lines, strict=True):
        assert line.startswith(f"{game}: match #")
        assert " wins " in line or "a draw" in line, line
        assert "{P" not in line
    text = out.getvalue()
    for place in ("#1 room]", "#1 table of Ada", "#1 table of Bea", "#1 host log]"):
        assert place in text
    assert "{until:" not in text and "{P0}" not in text


async def test_demo_with_the_same_seed_plays_the_same_matches():
    first = await run_demo(["rps-poker", "devils-deal"], seed=11, out=io.StringIO())
    second = await run_demo(["rps-poker", "devils-deal"], seed=11, out=io.StringIO())
    assert [line.split(": ", 2)[2] for line in first] == [line.split(": ", 2)[2] for line in second]


class ScriptedPlayer(io.TextIOBase):
    """Stdin for the console: answers "#1" (first card) whenever asked, paced like a person."""

    def __init__(self, lines: int) -> None:
        self.left = lines
        self.lock = threading.Lock()

    def readline(self, size: int = -1) -> str:
        time.sleep(0.02)
        with self.lock:
            if self.left <= 0:
                return ""
            self.left -= 1
        return "#1\n" if self.left % 7 else "/status\n"


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


async def test_demo_shows_one_match_at_a_time_wrapped_without_repeating_private_lines():
    out = io.StringIO()
    await run_demo(["rps-poker", "devils-deal"], seed=5, out=out, width=80)
    text = out.getvalue()
    labels = [line.split("]")[0] for line in text.splitlines() if line.startswith("[#")]
    matches = [label.split()[0] for label in labels]
    switches = sum(1 for a, b in zip(matches, matches[1:], strict=False) if a != b)
    assert switches == 1  # all of match #1, then all of match #2
    assert max(len(line) for line in text.splitlines()) <= 80 + 70  # only unbreakable words over
    assert sum(len(line) > 80 for line in text.splitlines()) <= 5
    assert "[to " not in text  # the host log does not repeat what a table was told


async def test_demo_quiet_prints_only_result_lines_winner_first():
    out = io.StringIO()
    lines = await run_demo(["rps-poker"], seed=5, out=out, quiet=True,
                           bots=["random", "arena:saver"])
    assert out.getvalue().splitlines() == lines
    (line,) = lines
    winner, score = line.split(": ", 2)[2].split(" wins ")
    assert winner == "Bea (arena:saver)"  # seat 1 won this one, and is named first
    first, second = (int(x) for x in score.split(" ")[0].split("-"))
    assert first > second  # the winner's score first


def test_demo_refuses_unknown_bots(capsys):
    assert cli_main(["demo", "rps-poker", "--bots", "saver,nobody"]) == 2
    assert "has no bot 'nobody'" in capsys.readouterr().err  # saver is arena:saver
    assert cli_main(["demo", "rps-poker", "--bots", "random"]) == 2
    assert "--bots takes two bot names" in capsys.readouterr().err


async def test_rps_poker_view_reads_as_sentences():
    out = io.StringIO()
    await run_play("rps-poker", bot="random", seat=0, seed="view", db=None, name="Vi",
                   stream=io.StringIO("/view\n/status\n/rules\n/quit\n"), out=out,
                   bot_think=30)  # the bot has not chosen yet when /status is asked
    text = out.getvalue()
    assert "Draft round 1 of 5." in text and "You are given " in text
    assert "draft_round" not in text and "opponent_known" not in text  # no field dump
    assert "Your decision (time runs out in " in text  # /status in the players' words
    assert "draft_pick" not in text
    assert "Waiting for random (bot) to decide privately" in text
    assert "# Turn-based RPS Poker" in text and "(Rules page 1 of " in text  # /rules


def test_a_broken_bot_file_is_an_error_not_a_random_player(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("class Bot:\n    def draft_pick(self, cards) return 0\n")
    assert cli_main(["play", "rps-poker", "--bot", str(broken), "--db",
                     str(tmp_path / "p.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"umpire play: --bot {broken}: ") and "SyntaxError" in err


def test_the_final_score_is_written_winner_first_with_the_winners_name():
    from bot.console.records import result_words
    from bot.messages import outcome_line
    from games.core import Outcome

    line = outcome_line(Outcome(winner=1, reason="more points", score=(4, 6)), "s")
    assert line.startswith("🏁 Match over: {P1} wins 6-4 (more points)")
    assert outcome_line(Outcome(winner=0, reason="r", score=(6, 4)), "s").startswith(
        "🏁 Match over: {P0} wins 6-4")
    assert result_words({"winner": 1, "reason": "r", "score": [4, 6]}, ["Ada", "Bea"]) == \
        "Bea wins 6-4 (r)"
    assert result_words({"winner": None, "reason": "r", "score": [5, 5]}, ["Ada", "Bea"]) == \
        "a draw 5-5 (r)"


async def test_the_demo_announces_no_break_it_does_not_take():
    """Between built-in bots there is no break between rounds, so the round-end line must not
    promise one (it said "after a 20-second break" and the next round began at once)."""
    out = io.StringIO()
    await run_demo(["devils-deal"], seed=3, out=out)
    text = out.getvalue()
    assert "starts the next round." in text
    assert "second break" not in text
