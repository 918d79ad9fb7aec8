"""The `umpire` command as a person runs it (subprocesses): pipes, exit codes, Ctrl-C,
resuming a match, and match records (list, export, verify)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.cli import main as cli_main
from tests.support.old_records import before_match_commitments

UMPIRE = [sys.executable, "-m", "bot.cli"]


def umpire(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*UMPIRE, *args], capture_output=True, text=True, timeout=timeout,
                          **kw)


def test_version() -> None:
    done = umpire("--version")
    assert done.returncode == 0
    assert re.fullmatch(r"umpire \d+\.\d+\.\d+\S* \(arena core: (compiled|pure Python)\)\n",
                        done.stdout)


def test_version_names_the_core_a_build_without_a_compiler_left() -> None:
    """Issue 42, item 18: pip hides the build's one line, so --version says which core runs."""
    done = umpire("--version", env={**os.environ, "UMPIRE_PURE_PYTHON": "1"})
    assert done.stdout.endswith("(arena core: pure Python)\n"), done.stdout


def test_demo_into_a_reader_that_stops_early_ends_quietly() -> None:
    start = time.perf_counter()
    done = subprocess.run(f"{' '.join(UMPIRE)} demo | head -3", shell=True, capture_output=True,
                          text=True, timeout=120)
    assert len(done.stdout.splitlines()) == 3
    assert done.stderr == ""  # no BrokenPipeError, no traceback
    assert time.perf_counter() - start < 60  # it stopped, instead of playing every game


