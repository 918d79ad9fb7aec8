"""The tests' own layout: a helper two test modules share lives in tests/support/ or in a
conftest.py, never in a test module that another one imports (importing a test module ties
one file's tests to another file's internals, and pytest collects the imported tests and
fixtures a second time in the importer)."""

from __future__ import annotations

import ast
import fnmatch
import tomllib
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


BENCH = ROOT / "bench"


def imports_of_tests(source: str, module: str) -> list[str]:
    """'line: name' for every import of the `tests` package (or a module in it) in `source`,
    at any depth (a function's own import too)."""
    return [f"{line}: {name}" for line, name in imported(source, module)
            if name.split(".")[0] == "tests"]


def test_no_bench_module_imports_the_tests() -> None:
    """A bench runs without the test suite: what both use lives in testbed/ (the fake Discord,
    the throwaway PostgreSQL server), which each may import."""
    found = {}
    for path in sorted(BENCH.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if names := imports_of_tests(path.read_text(encoding="utf-8"), module):
            found[str(path.relative_to(ROOT))] = names
    assert not found, f"move what these share with the tests into testbed/: {found}"


def test_the_bench_check_sees_every_kind_of_import() -> None:
    source = ("import json\nfrom testbed.pg_server import postgres_server\n"
              "def f():\n    from tests.bot.pg_server import postgres_server\n"
              "import tests.support.fake_world\nfrom tests import support\n"
              )
    assert sorted(imports_of_tests(source, "bench.sample")) == [
        "4: tests.bot.pg_server", "4: tests.bot.pg_server.postgres_server",
        "5: tests.support.fake_world", "6: tests", "6: tests.support"]


def test_the_wheel_ships_neither_the_test_bed_nor_the_tests_nor_the_benches() -> None:
    """pyproject's package discovery names what the wheel holds; testbed/ is for running from
    the repository (the tests, `python -m bench.discord`), as tests/ and bench/ are."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    find = pyproject["tool"]["setuptools"]["packages"]["find"]
    include, exclude = find.get("include", ["*"]), find.get("exclude", [])
    shipped = [name for name in ("testbed", "testbed.fake_discord", "testbed.fake_discord.spec",
                                 "tests", "tests.support", "bench")
               if any(fnmatch.fnmatchcase(name, p) for p in include)
               and not any(fnmatch.fnmatchcase(name, p) for p in exclude)]
    assert not shipped, f"the wheel would ship {shipped}"
    assert any(fnmatch.fnmatchcase("bot.discord", p) for p in include)
