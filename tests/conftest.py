"""Shared fixtures: the toy game is registered for runtime tests."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator

import pytest

from tests.support.register import register_duel

register_duel()


#: The root logger as pytest set it up, before any test ran the `umpire` command.
_ROOT_LEVEL = logging.getLogger().level


@pytest.fixture(autouse=True)
def _python_handles_sigint() -> Iterator[None]:
    """Each test starts with Python's own SIGINT handler: a handler an earlier test in the
    same process left ignored would make the arena watchdog's interrupt a no-op and be
    inherited by every subprocess a test starts (its Ctrl-C then does nothing); clean-clone
    CI runs failed on both."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield


@pytest.fixture(autouse=True)
def _root_logger_as_it_was() -> Iterator[None]:
    """A test that runs the `umpire` command in-process sets the root logger up for that
    command (local commands: CRITICAL only, so that their output carries no log lines);
    without this, every later test in the same worker would lose its warnings (caplog and
    the metrics' 429 count read them). The level comes back to what it was before any test
    ran, not to what it was when this test began: a module-scoped fixture that ran the
    command set it before this fixture's first look."""
    root = logging.getLogger()
    level, handlers = _ROOT_LEVEL, list(root.handlers)
    yield
    root.setLevel(level)
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)


# Tests that take many seconds each (matches played by the hundred, processes killed and
# restarted): marked `slow` here, so that `pytest -m "not slow"` is the quick run the README
# documents. A test file may also mark its own tests with @pytest.mark.slow.
SLOW_TESTS = (
    "tests/games/decoder/test_bots.py::test_heuristic_beats_random_clearly",
    "tests/games/decoder/test_bots.py::test_heuristic_mirror_match_with_items_finishes",
    "tests/games/devils_deal/test_bots.py::test_heuristic_beats_random_clearly",
    "tests/games/rps_poker/test_bots.py::test_heuristic_beats_random_over_300_seeded_matches",
    "tests/games/decoder/test_tank_display.py::"
    "test_after_every_turn_the_owner_alone_sees_their_tanks_used_and_unused",
    "tests/bot/test_kill_restart.py::test_sigkill_at_random_moments_loses_nothing",
    "tests/games/core/test_information.py::test_the_old_token_search_misses_these_leaks",
    "tests/arena/test_arena.py::test_simple_beats_minimal_valid_over_2000_matches",
    "tests/arena/test_arena.py::test_stronger_bots_beat_simple_over_2000_matches",
    # (pure code, but long: 20 to 100 s each at load 8, kept out of the quick pure tier)
    "tests/tournament/test_formats_properties.py::"
    "test_every_event_finishes_with_one_match_per_player_per_round_and_a_consistent_table",
    "tests/tournament/test_formats_properties.py::test_swiss_pairs_everyone_each_round_in_large_events",
    "tests/tournament/test_formats_properties.py::test_round_robin_meets_every_pair_of_places_exactly_once",
    "tests/tournament/test_dutch_reference.py::"
    "test_our_swiss_is_the_dutch_system_but_for_the_documented_house_rules",
    "tests/games/renounce_fate/test_bots.py::test_heuristic_beats_random_clearly_over_200_matches",
    "tests/games/double_or_nothing/test_bots.py::test_planner_beats_random_clearly_over_200_matches",
    "tests/games/test_input_bounds.py::"
    "test_reading_is_linear_in_the_message_length_even_without_the_cap",
)


# The tiers (README, "Tests"): every test is in exactly one, given here by where it lives
# and what its module starts, so a new test file is placed without a list to keep.
# The pure tier is the quick one: `pytest -n 2 -m pure` within a minute on two quiet cores
# (issue 44). A long run of seeded matches keeps its first part there and marks the rest
# slow (the two-world runs in tests/games/*/test_information.py, tests/games/test_feed.py),
# so the whole suite still plays every seed.
#: Pure code: the games' rules and the tournament formats (no service, store or Discord).
PURE = ("tests/games/", "tests/tournament/test_formats_", "tests/tournament/test_seats.py",
        "tests/tournament/test_dutch_reference.py", "tests/tournament/test_render.py")
#: The Discord front end on the fake Discord, and the fake's own tests (the fake itself
#: lives in testbed/fake_discord/).
DISCORD = ("tests/discord/", "tests/fake_discord/")
#: What a module that starts processes of its own (subprocesses, kills, forks, a
#: PostgreSQL server: testbed/pg_server.py, imported as `testbed.pg_server` or
#: `from testbed import pg_server`) imports or calls; its tests are the process tier.
PROCESS_SIGNS = ("import subprocess", "from subprocess", "pg_server", "run_process",
                 "kill_restart", "multiprocessing", "os.fork", "create_subprocess",
                 "failures_importing_alone")
_process_modules: dict[str, bool] = {}


def tier(nodeid: str, source_of: Callable[[], str], slow: bool, postgres: bool = False) -> str:
    """The tier of one test: process, pure, discord or service (the rest: the service, the
    store and the console in this process, and the games' long runs). A slow pure test (a
    conformance run of hundreds of matches) is in the service tier, so that the pure tier
    stays quick; a test on PostgreSQL (`postgres`: it runs a server) is in the process tier."""
    path = nodeid.split("::")[0]
    if postgres:
        return "process"
    if path not in _process_modules:
        source = source_of()
        _process_modules[path] = any(sign in source for sign in PROCESS_SIGNS)
    if _process_modules[path]:
        return "process"
    if path.startswith(PURE):
        return "service" if slow else "pure"
    if path.startswith(DISCORD):
        return "discord"
    return "service"


def may_hold_pure(path: str) -> bool:
    """Whether a test file, or a folder (its path ends in "/"), may hold a pure test: by
    `tier`, a pure test lives under one of the PURE prefixes, so nothing elsewhere can."""
    return path.startswith(PURE) or (path.endswith("/") and any(p.startswith(path)
                                                                for p in PURE))


def pytest_ignore_collect(collection_path, config):  # type: ignore[no-untyped-def]
    """With `-m pure` alone, what cannot hold a pure test is not even imported: importing
    and assertion-rewriting the whole suite (the rest of it deselected) took each worker
    20 s, a third of the pure tier's minute, where no bytecode is cached
    (PYTHONDONTWRITEBYTECODE); the pure files alone take 3 s."""
    if config.getoption("markexpr").strip() != "pure" or collection_path.name == "conftest.py":
        return None
    try:
        path = collection_path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return None
    if path == ".":
        return None
    return None if may_hold_pure(path + "/" if collection_path.is_dir() else path) else True


def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    for item in items:
        if item.nodeid.split("[")[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
        slow = item.get_closest_marker("slow") is not None
        params = getattr(getattr(item, "callspec", None), "params", {})
        postgres = "pg_template" in item.fixturenames or "postgresql" in params.values()
        item.add_marker(getattr(pytest.mark, tier(item.nodeid, item.path.read_text, slow,
                                                  postgres)))
