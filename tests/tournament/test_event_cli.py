"""`umpire tournament`: an event of built-in bots through the full service, per format."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.console.tournament import run_tournament
from bot.tournament.event import champion
from bot.tournament.formats import format_named

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("fmt,rounds", [("single", None), ("double", None),
                                        ("roundrobin", None), ("swiss", 3)])
async def test_each_format_runs_to_its_end_with_standings(fmt: str, rounds: int | None) -> None:
    out = io.StringIO()
    bots = ["heuristic", "random", "heuristic", "random", "random"]
    event = await run_tournament("rps-poker", bots, fmt, rounds=rounds, seed=2, out=out,
                                 timeout=120)
    text = out.getvalue()
    form = format_named(fmt)
    state = form.load(event.state or {})
    assert event.status == "ended" and form.finished(state)
    assert "Round 1 of" in text and f"Standings of {event.name}:" in text
    assert all(p.id in state.results for p in state.pairings)  # every pairing decided
    if fmt == "swiss":
        assert max(p.round for p in state.pairings) == 3
    winner = champion(event, form)
    if winner is not None:
        assert f"{event.name_of(winner)} is the champion" in text
    for entrant in event.entrants:  # the table shows names, not ids
        assert entrant.name in text.split("Standings of")[1]


def test_the_command_line_runs_an_event_and_refuses_an_unknown_format() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "bot.cli", "tournament", "rps-poker",
           "--players", "heuristic,random,random"]
    done = subprocess.run([*cmd, "--format", "single", "--seed", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Standings of" in done.stdout and "over" in done.stdout
    bad = subprocess.run([*cmd, "--format", "ladder"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "no tournament format 'ladder'" in bad.stderr
    assert "Traceback" not in bad.stderr
    one = subprocess.run([*cmd[:-2], "--players", "random"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert one.returncode == 2 and "at least two" in one.stderr
