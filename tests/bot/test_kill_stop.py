"""Kill-and-restart during a clock stop: the game room is held (its readers are wrong) while
Bob's decision is open, so his clock stops; the process is killed with SIGKILL 5 s later
(his decision had 4 s) and started again with the room still held. The stop was stored
before it took effect: it goes on after the start, and once the room is fixed Bob is charged
nothing of the stop, the kill or the downtime (the time from the stop to the room's first
message through is exactly what his clock was moved by)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _worker(db: Path, flags: Path, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tests.bot.stop_worker", str(db), str(flags),
                             mode], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _line(proc: subprocess.Popen[str], word: str) -> list[str]:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith(word), (line, proc.stderr.read() if proc.stderr else "")
    return line.split()[1:]


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace(" ", "T")).replace(tzinfo=None)


def test_sigkill_during_a_clock_stop_charges_no_one(tmp_path: Path) -> None:
    db, flags = tmp_path / "stop.db", tmp_path / "flags"
    flags.mkdir()
    procs: list[subprocess.Popen[str]] = []
    try:
        first = _worker(db, flags, "start")
        procs.append(first)
        limit, *since = _line(first, "STOPPED")
        time.sleep(5)  # longer than Bob's whole decision
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        time.sleep(1)
        second = _worker(db, flags, "resume")
        procs.append(second)
        round_, stopped = _line(second, "HELD")
        assert round_ == "1" and stopped == "True", "Bob's clock stayed stopped"
        back, moved_limit, round_ = _line(second, "BACK")
        assert round_ == "1", "Bob's decision is still open"
        credit = (_time(moved_limit) - _time(limit)).total_seconds()
        stopped_for = (_time(back) - _time(" ".join(since))).total_seconds()
        # his clock moved by the whole time from the stop to the room's return (the send's
        # moment is taken just after the transport's, hence the small slack)
        assert abs(credit - stopped_for) < 0.3, (credit, stopped_for)
        assert second.wait(30) == 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
