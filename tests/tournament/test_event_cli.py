"""`umpire tournament`: an event of built-in bots through the full service, per format."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.console.demo import PrintTransport
from bot.console.runtime import local_service
from bot.console.tournament import _signed_up, entrants, run_tournament
from bot.tournament import store
from bot.tournament.event import champion
from bot.tournament.formats import format_named
from bot.tournament.runner import EventRunner
from tests.support.driver import drive

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
        assert [e.id for e in await store.of_guild(drive(service).engine, 0)] == [event.id]


async def test_every_result_is_announced_draws_included_with_what_comes_next() -> None:
    """A drawn Swiss match was never announced (a note was made only for a winner)."""
    out = io.StringIO()
    bots = ["heuristic", "random", "heuristic", "random", "random", "heuristic", "random"]
    event = await run_tournament("rps-poker", bots, "swiss", rounds=3, seed=1, out=out,
                                 timeout=120)
    text = out.getvalue()
    state = format_named("swiss").load(event.state or {})
    played = [p for p in state.pairings if p.player1 is not None]
    for p in played:
        said = [line for line in text.splitlines() if f", {p.id}: " in line and "Match #" in line]
        assert len(said) == 1, (p.id, said)
        if state.results[p.id].winner is None:
            assert "is a draw (5-5): half a point each." in said[0]
    assert any(state.results[p.id].winner is None for p in played)  # (seed 1 has a draw)
    assert "1 match of round 1 still to finish." in text
    assert "Round 1 is complete; the next round opens now." in text


async def test_the_event_s_number_comes_first_and_its_export_command_last(
        tmp_path: Path) -> None:
    out = io.StringIO()
    db = str(tmp_path / "t.db")
    event = await run_tournament("rps-poker", ["heuristic", "random"], "single", seed=3,
                                 db=f"sqlite+aiosqlite:///{db}", out=out, timeout=120)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"Event #{event.id}: ") and "in --players order" in lines[0]
    assert lines[-1] == (f"The record: umpire export --event {event.id} --db {db} -o "
                         f"event-{event.id}.json (then umpire verify event-{event.id}.json)")
    assert "No --db" not in out.getvalue()
    temporary = io.StringIO()
    await run_tournament("rps-poker", ["heuristic", "random"], "single", seed=3,
                         out=temporary, timeout=120)
    assert temporary.getvalue().startswith("No --db: the event is kept in a temporary "
                                           "database and thrown away")
    assert "umpire export" not in temporary.getvalue()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    listed = subprocess.run([sys.executable, "-m", "bot.cli", "events", "--db", db], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    [row] = [line for line in listed.stdout.splitlines() if line.split()[:1] == [str(event.id)]]
    assert event.name in row and "single" in row and "ended" in row and "local" in row


async def test_players_order_is_the_seeding_unless_shuffled() -> None:
    bots = ["heuristic", "random", "random", "heuristic"]
    ordered = await run_tournament("rps-poker", bots, "single", seed=5, out=io.StringIO(),
                                   timeout=120)
    assert [e.id for e in ordered.entrants] == ["bot:1", "bot:2", "bot:3", "bot:4"]
    assert ordered.seeded == "order"
    out = io.StringIO()
    shuffled = await run_tournament("rps-poker", bots, "single", seed=5, out=out,
                                    timeout=120, shuffle=True)
    assert shuffled.seeded == "random" and "in random order (--shuffle)" in out.getvalue()
    assert sorted(e.id for e in shuffled.entrants) == [e.id for e in ordered.entrants]
    shown = subprocess.run([sys.executable, "-m", "bot.cli", "tournament", "--help"], cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                           text=True, timeout=60).stdout
    assert "in seed order (the first is seed 1)" in " ".join(shown.split())


async def test_a_seeded_double_elimination_with_replayed_draws_repeats_exactly(
        tmp_path: Path) -> None:
    """A replay's seed included the event's version (a count of stored changes, which
    depends on which concurrent match ended first): the same command gave other events."""
    bots = ["heuristic", "random", "heuristic", "random", "random"]
    runs = []
    for i in range(2):
        out = io.StringIO()
        event = await run_tournament("rps-poker", bots, "double", seed=1, out=out, timeout=120,
                                     db=f"sqlite+aiosqlite:///{tmp_path / f'{i}.db'}")
        async with local_service(PrintTransport(io.StringIO(), quiet=True),
                                 db=str(tmp_path / f"{i}.db")) as service:
            seeds = {}
            for pairing, ids in (await store.pairing_matches(drive(service).engine,
                                                             event.id)).items():
                seeds[pairing] = [(await drive(service).stored(m)).row.seed  # type: ignore[union-attr]
                                  for m in ids]
        text = out.getvalue().replace(str(tmp_path / f"{i}.db"), "DB")
        # (the salt is new each time: it hides the seed; two matches of a round may end in
        # either order, so their lines are compared as a set)
        said = sorted(line for line in text.splitlines() if "salt" not in line)
        runs.append((event.state, seeds, said))
    assert any("it is played again at once." in line for line in runs[0][2])  # (seed 1 has)
    assert any(len(s) > 1 for s in runs[0][1].values())
    assert runs[0] == runs[1]


async def test_a_match_seed_is_the_event_seed_and_the_pairing_s_place(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Never the event's version (a count of stored changes: which concurrent match ended
    first changed it); a replay gets its own seed from how often the pairing was played."""
    from types import SimpleNamespace

    from bot.console.tournament import local_starter
    from bot.tournament.event import new_event
    from bot.tournament.formats import Pairing

    seeds: list[str] = []

    async def start_match(game: str, players: Any, **kw: Any) -> None:
        seeds.append(kw["seed"])
    service = SimpleNamespace(start_match=start_match, repo=SimpleNamespace(engine=None))
    earlier: dict[str, list[int]] = {}

    async def played(engine: Any, event_id: int) -> dict[str, list[int]]:
        return earlier
    monkeypatch.setattr(store, "pairing_matches", played)
    start = local_starter(service, 9)  # type: ignore[arg-type]
    event = new_event(name="E", game="rps-poker", format="double", seed="9", salt="s")
    pairing = Pairing(id="L2-1", round=3, player0="bot:1", player1="bot:2", bracket="losers")
    for version in (5, 11):
        await start(event.model_copy(update={"version": version}), pairing, [], {})
    earlier["L2-1"] = [7]  # played once already (a draw): the replay
    await start(event, pairing, [], {})
    assert seeds == ["9:r3:L2-1:0", "9:r3:L2-1:0", "9:r3:L2-1:1"]


