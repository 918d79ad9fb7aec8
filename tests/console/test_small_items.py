"""Issue 28, finding 7: bot file failures are told, demo takes bot files and its help
example works, --width is checked, piped moves wait for their decision, and the end of
piped input leaves the match to be resumed."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

UMPIRE = [sys.executable, "-m", "bot.cli"]
SIMPLE_JS = Path(__file__).resolve().parents[2] / "bot" / "arena" / "examples" / "simple.js"
CRASH = """class Bot:
    def draft_pick(self, cards): raise RuntimeError("boom")
    def draft_receive(self, card): pass
    def main_play(self, cards, base): return 0
    def main_postprocess(self, card): pass
"""


def umpire(*args: str, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*UMPIRE, *args], capture_output=True, text=True, timeout=120, **kw)


def test_a_failing_bot_file_is_told_to_the_player(tmp_path: Path) -> None:
    (tmp_path / "crash.py").write_text(CRASH)
    proc = subprocess.Popen([*UMPIRE, "play", "rps-poker", "--bot", "crash.py", "--db", "p.db"],
                            cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    seen = ""
    deadline = time.monotonic() + 60
    try:
        while "The bot file crash.py failed" not in seen and time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, "play ended early"
            seen += line
        proc.stdin.write("/quit\n")
        proc.stdin.flush()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "[umpire → you] The bot file crash.py failed on this decision" in seen
    assert "a random card was played for it" in seen
    # the error itself, with its line (issue 42, item 15)
    assert "failed on this decision (raised RuntimeError: boom in draft_pick (crash.py, line " \
        "2: def draft_pick(self, cards): raise RuntimeError(\"boom\"))), so a random" in seen


def test_demo_takes_bot_files(tmp_path: Path) -> None:
    (tmp_path / "crash.py").write_text(CRASH)
    done = umpire("demo", "rps-poker", "--quiet", "--seed", "3", "--bots",
                  f"crash.py,{SIMPLE_JS}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.match(r"rps-poker: match #1: ((Ada \(crash\.py\)|Bea \(simple\.js\)) wins|a draw)",
                    done.stdout)
    # its failures are told on its result line, not passed over in silence
    assert re.search(r"; the bot file crash\.py failed on \d+ decisions \(a random card was "
                     r"played for it\)$", done.stdout.strip()), done.stdout
    assert "simple.js failed" not in done.stdout
    broken = tmp_path / "broken.py"
    broken.write_text("this is not python\n")
    done = umpire("demo", "rps-poker", "--bots", "broken.py,random", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("umpire demo: --bots broken.py:")


def test_the_demo_help_example_works() -> None:
    text = " ".join(umpire("demo", "--help").stdout.split())
    example = re.search(r"`umpire (demo [^`]*--bots [^`]*)`", text)
    assert example, text
    done = umpire(*example.group(1).split(), "--quiet", "--seed", "1")
    assert done.returncode == 0, done.stderr
    wrong = umpire("demo", "--bots", "heuristic,random", "--quiet")  # all games: one lacks it
    assert wrong.returncode == 2 and "Bots belong to one game" in wrong.stderr


@pytest.mark.parametrize("width", ["0", "-3", "12", "wide"])
def test_a_width_that_cannot_be_used_is_refused(width: str) -> None:
    done = umpire("demo", "rps-poker", "--quiet", "--width", width)
    assert done.returncode == 2
    assert f"argument --width: '{width}' is not a width" in done.stderr


def test_piped_moves_wait_for_their_decision_and_the_end_of_input_leaves_the_match(
        tmp_path: Path) -> None:
    done = umpire("play", "rps-poker", "--bot", "random", "--db", "p.db", "--seed", "s",
                  input="#1\n#1\n#1\n", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[umpire → you]" not in done.stdout  # no move refused as early
    assert done.stdout.count("You keep") == 3
    assert done.stderr.strip() == ("The input ended: match #1 is left as it is. Continue it "
                                   "with: umpire play --resume 1 --db p.db")
    again = umpire("play", "--resume", "1", "--db", "p.db", input="/quit\n", cwd=tmp_path)
    assert again.returncode == 0 and "continuing match #1" in again.stdout
