"""The tests' own layout: a helper two test modules share lives in tests/support/ or in a
conftest.py, never in a test module that another one imports (importing a test module ties
one file's tests to another file's internals, and pytest collects the imported tests and
fixtures a second time in the importer)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def imported(source: str, module: str) -> list[tuple[int, str]]:
    """(line, dotted name) for every import in `source`, the code of `module`, with relative
    imports resolved; `from a import b` yields both `a` and `a.b` (b may be a module)."""
    package = module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            name = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.append((node.lineno, name))
            found += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]
    return found


def reaches_a_test_module(name: str) -> bool:
    first, *rest = name.split(".")
    return first == "tests" and any(part.startswith("test_") for part in rest)


def test_no_module_under_tests_imports_a_test_module() -> None:
    found: dict[str, str] = {}  # "file:line" -> the first test module it reaches
    for path in sorted(TESTS.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for line, name in imported(path.read_text(encoding="utf-8"), module):
            if reaches_a_test_module(name):
                found.setdefault(f"{path.relative_to(ROOT)}:{line}", name)
    assert not found, ("move these helpers out of the test modules, into tests/support/ "
                       f"or a conftest.py: {found}")


@pytest.mark.parametrize(("source", "into_a_test_module"), [
    ("from tests.discord.test_restart import play_prompt", True),
    ("from .test_restart import play_prompt", True),
    ("from . import test_restart", True),
    ("from .. import bot as b, test_config", True),
    ("import tests.bot.test_resume", True),
    ("from tests.discord.conftest import World", False),
    ("from tests.support.transport import RecordingTransport", False),
    ("from .conftest import umpire", False),
    ("from bot.store import test_data", False),
])
def test_the_check_reads_absolute_and_relative_imports(source: str,
                                                       into_a_test_module: bool) -> None:
    names = [name for _, name in imported(source, "tests.discord.test_sample")]
    assert any(map(reaches_a_test_module, names)) is into_a_test_module, names