def test_play_ends_at_quit_without_waiting_for_another_line(tmp_path: Path) -> None:
    proc = subprocess.Popen([*UMPIRE, "play", "rps-poker", "--bot", "random", "--db",
                             str(tmp_path / "p.db")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    proc.stdin.write("/quit\n")
    proc.stdin.flush()  # standard input stays open: no Enter, no end of input
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "aborted the match (the player left the console)" in proc.stdout.read()  # type: ignore[union-attr]


@pytest.mark.slow
def test_play_ends_when_the_match_ends_without_waiting_for_another_line(tmp_path: Path) -> None:
    proc = subprocess.Popen([*UMPIRE, "play", "rps-poker", "--bot", "random", "--db",
                             str(tmp_path / "p.db")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                proc.stdin.write("#1\n")  # the first card, whenever asked
                proc.stdin.flush()
            except BrokenPipeError:
                break
            time.sleep(0.2)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = proc.stdout.read()  # type: ignore[union-attr]
    assert proc.returncode == 0, proc.stderr.read()  # type: ignore[union-attr]
    assert "🏁 Match over" in out


def _seconds_left(text: str) -> int:
    found = re.findall(r"Your decision \(time runs out in (\d+) s", text)
    assert found, text
    return int(found[-1])


def test_ctrl_c_leaves_the_match_and_resume_continues_it_with_the_clocks_as_they_were(
        tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    proc = subprocess.Popen([*UMPIRE, "play", "rps-poker", "--bot", "random", "--db", db],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("/status\n")
    proc.stdin.flush()
    seen = ""
    while "Your decision (time runs out" not in seen:  # the match runs and /status answered
        line = proc.stdout.readline()
        assert line, "play ended early"
        seen += line
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    out = seen + out
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert f"Continue it with: umpire play --resume 1 --db {db}" in err
    before = _seconds_left(out)
    time.sleep(4)  # away: this must not be charged to anyone
    done = umpire("play", "--resume", "1", "--db", db, input="/status\n/quit\n", timeout=60)
    assert done.returncode == 0, done.stderr
    assert "continuing match #1" in done.stdout
    assert before - 6 <= _seconds_left(done.stdout) <= before
    assert "aborted the match (the player left the console)" in done.stdout
    again = umpire("play", "--resume", "1", "--db", db, input="/quit\n")
    assert again.returncode == 2
    assert again.stderr.startswith("umpire play: There is no running match #1")


# --- a user's mistake: one sentence, non-zero exit code ----------------------------------------
@pytest.mark.parametrize("config, expected", [
    ('[database]\nsnapshot_every = "many"\n',
     "{path}: [database] snapshot_every = 'many' is not allowed: it must be a whole number, "
     "at least 1."),
    ("[database\nurl = 1\n", "{path}: not valid TOML (Expected ']' at the end of a table "
     "declaration (at line 1, column 10))."),
    ("[discrod]\ntoken = 'x'\n", "{path}: unknown section [discrod] (did you mean 'discord'? "
     "valid: database, discord, clock, bots, shards, health, metrics)."),
    ("[discord]\nhost_rol = 'x'\n", "{path}: unknown key 'host_rol' in [discord] (did you mean "
     "'host_role'? valid: token, command_prefix, host_role, log_channel, "),
])
def test_config_mistakes_are_one_sentence_naming_file_key_and_what_is_allowed(
        tmp_path: Path, config: str, expected: str, capsys) -> None:
    path = tmp_path / "c.toml"
    path.write_text(config)
    assert cli_main(["--config", str(path), "migrate", "--db", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("umpire: " + expected.format(path=path)) and err.count("\n") == 1
    assert not (tmp_path / "x.db").exists()


def test_a_missing_config_file_is_an_error(tmp_path: Path) -> None:
    done = umpire("--config", str(tmp_path / "nope.toml"), "matches")  # the real exit code
    assert done.returncode == 2
    assert done.stderr == (f"umpire: {tmp_path / 'nope.toml'}: the config file given by "
                           "--config does not exist.\n")


def test_migrate_takes_a_plain_path_and_says_created_then_up_to_date(tmp_path: Path,
                                                                      capsys) -> None:
    db = tmp_path / "new.db"
    assert cli_main(["migrate", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("Created the database: ")
    assert db.is_file()
    assert cli_main(["migrate", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("Database is up to date: ")


@pytest.mark.parametrize("args, message", [
    (["migrate", "--db", "bogus://x"], "'bogus://x' is not a database this bot can use"),
    (["matches", "--db", "{tmp}/none.db"], "there is no database at {tmp}/none.db"),
    (["verify", "{tmp}/none.json"], "{tmp}/none.json: no such file."),
    (["play"], "name the game to play"),
])
def test_database_and_file_mistakes_are_one_sentence(tmp_path: Path, args: list[str],
                                                      message: str, capsys) -> None:
    assert cli_main([a.format(tmp=tmp_path) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("umpire: " + message.format(tmp=tmp_path))
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_no_network_is_one_sentence(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "DISCORD_TOKEN": "MTIzNDU2Nzg5MDEyMzQ1Njc4.Gabcde.x",
           "UMPIRE_DATABASE__URL": f"sqlite+aiosqlite:///{tmp_path}/r.db",
           "HOME": str(tmp_path), "https_proxy": "http://127.0.0.1:9",
           "HTTPS_PROXY": "http://127.0.0.1:9"}
    done = umpire("run", env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if "WARNING discord" not in line]
    assert len(lines) == 1 and lines[0].startswith("umpire: cannot reach Discord ("), done.stderr


# --- match records -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import asyncio
    import io

    from bot.console.demo import run_demo

    db = tmp_path_factory.mktemp("records") / "demo.db"
    asyncio.run(run_demo(["rps-poker", "devils-deal"], 4, quiet=True, db=str(db),
                         out=io.StringIO()))
    return db


def test_matches_lists_game_players_status_and_result(played: Path, capsys) -> None:
    assert cli_main(["matches", "--db", str(played)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "game" in lines[0] and "players" in lines[0] and "result" in lines[0]
    assert "started (UTC)" in lines[0]
    assert any("rps-poker" in line and "Ada (heuristic) vs Bea (random)" in line
               and "finished" in line and " wins " in line for line in lines[1:])
    assert len(lines) == 3


def test_export_as_json_and_as_a_transcript(played: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "rec.json"
    assert cli_main(["export", "1", "--db", str(played), "-o", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["game"] == "rps-poker" and record["seed"] and record["actions"]
    capsys.readouterr()
    assert cli_main(["export", "1", "--db", str(played), "--text"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Match #1: rps-poker, Ada (heuristic) vs Bea (random)")
    assert "[room] 🎲 Match #1" in text and "[table of Bea (random)]" in text
    assert cli_main(["export", "9", "--db", str(played)]) == 2
    assert "There is no match #9" in capsys.readouterr().err


@pytest.fixture
def record(played: Path, tmp_path: Path) -> Path:
    out = tmp_path / "rec.json"
    assert cli_main(["export", "2", "--db", str(played), "-o", str(out)]) == 0
    return out


def test_verify_replays_the_record_and_says_verified(record: Path) -> None:
    done = umpire("verify", str(record))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("verified: match #2 (Devil's Deal")


def _tamper(record: Path, change, capsys) -> tuple[int, str]:
    data = json.loads(record.read_text())
    change(data)
    record.write_text(json.dumps(data))
    capsys.readouterr()
    code = cli_main(["verify", str(record)])
    return code, capsys.readouterr().err


def test_verify_rejects_another_seed(record: Path, capsys) -> None:
    code, err = _tamper(record, lambda d: d.update(seed=d["seed"] + "x"), capsys)
    assert code == 1
    assert "the revealed seed does not match the commitment" in err


def test_verify_rejects_a_commitment_other_than_the_one_published(record: Path, capsys) -> None:
    from games.core.chance import seed_commitment

    def change(d: dict) -> None:  # a consistent seed, salt and commitment, not the published one
        d["seed"] = "chosen-later"
        d["seed_commitment"] = seed_commitment("chosen-later", d["seed_salt"])
    code, err = _tamper(record, change, capsys)
    assert code == 1 and "the commitment published at the start" in err


def test_verify_checks_the_salt(record: Path, capsys) -> None:
    data = json.loads(record.read_text())
    assert len(bytes.fromhex(data["seed_salt"])) >= 16  # at least 128 bits, revealed at the end
    code, err = _tamper(record, lambda d: d.update(seed_salt="00" * 16), capsys)
    assert code == 1 and "the revealed seed does not match the commitment" in err
    code, err = _tamper(record, lambda d: d.update(seed_salt=None), capsys)
    assert code == 1 and "the revealed seed does not match the commitment" in err


def test_verify_accepts_an_unsalted_record_from_before_salting_and_says_so(
        record: Path, capsys) -> None:
    def old(d: dict) -> None:  # as exported before salting: no salt, SHA-256 of the seed
        before_match_commitments(d)
        commitment = hashlib.sha256(d["seed"].encode()).hexdigest()
        for m in d["messages"]:
            m["text"] = m["text"].replace(d["seed_commitment"], commitment)
        d["seed_commitment"] = commitment
        d.pop("seed_salt")
    data = json.loads(record.read_text())
    old(data)
    record.write_text(json.dumps(data))
    capsys.readouterr()
    code = cli_main(["verify", str(record)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.out.startswith("verified:") and "predates salted commitments" in out.out


def test_verify_rejects_a_changed_result(record: Path, capsys) -> None:
    def change(d: dict) -> None:
        d["result"]["winner"] = 1 - d["result"]["winner"]
    code, err = _tamper(record, change, capsys)
    assert code == 1 and "the result differs" in err


def test_verify_rejects_a_changed_message_and_says_which_action(record: Path, capsys) -> None:
    data = json.loads(record.read_text())
    seq = data["actions"][2]["seq"]
    victim = next(m for m in data["messages"] if m["seq"] == seq and m["audience"] == "public")

    def change(d: dict) -> None:
        for m in d["messages"]:
            if m["id"] == victim["id"]:
                m["text"] = "nothing happened"
    code, err = _tamper(record, change, capsys)
    assert code == 1
    assert "NOT verified" in err and "action 3 (" in err
    assert "the record's messages do not say" in err


def test_verify_rejects_a_changed_action(record: Path, capsys) -> None:
    data = json.loads(record.read_text())
    original = data["actions"][0]["command"]

    def change(d: dict) -> None:
        d["actions"][0]["command"] = {**original, **{k: (v + 1 if isinstance(v, int) and
                                                        not isinstance(v, bool) else v)
                                                     for k, v in original.items()}}
    code, err = _tamper(record, change, capsys)
    assert code == 1 and "action 1 (" in err
