"""`umpire arena` as a person runs it: pipes, outputs checked first, Ctrl-C (subprocesses)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.arena.tournament import CHUNK

UMPIRE = [sys.executable, "-m", "bot.cli"]

SLOW = """import time
class Bot:
    name = "Slow"
    def __init__(self):
        with open({marker!r}, "a") as f:
            f.write("match\\n")
    def draft_pick(self, cards):
        time.sleep(0.0001)
        return 0
    def draft_receive(self, card): pass
    def main_play(self, cards, base): return 0
    def main_postprocess(self, card): pass
"""


def test_json_to_standard_output_is_only_the_json() -> None:
    done = subprocess.run([*UMPIRE, "arena", "saver", "simple", "--rounds", "20", "--seed", "1",
                           "--json", "-"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # parses: nothing else on standard output
    assert len(data["matches"]) == 20
    assert "Head to head" in done.stderr  # the table went to standard error


def test_a_reader_that_stops_early_loses_nothing_and_sees_no_traceback(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = subprocess.run(f"{' '.join(UMPIRE)} arena saver simple --rounds 20 --json {out} "
                          "| head -1", shell=True, capture_output=True, text=True, timeout=60)
    assert done.stdout.startswith("RPS Poker arena")
    assert "Traceback" not in done.stderr and "Broken" not in done.stderr
    assert len(json.loads(out.read_text())["matches"]) == 20


@pytest.mark.parametrize("target, why", [
    ("{tmp}/missing/x.json", "the folder {tmp}/missing does not exist"),
    ("{tmp}", "that is a folder; name a file"),
])
def test_an_output_that_cannot_be_written_fails_before_any_match(tmp_path: Path, target: str,
                                                                  why: str) -> None:
    target = target.format(tmp=tmp_path)
    start = time.perf_counter()
    done = subprocess.run([*UMPIRE, "arena", "saver", "simple", "--rounds", "100000",
                           "--json", target], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"umpire arena: --json {target}: {why.format(tmp=tmp_path)}."
    assert time.perf_counter() - start < 10  # 100,000 rounds were never started


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("opponent", ["simple", "file"])
def test_ctrl_c_prints_the_table_so_far_and_exits_130(tmp_path: Path, jobs: str,
                                                      opponent: str) -> None:
    bot = tmp_path / "slow.py"
    marker = tmp_path / "matches"
    # Lockstep plays a chunk's 500 matches together, so a match is counted at the end of its
    # chunk: the wait is until a third chunk per worker has started.
    bot.write_text(SLOW.format(marker=str(marker)))
    enough = 3 * CHUNK * int(jobs) * (2 if opponent == "file" else 1)
    if opponent == "file":
        opponent = str(tmp_path / "other.py")
        Path(opponent).write_text(bot.read_text().replace("Slow", "Other"))
    out = tmp_path / "r.json"
    proc = subprocess.Popen([*UMPIRE, "arena", str(bot), opponent, "--rounds", "100000",
                             "--jobs", jobs, "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and (
            not marker.exists() or marker.read_text().count("match") < enough):
        time.sleep(0.1)  # until every worker has played a few chunks
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "Interrupted (Ctrl-C): the table so far" in stdout
    data = json.loads(out.read_text())
    assert data["interrupted"] is True
    played = len(data["matches"])
    assert 0 < played < 100000
    assert sum(row["points"] for row in data["leaderboard"]) == 10 * played
