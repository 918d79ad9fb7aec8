"""No command ends in a traceback: every command with every kind of bad database, and
`verify` with malformed records, ends with one sentence on stderr and exit 2 (a setting to
fix) or 1 (an outage)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.cli import main as cli_main
from tests.support.old_records import before_match_commitments

UMPIRE = [sys.executable, "-m", "bot.cli"]
PASSWORD = "s3cret-pw"

#: every command that opens a database, as it is given one
COMMANDS = [["play", "rps-poker"], ["demo", "rps-poker", "--quiet"], ["matches"], ["migrate"],
            ["export", "1"], ["vacuum"], ["run"]]


def _databases(tmp: Path) -> list[tuple[str, int, str]]:
    """(the database, the exit code, what the sentence must say)."""
    not_a_db = tmp / "notes.txt"
    not_a_db.write_text("not a database\n" * 100)
    return [
        (str(tmp / "missing" / "x.db"), 2, "missing"),
        (str(not_a_db), 2, "notes.txt"),
        (f"postgresql://u:{PASSWORD}@127.0.0.1:9/x", 1, "cannot be reached"),
        (f"postgres://u:{PASSWORD}@127.0.0.1:9/x", 1, "cannot be reached"),
        (f"mysql://u:{PASSWORD}@localhost/x", 2, "postgresql://"),
        ("bogus+driver://x", 2, "postgresql://"),
    ]


def _run(command: list[str], db: str, tmp: Path) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    env = {**os.environ, "HOME": str(tmp), "DISCORD_TOKEN": "MTIzNDU2Nzg5MDEyMzQ1Njc4.G.x",
           "UMPIRE_DATABASE__URL": db}
    args = command if command[0] in ("run", "health") else [*command, "--db", db]  # no --db
    done = subprocess.run([*UMPIRE, *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=tmp, input="")
    return args, done


@pytest.mark.slow
def test_every_command_with_every_bad_database_says_one_sentence(tmp_path: Path) -> None:
    cases = [(c, db, code, words) for c in COMMANDS for db, code, words in _databases(tmp_path)]
    if (tmp_path / "missing").exists():
        raise AssertionError("the test's missing folder exists")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda case: (case, _run(case[0], case[1], tmp_path)), cases))
    for (command, db, code, words), (args, done) in results:
        where = f"umpire {' '.join(args)}: {done.stderr}"
        assert "Traceback" not in done.stderr, where
        assert PASSWORD not in done.stderr + done.stdout, where
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("umpire: "), where
        if command[0] in ("matches", "export", "vacuum") and code == 2 and "://" not in db:
            words = "there is no database" if "missing" in db else words
        assert words in lines[0], where
        assert done.returncode == code, where
    assert not (tmp_path / "missing").exists()


@pytest.mark.slow
@pytest.mark.parametrize("command", [["health"], ["run", "--check"]])
def test_the_checks_with_every_bad_database_say_one_line_each(tmp_path: Path,
                                                               command: list[str]) -> None:
    """`health` and `run --check` print one line per check: a bad database is their FAIL
    line (or, for a setting the bot cannot use at all, the one sentence), never a traceback."""
    cases = [(db, code, words) for db, code, words in _databases(tmp_path)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda case: (case, _run(command, case[0], tmp_path)), cases))
    for (db, code, words), (_, done) in results:
        where = f"umpire {' '.join(command)} with {db}: {done.stdout}{done.stderr}"
        assert "Traceback" not in done.stdout + done.stderr, where
        assert PASSWORD not in done.stdout + done.stderr, where
        if code == 2 and "://" in db:  # a URL the bot cannot use: the one sentence
            assert done.stderr.startswith("umpire: ") and words in done.stderr, where
            assert done.returncode == 2, where
            continue
        assert done.returncode in (1, 2), where  # a FAIL line is exit 1
        failed = [line for line in (done.stdout + done.stderr).splitlines()
                  if "database" in line]
        assert failed and (failed[0].startswith(("FAIL database: ", "umpire: "))), where


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict:
    import asyncio
    import io

    from bot.console.demo import run_demo

    db = tmp_path_factory.mktemp("nt") / "d.db"
    asyncio.run(run_demo(["rps-poker", "devils-deal"], 7, quiet=True, db=str(db),
                         out=io.StringIO()))
    out = db.parent / "r.json"
    assert cli_main(["export", "1", "--db", str(db), "-o", str(out)]) == 0
    assert cli_main(["export", "2", "--db", str(db), "-o", str(db.parent / "dd.json")]) == 0
    return {**json.loads(out.read_text()), "_dir": str(db.parent)}  # extra keys are allowed


def _set(path: str, value: object):
    def change(d: dict) -> None:
        *parents, last = path.split(".")
        for p in parents:
            d = d[int(p)] if isinstance(d, list) else d[p]
        if isinstance(d, list):
            d[int(last)] = value
        else:
            d[last] = value
    return change


def _old(change):
    """The change made to the record as exported before match commitments."""
    return lambda d: change(before_match_commitments(d))


MALFORMED = {
    "no players": (_set("players", []), "players"),
    "a seat 5": (_set("actions.0.seat", 5), "actions.0.seat = 5"),
    "actions null": (_set("actions", None), "actions = None"),
    "another game's name": (_set("game", "decoder"), "not settings of Decoder"),
    "an unknown game": (_set("game", "chess"), "'chess' is not a game this umpire knows"),
    "status active": (_set("status", "active"), "the match is active"),
    "status aborted": (_set("status", "aborted"), "does not agree with its result"),
    "a time of yesterday": (_set("actions.3.at", "yesterday"), "actions.3.at = 'yesterday'"),
    "a time without a zone": (_set("actions.3.at", "2026-11-26T12:00:00"),
                              "actions.3.at = '2026-11-26T12:00:00': input should have "
                              "timezone info"),
    "times out of order": (_set("actions.3.at", "2020-01-01T00:00:00+00:00"), "out of order"),
    # (in a record from before match commitments: what its messages show is still checked)
    "a timer changed": (_old(_set("settings.decision_seconds", 90)), "first deadline 30 s away"),
    "a timer changed by a second": (_old(_set("settings.decision_seconds", 31)),
                                    "first deadline 30 s away"),
    "a command as text": (_set("actions.0.command", "keep"), "actions.0.command"),
    "a player as text": (_set("players.0", "Ada"), "players.0"),
    "no commitment": (_set("seed_commitment", None), "seed_commitment"),
    "a winner of 2": (_set("result.winner", 2), "result.winner = 2"),
    "a score of one number": (_set("result.score", [3]), "result.score"),
    "no game": (lambda d: d.pop("game"), "well-formed match record: it has no game; give"),
    "an action without a time": (lambda d: d["actions"][2].pop("at"), "it has no actions.2.at"),
    "a human said to be a bot": (_old(lambda d: d["players"][0].pop("bot")), "is not a bot"),
    "a list": (lambda d: d.clear(), "match"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_or_changed_record_is_one_sentence(record: dict, tmp_path: Path, name: str,
                                                       capsys) -> None:
    change, words = MALFORMED[name]
    data = copy.deepcopy(record)
    change(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert cli_main(["verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("NOT verified: ") and err.count("\n") == 1, err
    assert words in err, err


def _paths(d: object, prefix: tuple = ()) -> list[tuple]:
    """Every key or index of a record (the first four items of each list)."""
    if isinstance(d, dict):
        return [p for k, v in d.items() for p in [(*prefix, k), *_paths(v, (*prefix, k))]]
    if isinstance(d, list):
        return [p for i, v in enumerate(d[:4]) for p in [(*prefix, i), *_paths(v, (*prefix, i))]]
    return []


def test_any_value_anywhere_in_a_record_is_verified_or_one_sentence(record: dict) -> None:
    """Random changes (a value replaced by one of another kind, a key removed) anywhere in
    a record: verify says verified or raises its one-sentence RecordError, nothing else."""
    import random

    from bot.console.records import RecordError, verify

    values = [None, 0, -1, 5, 2**70, 1.5, "", "x", "yesterday", [], {}, [1], {"a": 1}, True,
              "2020-01-01T00:00:00+00:00", "2026-11-26T12:00:00", "0" * 64]
    rng = random.Random(28)
    clean = {k: v for k, v in record.items() if k != "_dir"}
    where = _paths(clean)
    for _ in range(400):
        data = copy.deepcopy(clean)
        for _ in range(rng.randint(1, 2)):
            *parents, last = rng.choice(where)
            d = data
            try:
                for p in parents:
                    d = d[p]
                if isinstance(d, dict) and rng.random() < 0.15:
                    d.pop(last, None)
                else:
                    d[last] = rng.choice(values)
            except (KeyError, IndexError, TypeError):
                pass  # an earlier change took the path away
        try:
            verify(data)
        except RecordError as exc:
            assert "\n" not in str(exc), exc


def test_verify_after_pruning_uses_the_commitment_kept_with_the_match(record: dict,
                                                                        tmp_path: Path,
                                                                        capsys) -> None:
    data = copy.deepcopy(record)
    data["messages"] = []  # delivered messages pruned: the match row keeps the commitment
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert cli_main(["verify", str(path)]) == 0, capsys.readouterr().err
    assert "stored with the match (its room messages were pruned)" in capsys.readouterr().out
    data["seed"] += "x"
    path.write_text(json.dumps(data))
    assert cli_main(["verify", str(path)]) == 1


def test_a_bug_is_one_sentence_and_the_traceback_only_with_verbose(monkeypatch, tmp_path: Path,
                                                                 capsys) -> None:
    import bot.console.records as records

    def broken(record: dict) -> str:
        raise ZeroDivisionError("division by zero")
    monkeypatch.setattr(records, "verify", broken)
    path = tmp_path / "bug.json"
    path.write_text("{}")
    assert cli_main(["verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("umpire: an internal error stopped `verify` (ZeroDivisionError: "
                          "division by zero); this is a bug")
    assert "Traceback" not in err and err.count("\n") == 1
    assert cli_main(["-v", "verify", str(path)]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_health_with_a_database_that_cannot_be_reached(tmp_path: Path) -> None:
    env = {**os.environ, "UMPIRE_DATABASE__URL": f"postgresql://u:{PASSWORD}@127.0.0.1:9/x",
           "UMPIRE_HEALTH__STATUS_FILE": str(tmp_path / "none.json")}
    done = subprocess.run([*UMPIRE, "health"], capture_output=True, text=True, env=env,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("FAIL process: no status file")
    assert lines[1].startswith("FAIL database: the database postgresql+asyncpg://u:***@")



def test_verify_replays_the_opening_with_the_records_settings(record: dict, tmp_path: Path,
                                                              capsys) -> None:
    data = json.loads((Path(record["_dir"]) / "dd.json").read_text())
    assert data["game"] == "devils-deal"
    path = tmp_path / "dd.json"
    path.write_text(json.dumps(data))
    assert cli_main(["verify", str(path)]) == 0, capsys.readouterr().err
    data["settings"]["starting_chips"] += 1  # shows only in the opening ("Starting pools")
    path.write_text(json.dumps(data))
    assert cli_main(["verify", str(path)]) == 1
    err = capsys.readouterr().err  # the match commitment covers the settings
    assert "NOT verified" in err and "the settings are not the ones the match committed" in err
    path.write_text(json.dumps(before_match_commitments(data)))
    assert cli_main(["verify", str(path)]) == 1  # without it, the opening's replay tells
    err = capsys.readouterr().err
    assert "NOT verified" in err and "the start: the replay tells 'public'" in err


def test_a_locked_sqlite_file_is_an_outage_not_a_setting() -> None:
    from bot.cli import database_problem
    from bot.store.errors import StoreUnavailable

    message, code = database_problem(StoreUnavailable("the database file stayed locked for "
                                                      "5 s"), "sqlite+aiosqlite:///g.db")
    assert code == 1 and "is locked by another program (the database file stayed locked" \
        in message
    message, code = database_problem(StoreUnavailable("the database server cannot be reached: "
                                                      "OSError: refused"),
                                     "postgresql+asyncpg://u:pw@h/x")
    assert code == 1 and message.startswith("the database postgresql+asyncpg://u:***@h/x "
                                            "cannot be reached (OSError: refused)")
