"""The test tiers (README, "Tests"; tests/conftest.py): each test is placed by where it lives
and what its module starts, so the quick pure tier never holds a process or a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import _process_modules, may_hold_pure, tier


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


def test_the_pure_run_skips_only_what_cannot_hold_a_pure_test() -> None:
    """`-m pure` does not import a file or folder that `may_hold_pure` rules out
    (conftest.py): every file of the suite with a test `tier` calls pure, and every folder
    above it, may hold one; the runtime's folders may not."""
    root = Path(__file__).resolve().parents[1]
    pure = 0
    for file in sorted((root / "tests").rglob("test_*.py")):
        path = file.relative_to(root).as_posix()
        if tier(f"{path}::test_x", file.read_text, slow=False) != "pure":
            continue
        pure += 1
        assert may_hold_pure(path), path
        for folder in file.relative_to(root).parents[:-1]:
            assert may_hold_pure(folder.as_posix() + "/"), (path, folder)
    assert pure > 50
    for other in ("tests/bot/", "tests/discord/", "tests/test_tiers.py",
                  "tests/tournament/test_event.py", "tests/fake_discord/"):
        assert not may_hold_pure(other), other
