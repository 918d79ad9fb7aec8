"""An event's full record (`umpire export --event N`) and its check (`umpire verify`): a
small local event of bots (`umpire tournament --db`), exported as one JSON with the event
and every match's record; verify checks each match (one line per match), that each
pairing's result is its match's, and that the random seeding is the committed draw, and
exits non-zero when anything is changed."""

from __future__ import annotations

import asyncio
import copy
import io
import json
from pathlib import Path

import pytest

from bot.cli import main as cli_main
from bot.console.tournament import run_tournament


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict:
    db = tmp_path_factory.mktemp("event") / "e.db"
    bots = ["heuristic", "random", "heuristic", "random"]
    asyncio.run(run_tournament("rps-poker", bots, "single", seed=4, db=str(db),
                               out=io.StringIO(), timeout=120, shuffle=True))
    out = db.parent / "event.json"
    assert cli_main(["export", "--event", "1", "--db", str(db), "-o", str(out)]) == 0
    return json.loads(out.read_text())


def _verify(data: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
            ) -> tuple[int, list[str]]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data))
    capsys.readouterr()
    code = cli_main(["verify", str(path)])
    out = capsys.readouterr()
    return code, (out.out + out.err).splitlines()


def test_the_export_holds_the_event_and_every_match(record: dict) -> None:
    assert record["name"] and record["game"] == "rps-poker" and record["format"] == "single"
    assert record["status"] == "ended" and len(record["entrants"]) == 4
    seeding = record["seeding"]
    assert seeding["method"] == "random" and seeding["seed"] == "4" and seeding["salt"]
    assert len(record["pairings"]) == 3 and all(p["result"] for p in record["pairings"])
    assert record["standings"][0]["rank"] == 1
    assert sorted(m["match"] for m in record["matches"]) == \
        sorted([p["match"] for p in record["pairings"]] +
               [m for p in record["pairings"] for m in p["earlier"]])
    earlier = {m for p in record["pairings"] for m in p["earlier"]}
    assert earlier  # seed 4 draws three matches, each played again
    assert all(m["result"]["winner"] is None for m in record["matches"] if m["match"] in earlier)
    assert all(m["seed"] and m["actions"] for m in record["matches"])  # full records


def test_verify_checks_every_match_and_each_result(record: dict, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _verify(record, tmp_path, capsys)
    assert code == 0, lines
    for match in record["matches"]:
        assert sum(f"match #{match['match']} " in line and line.startswith("verified")
                   for line in lines) == 1
    assert "the seeding is the draw" in lines[0]
    assert "gives the recorded pairings and standings" in lines[1]
    assert lines[-1].startswith("verified: event #1")


def _swap_a_winner(d: dict) -> None:
    pairing = d["pairings"][0]
    result = pairing["result"]
    result["winner"] = pairing["player1"] if result["winner"] == pairing["player0"] \
        else pairing["player0"]


def _change_a_match(d: dict) -> None:
    d["matches"][0]["actions"] = d["matches"][0]["actions"][:-1]


def _reorder_the_seeding(d: dict) -> None:
    d["entrants"].reverse()


def _better_standings(d: dict) -> None:
    d["standings"][-1]["points"] += 1


def _another_pairing(d: dict) -> None:
    first = d["pairings"][0]
    first["player0"], first["player1"] = first["player1"], first["player0"]


@pytest.mark.parametrize("change,said", [
    (_swap_a_winner, "the pairing's winner is"),
    (_change_a_match, "NOT verified: match #"),
    (_reorder_the_seeding, "not the committed draw"),
    (_better_standings, "the recorded standings are not those"),
    (_another_pairing, "the recorded pairings are not those"),
])
def test_any_change_fails_and_says_where(record: dict, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str],
                                         change: object, said: str) -> None:
    data = copy.deepcopy(record)
    change(data)  # type: ignore[operator]
    code, lines = _verify(data, tmp_path, capsys)
    assert code == 1 and any(said in line for line in lines), lines
    assert lines[-1].startswith("NOT verified: event #1")


def test_export_names_a_match_or_an_event(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["export", "--db", "/nonexistent/x.db"]) == 2
    assert "umpire export --event N" in capsys.readouterr().err


@pytest.mark.parametrize("fmt,rounds", [("roundrobin", None), ("swiss", 2), ("double", None)])
def test_every_format_exports_an_event_that_verifies(fmt: str, rounds: int | None,
                                                     tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """Five bots (a bye each round), draws where the format allows them."""
    db = tmp_path / "e.db"
    bots = ["heuristic", "random", "random", "heuristic", "random"]
    asyncio.run(run_tournament("rps-poker", bots, fmt, rounds=rounds, seed=5, db=str(db),
                               out=io.StringIO(), timeout=120))
    out = tmp_path / "event.json"
    assert cli_main(["export", "--event", "1", "--db", str(db), "-o", str(out)]) == 0
    record = json.loads(out.read_text())
    code, lines = _verify(record, tmp_path, capsys)
    assert code == 0, lines
    assert len([line for line in lines if line.startswith("verified: match #")]) == \
        len(record["matches"]) > 0
