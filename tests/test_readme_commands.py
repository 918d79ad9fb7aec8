"""The README's command table (issue 42): every row's synopsis is what the parser takes (its
command, and every option it shows), and every row names the test that runs it."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from bot.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent

#: Each row of the table (its command words) -> a test that runs that command, by file and
#: name. A row without an entry, or an entry whose test is gone, fails below.
EXERCISED = {
    "demo": "tests/console/test_demo_first_look.py::test_the_first_demo_fits_a_screen_with_every_games_result",
    "play": "tests/console/test_cli_process.py::test_play_ends_when_the_match_ends_without_waiting_for_another_line",
    "play --resume": "tests/console/test_cli_process.py::test_ctrl_c_leaves_the_match_and_resume_continues_it_with_the_clocks_as_they_were",
    "arena": "tests/arena/test_cli_process.py::test_json_to_standard_output_is_only_the_json",
    "tournament": "tests/tournament/test_event_cli.py::test_the_command_line_runs_an_event_and_refuses_an_unknown_format",
    "matches": "tests/console/test_local_records.py::test_play_then_matches_and_export_find_the_match_without_db",
    "export": "tests/console/test_cli_process.py::test_export_as_json_and_as_a_transcript",
    "verify": "tests/console/test_cli_process.py::test_verify_replays_the_record_and_says_verified",
    "run": "tests/discord/test_run_process.py::test_sigterm_stops_cleanly_releasing_the_shard_leases",
    "invite": "tests/discord/test_invite_check.py::test_invite_gives_the_exact_permissions_of_the_mode_each_with_why",
    "health": "tests/console/test_one_database.py::test_health_in_an_empty_folder_creates_nothing_and_fails_the_database",
    "migrate": "tests/console/test_cli_process.py::test_migrate_takes_a_plain_path_and_says_created_then_up_to_date",
    "vacuum": "tests/bot/test_housekeeping.py::test_umpire_vacuum_prunes_and_gives_the_space_back",
    "--version": "tests/console/test_cli_process.py::test_version",
}


def rows() -> list[str]:
    """The synopsis of every row of the README's command table (`umpire ...`), each form."""
    text = (ROOT / "README.md").read_text()
    table = text.split("## Commands", 1)[1].strip().split("\n\n", 1)[0]
    found = []
    for line in table.splitlines()[2:]:  # (after the header row and its rule)
        cell = line.split(" | ", 1)[0]
        found += re.findall(r"`(umpire [^`]+)`", cell)
    return found


def _name(synopsis: str) -> str:
    words = synopsis.split()[1:]
    return "play --resume" if words[:2] == ["play", "--resume"] else words[0]


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


def test_the_table_lists_every_command() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    listed = {_name(r) for r in rows()}
    assert set(sub.choices) | {"--version", "play --resume"} == listed


@pytest.mark.parametrize("synopsis", rows())
def test_each_rows_options_are_the_parsers(synopsis: str) -> None:
    name = _name(synopsis)
    if name in ("--version", "arena"):  # (the arena has its own parser: umpire arena --help)
        return
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    command = sub.choices[name.split()[0]]
    shown = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", synopsis.replace("\\|", "|")))
    assert shown <= _options(command), (synopsis, shown - _options(command))


@pytest.mark.parametrize("name", sorted(EXERCISED))
def test_each_row_is_exercised_by_a_test(name: str) -> None:
    assert name in {_name(r) for r in rows()}
    path, test = EXERCISED[name].split("::")
    source = (ROOT / path).read_text()
    assert re.search(rf"^(async )?def {test}\(", source, re.M), EXERCISED[name]
    assert f'"{name.split()[0]}"' in source or name == "--version" and '"--version"' in source
