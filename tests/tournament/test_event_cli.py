"""`umpire tournament`: an event of built-in bots through the full service, per format."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.console.demo import PrintTransport
from bot.console.runtime import local_service
from bot.console.tournament import _signed_up, entrants, run_tournament
from bot.tournament import store
from bot.tournament.event import champion
from bot.tournament.formats import format_named
from bot.tournament.runner import EventRunner

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


@pytest.mark.parametrize("signed_up", [False, True])
async def test_an_event_stopped_between_its_creation_and_its_start_is_taken_up_again(
        tmp_path: Path, signed_up: bool) -> None:
    """Creating, signing up and starting are stored one by one: a kill between them left an
    event that no run resumed (not running yet), and the next run began a second one."""
    db = str(tmp_path / "t.db")
    bots = ["heuristic", "random", "random"]
    async with local_service(PrintTransport(io.StringIO(), quiet=True), db=db) as service:
        runner = EventRunner(service, lambda *a: None)
        event = await runner.create(name="RPS Poker single", game="rps-poker",
                                    format="single", rated=False, seed="2")
        if signed_up:
            await runner.change(event.id, lambda e: (
                _signed_up(e, entrants("rps-poker", bots)), None))
    out = io.StringIO()
    ended = await run_tournament("rps-poker", bots, "single", seed=2, db=db, out=out,
                                 timeout=120)
    assert ended.id == event.id and ended.status == "ended"
    assert f"Continuing event #{event.id}" in out.getvalue()
    async with local_service(PrintTransport(io.StringIO(), quiet=True), db=db) as service:
        assert [e.id for e in await store.of_guild(service.repo.engine, 0)] == [event.id]
