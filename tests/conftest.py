"""Shared fixtures: the toy game is registered for runtime tests."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator

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
)


def pytest_collection_modifyitems(config, items) -> None:  # type: ignore[no-untyped-def]
    for item in items:
        if item.nodeid.split("[")[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
