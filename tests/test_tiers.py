"""The test tiers (README, "Tests"; tests/conftest.py): each test is placed by where it lives
and what its module starts, so the quick pure tier never holds a process or a server."""

from __future__ import annotations

import pytest

from tests.conftest import _process_modules, tier


@pytest.fixture(autouse=True)
def _fresh() -> None:
    _process_modules.clear()


@pytest.mark.parametrize("nodeid, source, slow, postgres, expected", [
    ("tests/games/decoder/test_rules.py::test_x", "import random\n", False, False, "pure"),
    ("tests/tournament/test_formats_rules.py::test_x", "", False, False, "pure"),
    ("tests/games/decoder/test_conformance.py::test_x", "", True, False, "service"),
    ("tests/discord/test_host.py::test_x", "from tests.discord.conftest import World\n",
     False, False, "discord"),
    ("tests/bot/test_store.py::test_x", "", False, False, "service"),
    ("tests/bot/test_store.py::test_x[postgresql]", "", False, True, "process"),
    ("tests/bot/test_kill.py::test_x", "import subprocess\n", False, False, "process"),
    ("tests/games/test_imports.py::test_x", "import subprocess\n", False, False, "process"),
    ("tests/discord/test_run.py::test_x", "from tests.support.run_process import run\n",
     False, False, "process"),
])
def test_each_test_lands_in_one_tier(nodeid: str, source: str, slow: bool, postgres: bool,
                                     expected: str) -> None:
    assert tier(nodeid, lambda: source, slow, postgres) == expected
