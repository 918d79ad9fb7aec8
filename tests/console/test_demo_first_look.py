"""`umpire demo` opens with a first look that fits a screen (issue 42, item 10): each game in
a few lines (players and moves, the first moves, the result), the whole transcript with
--full."""

from __future__ import annotations

import subprocess
import sys

from bot.console.demo import FULL_HINT
from games.registry import all_games, installed_games


def _demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", "demo", "--seed", "3", *args],
                          capture_output=True, text=True, timeout=300)


def test_the_first_demo_fits_a_screen_with_every_games_result() -> None:
    done = _demo("--width", "80")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    games = [all_games()[slug] for slug in installed_games()]  # (not the toy games)
    assert len(lines) <= 24, done.stdout  # one screen
    for game in games:
        n = next(i for i, line in enumerate(lines) if line.startswith(f"{game.title}: "))
        assert lines[n].endswith(" moves")
        assert lines[n + 1].startswith("  ") and lines[n + 1].strip()  # the first moves
        assert lines[n + 2].startswith(f"  {game.slug}: match #")  # the result line
        assert " wins " in lines[n + 2] or "a draw" in lines[n + 2]
    assert lines[-1] == FULL_HINT
    from unicodedata import east_asian_width

    for line in lines:
        if not line.startswith("  ") or f"{line.strip().split(':')[0]}" in all_games():
            continue  # the result lines are whole, as --quiet prints them
        assert sum(2 if east_asian_width(c) in "WF" else 1 for c in line) <= 80, line
    assert "[#1 room]" not in done.stdout and "{P" not in done.stdout


def test_full_prints_every_channel() -> None:
    done = _demo("rps-poker", "--full")
    assert done.returncode == 0, done.stderr
    for place in ("[#1 room]", "[#1 table of Ada", "[#1 host log]"):
        assert place in done.stdout
    assert done.stdout.splitlines()[-1].startswith("rps-poker: match #1: ")
