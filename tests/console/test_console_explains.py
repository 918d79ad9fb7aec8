"""The console explains the game being played (issue 42, items 6 and 7): /help lists that
game's moves in its grammar's own words, /rules shows the whole rules page a page at a
time (also from an installed package, which has no docs/), and `play` wraps its lines to
the terminal like `demo`."""

from __future__ import annotations

import asyncio
import io
import re
import subprocess
import sys
from pathlib import Path
from unicodedata import east_asian_width

import pytest

from bot.console.play import help_text, rules_pages, rules_text, run_play
from games.core.pages import RULES_DIR
from games.registry import all_games, installed_games

REPO = Path(__file__).resolve().parents[2]
GAMES = installed_games()  # (not the test suite's toy games)


def _columns(line: str) -> int:
    return sum(2 if east_asian_width(c) in "WF" else 1 for c in line)


@pytest.mark.parametrize("slug", GAMES)
def test_help_lists_this_games_moves_and_no_other_games(slug: str) -> None:
    game = all_games()[slug]
    text = help_text(game, None)
    assert game.move_help(), f"{slug} lists no moves for /help"
    for move in game.move_help():
        assert move in text
    for other in GAMES:  # (a line two games share, such as who starts, is both games')
        theirs = set(all_games()[other].move_help()) - set(game.move_help())
        assert not any(m in text for m in theirs), other
    assert "as you would in Discord" not in text and "/match lock" not in text
    assert "keep R3" not in text or slug == "rps-poker"
    assert "raise 3" not in text


@pytest.mark.parametrize("slug", GAMES)
def test_rules_shows_the_whole_page_in_pages(slug: str) -> None:
    page = (RULES_DIR / f"{slug}.md").read_text(encoding="utf-8")
    pages = rules_pages(slug, 80, 30, ("Ann", "Bob"))
    assert len(pages) > 1
    shown = " ".join(" ".join(pages).split())
    words = " ".join(page.replace("{P0}", "Ann").replace("{P1}", "Bob").split())
    assert shown == words  # every word of the page, in order, nothing else
    for text in pages:
        lines = text.splitlines()
        assert len(lines) <= 30
        assert all(_columns(x) <= 80 or x.startswith(("|", "#")) or " " not in x.strip()
                   for x in lines), text
    assert "{P0}" not in shown
    last = rules_text(slug, str(len(pages)), 80, 30)
    assert last.endswith(f"(Rules page {len(pages)} of {len(pages)}: the last page.)")
    assert "no rules page 'x'" in rules_text(slug, "x", 80, 30)


def test_decoders_rules_reach_the_turn_words() -> None:
    shown = " ".join(rules_pages("decoder", 80, 30))
    for word in ("ANY", "ODD", "TWO"):
        assert word in shown


def test_an_installed_package_reads_the_rules_page(tmp_path: Path, monkeypatch) -> None:
    """setup.py's build_py copies docs/rules into the built game packages; the built tree,
    without docs/ (as installed), reads the page from there."""
    import runpy

    from setuptools import Distribution, find_packages

    names = runpy.run_path(str(REPO / "setup.py"), run_name="umpire_setup")
    monkeypatch.chdir(REPO)
    lib = tmp_path / "lib"
    dist = Distribution({"name": "t", "script_name": "setup.py",
                         "packages": find_packages(include=["bot*", "games*"]),
                         "package_data": {"*": ["*.txt", "*.gz", "*.md", "*.js"]}})
    command = names["BuildPyWithRules"](dist)
    command.build_lib = str(lib)
    command.ensure_finalized()
    command.run()
    assert (lib / "games/decoder/rules.md").is_file() and not (tmp_path / "docs").exists()
    read = subprocess.run(
        [sys.executable, "-c", "from games.core.pages import RULES_DIR; "
         "from games.registry import get_game; "
         "assert not RULES_DIR.exists(), RULES_DIR; print(get_game('decoder').rules_page())"],
        cwd=tmp_path, env={"PYTHONPATH": str(lib), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120)
    assert read.returncode == 0, read.stderr
    assert read.stdout.strip() == (RULES_DIR / "decoder.md").read_text().strip()


def test_play_wraps_to_the_terminal_like_demo(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    out = io.StringIO()
    asyncio.run(run_play("decoder", bot=None, seat=0, seed="w", db=str(tmp_path / "w.db"),
                         name="Tess", stream=io.StringIO("/help\n/rules\n/view\n/json\n/status"
                                                         "\n/quit\n"), out=out,
                         bot_think=0.0))
    lines = out.getvalue().splitlines()
    json_at = lines.index("{")  # /json: JSON as it is, not wrapped
    json_end = lines.index("}", json_at)
    too_wide = [x for n, x in enumerate(lines[1:], 1) if _columns(x) > 60 and " " in x.strip()
                and not json_at <= n <= json_end
                and not x.startswith("|") and not re.search(r"`[0-9a-f]{64}`", x)]
    assert not too_wide, too_wide
    assert any(x.startswith("[room] ") for x in lines)
    assert any(x.startswith("  - set <puzzle> to <seconds>") for x in lines)  # /help
    text = out.getvalue()
    assert '"tanks"' in text or "{" in text  # /json printed
    assert not re.search(r"\{P\d\}|\{until:", text)  # issue 42 item 8: every surface
