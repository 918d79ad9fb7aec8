"""Tests drive the match service through one door (issue 44): tests/support/driver.py.

A test that reaches into the service's parts (`service.delivery.drain()`,
`up.service.repo.engine`) ties itself to how the service is put together inside; one that
reads a private attribute (`service.delivery._idle`) to what the part does not even promise.
This scan of tests/ with `ast` fails on

(a) a private attribute (`._name`, not a dunder) read anywhere down a chain that starts at a
    service (a name `service`, `..._service` or `services[i]`, or a name bound to a service's
    part), outside the driver;
(b) a chain `service.<part>.<attr>` (or `<alias>.<attr>`, where `alias = service.<part>`)
    outside the driver and the component unit-test files of `ALLOWED` below: the test of a
    part may use that part, through the service that holds it.

A name that holds a service but is not called so (`again = MatchService(...)`) is not seen:
the scan reads names, not types.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
DRIVER = TESTS / "support" / "driver.py"

#: Component unit-test files, and the parts of the service each may reach through it: each
#: tests that part itself (the test of X may use X).
ALLOWED: dict[str, frozenset[str]] = {
    # a stand-in Service object of the test's own, whose `delivery` is a stub: Stopper's
    # unit test (bot/discord/stopper.py), not the match service
    "tests/discord/test_stopper.py": frozenset({"delivery"}),
    # the store's fence (bot/store/fence.py): stamps and commits on the service's repository
    "tests/bot/test_fence.py": frozenset({"repo"}),
    # shard leases and takeover (bot/shards.py): a match started past the fence, then made
    # the dead process's by taking it out of this one's memory
    "tests/bot/test_shards.py": frozenset({"repo", "matches"}),
}

SERVICE_NAME = re.compile(r"(^|_)services?$")


@dataclass(frozen=True)
class Reach:
    line: int
    kind: str  # "private" or "chain"
    text: str
    part: str | None = None  # a chain's part of the service


def _is_service(node: ast.expr) -> bool:
    """`service`, `up.service`, `self.rig_service`, `services[0]`."""
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return bool(SERVICE_NAME.search(node.id))
    if isinstance(node, ast.Attribute):
        return bool(SERVICE_NAME.search(node.attr))
    return False


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Names bound to a service's part anywhere in the module (`delivery = up.service.delivery`):
    name -> part."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if isinstance(value, ast.Attribute) and _is_service(value.value):
                for target in targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = value.attr
    return found


def _from_service(node: ast.expr, aliases: dict[str, str]) -> bool:
    """Whether the chain `node` (attributes, subscripts, calls) starts at or passes a service
    or one of its aliased parts."""
    while True:
        if _is_service(node) or (isinstance(node, ast.Name) and node.id in aliases):
            return True
        if isinstance(node, ast.Attribute | ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return False


def reaches(source: str, allowed: frozenset[str] = frozenset()) -> list[Reach]:
    """Every reach into a service's inside in `source`, but chains through `allowed` parts."""
    tree = ast.parse(source)
    aliases = _aliases(tree)
    found: list[Reach] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if name.startswith("_") and not name.endswith("__") and _from_service(node.value,
                                                                               aliases):
            found.append(Reach(node.lineno, "private", ast.unparse(node)))
            continue
        inner = node.value
        part = None
        if isinstance(inner, ast.Attribute) and _is_service(inner.value):
            part = inner.attr
        elif isinstance(inner, ast.Name) and inner.id in aliases:
            part = aliases[inner.id]
        if part is not None and part not in allowed:
            found.append(Reach(node.lineno, "chain", ast.unparse(node), part))
    return found


def test_no_test_reaches_past_the_driver() -> None:
    found: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if path == DRIVER:
            continue
        name = path.relative_to(ROOT).as_posix()
        hits = reaches(path.read_text(encoding="utf-8"), ALLOWED.get(name, frozenset()))
        if hits:
            found[name] = [f"{r.line}: {r.kind} {r.text}" for r in hits]
    assert not found, ("drive the service through tests/support/driver.py (add what is missing "
                       f"there, or a public read on the part): {found}")


def test_every_allowed_file_exists_and_still_needs_its_allowance() -> None:
    """An allowance nobody uses any more goes (the list stays an honest one)."""
    for name, parts in ALLOWED.items():
        path = ROOT / name
        assert path.is_file(), name
        unallowed = reaches(path.read_text(encoding="utf-8"))
        used = {r.part for r in unallowed if r.kind == "chain"}
        assert parts <= used, f"{name}: {sorted(parts - used)} allowed but not reached"


@pytest.mark.parametrize(("source", "kind"), [
    ("await service.delivery.drain()", "chain"),
    ("x = up.service.repo.engine", "chain"),
    ("[m] = self.service.matches.values()", "chain"),
    ("services[0].repo.fence = None", "chain"),
    ("d = up.service.delivery\nprint(d.failures)", "chain"),
    ("up.service.delivery._idle.is_set()", "private"),
    ("service._store", "private"),
    ("drive(up).service._heartbeat", "private"),
    ("d = up.service.delivery\nd._queues", "private"),
    ("assert not service.scheduler._due", "private"),
])
def test_the_scan_finds_a_planted_reach(source: str, kind: str) -> None:
    assert [r.kind for r in reaches(source)] == [kind], source


@pytest.mark.parametrize("source", [
    "await drive(service).drain()",
    "[m] = drive(up.service).matches()",
    "await up.service.submit(1, 'a', 'pick 4')",
    "up.service.delivery_grace = 0.3",
    "assert len(service.matches) <= service.keep_ended",
    "match.clocks.values()",
    "event.matches.items()",
    "scheduler._heap",
    "service.__class__",
])
def test_the_scan_lets_the_door_and_the_service_itself_be(source: str) -> None:
    assert reaches(source) == [], source


def test_an_allowance_covers_only_its_parts() -> None:
    source = "service.repo.fence = None\nservice.delivery.wake()"
    assert [r.text for r in reaches(source, frozenset({"repo"}))] == ["service.delivery.wake"]