async def test_the_resume_line_comes_before_the_resumed_round(tmp_path: Path) -> None:
    """A round due when the event is taken up again was printed before "Resuming event"."""
    from bot.tournament import event as ev
    from bot.tournament.event import EventError
    from bot.tournament.formats import Result

    db = str(tmp_path / "r.db")
    bots = ["heuristic", "random", "random", "heuristic"]

    async def refuse(*_: Any) -> Any:
        raise EventError("not now")
    fmt = format_named("single")
    async with local_service(PrintTransport(io.StringIO(), quiet=True), db=db) as service:
        runner = EventRunner(service, refuse)
        event = await runner.create(name="RPS Poker single", game="rps-poker",
                                    format="single", rated=False, seed="2")
        await runner.change(event.id, lambda e: (_signed_up(e, entrants("rps-poker", bots)),
                                                 None))
        await runner.start_event(event.id)
        for p in (await runner.get(event.id)).undecided(fmt):  # round 1 over, round 2 due
            await runner.change(event.id, lambda e, p=p: (ev.record(
                e, fmt, Result(pairing=p.id, winner=p.player0), service.now()), None))
        await runner.stop()
    out = io.StringIO()
    await run_tournament("rps-poker", bots, "single", seed=2, db=db, out=out, timeout=120)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"Resuming event #{event.id} (RPS Poker single)."
    assert lines[1].startswith("Round 2 of RPS Poker single")
