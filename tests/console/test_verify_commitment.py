"""`verify` checks what a record states about the start of its match (game, players,
settings, start time) against the match commitment published in the room at the start and
kept with the match: each change is one sentence naming what differs, after pruning too; a
record from before match commitments is checked as before and says what it could not check."""

from __future__ import annotations

import asyncio
import copy
import io
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import main as cli_main
from bot.match_commitment import commitment_of, parts_of
from tests.support.old_records import before_match_commitments


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bot.console.demo import run_demo

    db = tmp_path_factory.mktemp("commit") / "d.db"
    asyncio.run(run_demo(["rps-poker"], 5, quiet=True, db=str(db), out=io.StringIO()))
    return db


@pytest.fixture(scope="module")
def record(played: Path) -> dict:
    out = played.parent / "r.json"
    assert cli_main(["export", "1", "--db", str(played), "-o", str(out)]) == 0
    return json.loads(out.read_text())


def _verify(data: dict, tmp_path: Path, capsys) -> tuple[int, str, str]:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    capsys.readouterr()
    code = cli_main(["verify", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _shift(moment: str, delta: timedelta) -> str:
    return (datetime.fromisoformat(moment) + delta).isoformat()


def _recommitted(d: dict) -> None:
    """The parts recomputed for the changed record (a forger's next step)."""
    d["match_commitment"]["parts"] = parts_of(
        game=d["game"], players=d["players"], settings=d["settings"],
        started_at=datetime.fromisoformat(d["started_at"]), seed_commitment=d["seed_commitment"])


def _renamed(d: dict) -> None:
    d["players"][1]["name"] = "Zed"


def _all_times_a_day_earlier(d: dict) -> None:
    day = timedelta(days=-1)
    d["started_at"], d["ended_at"] = _shift(d["started_at"], day), _shift(d["ended_at"], day)
    for item in d["actions"] + d["messages"]:
        item["at"] = _shift(item["at"], day)


def _rehashed(d: dict) -> None:
    _renamed(d)
    _recommitted(d)
    d["match_commitment"]["sha256"] = commitment_of(d["match_commitment"]["parts"])


CHANGED = {
    "a player renamed": (_renamed, "the players (Ada (heuristic) vs Zed) are not the ones "
                         "the match committed to at the start"),
    "the seats swapped": (lambda d: d["players"].reverse(), "the seat order was changed"),
    "decision_seconds changed": (lambda d: d["settings"].update(decision_seconds=90),
                                 "the settings are not the ones the match committed to"),
    "another setting changed": (lambda d: d["settings"].update(auto_play_last_card=False),
                                "the settings are not the ones the match committed to"),
    "every time a day earlier": (_all_times_a_day_earlier, "is not the one the match "
                                 "committed to at the start: the record's times were changed"),
    "an action before the start": (lambda d: d["actions"][0].update(
        at=_shift(d["started_at"], timedelta(seconds=-1))), "before the match started"),
    "ended before its last action": (lambda d: d.update(
        ended_at=_shift(d["actions"][-1]["at"], timedelta(seconds=-1))),
        "the match ended"),
    "status active": (lambda d: d.update(status="active"), "the match is active"),
    "the result changed": (lambda d: d["result"].update(winner=1 - d["result"]["winner"]),
                           "the result differs"),
    "the parts recomputed": (lambda d: (_renamed(d), _recommitted(d)),
                             "the parts of the record's match commitment do not hash to it"),
    "the commitment recomputed": (_rehashed, "the match commitment published at the start ("),
    "the commitment removed": (lambda d: d.pop("match_commitment"),
                               "the room was told the match commitment"),
}


@pytest.mark.parametrize("name", list(CHANGED))
def test_each_change_to_what_the_start_committed_is_named(record: dict, tmp_path: Path,
                                                          capsys, name: str) -> None:
    change, words = CHANGED[name]
    data = copy.deepcopy(record)
    change(data)
    code, _, err = _verify(data, tmp_path, capsys)
    assert code == 1 and err.startswith("NOT verified: ") and err.count("\n") == 1, err
    assert words in err, err


def test_the_unchanged_record_verifies_and_names_its_match_commitment(record: dict,
                                                                      tmp_path: Path,
                                                                      capsys) -> None:
    code, out, err = _verify(record, tmp_path, capsys)
    assert code == 0, err
    commitment = record["match_commitment"]["sha256"]
    assert f"Its match commitment {commitment} covers its players, settings and start time" \
        in out
    start = record["messages"][0]
    assert start["seq"] == 0 and f"`{commitment}`" in start["text"]
    assert record["started_at"] == start["at"]  # the start time, in the export


def test_a_pruned_match_still_verifies_and_still_catches_a_rename(played: Path,
                                                                   tmp_path: Path,
                                                                   capsys) -> None:
    db = tmp_path / "pruned.db"
    db.write_bytes(played.read_bytes())
    assert cli_main(["vacuum", "--db", str(db), "--retention-days", "0"]) == 0
    out = tmp_path / "p.json"
    assert cli_main(["export", "1", "--db", str(db), "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert not any(m["seq"] == 0 for m in data["messages"])  # the start's are gone
    assert data["match_commitment"] and data["started_at"]
    code, text, err = _verify(data, tmp_path, capsys)
    assert code == 0, err
    assert "stored with the match (its room messages were pruned)" in text
    assert f"{data['match_commitment']['sha256']} covers its players, settings and start " \
        "time: compare it with the one the room was given at the start." in text
    _renamed(data)
    code, _, err = _verify(data, tmp_path, capsys)
    assert code == 1 and "the players (" in err, err


def test_a_record_from_before_match_commitments_verifies_and_says_what_it_could_not_check(
        record: dict, tmp_path: Path, capsys) -> None:
    data = before_match_commitments(copy.deepcopy(record))
    assert "Match commitment" not in data["messages"][0]["text"]
    code, out, err = _verify(data, tmp_path, capsys)
    assert code == 0, err
    assert "predates match commitments, so its players' names, its settings and its start " \
        "time could be checked only as far as its messages show them" in out
    data["settings"]["decision_seconds"] = 90  # what the messages show is still checked
    code, _, err = _verify(data, tmp_path, capsys)
    assert code == 1 and "first deadline 30 s away" in err, err
