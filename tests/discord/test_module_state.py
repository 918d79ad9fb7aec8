"""No module under bot/discord/ keeps mutable state at module level: what one bot keeps
(locks, tasks, indexes, starts under way) lives on that bot's objects, so two bots in one
process (a test's restart, a shard's rehearsal) never share it, and a cog module could be
loaded twice without splitting its state.

A module-level container is state if it is named as a variable (lower case) or if any code
in bot/ changes it; an upper-case table that nothing changes is a constant."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "bot" / "discord"
CONTAINERS = {"dict", "list", "set", "defaultdict", "deque", "OrderedDict", "Counter",
              "WeakValueDictionary", "WeakKeyDictionary", "WeakSet", "bytearray"}
CHANGES = {"append", "add", "update", "pop", "popitem", "setdefault", "clear", "remove",
           "discard", "extend", "insert", "difference_update", "intersection_update",
           "symmetric_difference_update", "appendleft", "popleft", "sort", "reverse"}


def is_container(value: ast.expr) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp |
                  ast.SetComp):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        return name in CONTAINERS
    return False


def module_containers(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound to a mutable container: name -> line."""
    found: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and is_container(node.value):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None and \
                is_container(node.value):
            targets = [node.target]
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id != "__all__":
                found[target.id] = node.lineno
    return found


def changed_names(tree: ast.AST) -> set[str]:
    """Names (or attributes: `module.NAME`) whose value some code changes in place, and
    names declared `global` (rebound from a function)."""
    def named(node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return node.attr
        return None

    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            out.update(node.names)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and (name := named(target.value)):
                    out.add(name)
                elif isinstance(node, ast.AugAssign) and (name := named(target)):
                    out.add(name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in CHANGES and (name := named(node.func.value)):
            out.add(name)
    return out


def module_state(sources: dict[str, str], everywhere: set[str]) -> list[str]:
    """'file:line NAME' for each module-level container that is state."""
    found = []
    for path, source in sources.items():
        for name, line in module_containers(ast.parse(source)).items():
            if not name.isupper() or name in everywhere:
                found.append(f"{path}:{line} {name}")
    return found


def test_no_module_in_the_discord_layer_keeps_mutable_state() -> None:
    sources = {str(p.relative_to(ROOT)): p.read_text() for p in sorted(LAYER.rglob("*.py"))}
    everywhere: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        everywhere |= changed_names(ast.parse(path.read_text()))
    assert module_state(sources, everywhere) == []


@pytest.mark.parametrize("source, state", [
    ("_locks: dict[int, int] = {}\n", ["m.py:1 _locks"]),
    ("_tasks = set()\n", ["m.py:1 _tasks"]),
    ("TABLE = {'a': 1}\ndef f():\n    TABLE['b'] = 2\n", ["m.py:1 TABLE"]),
    ("SEEN = []\ndef f(x):\n    SEEN.append(x)\n", ["m.py:1 SEEN"]),
    ("TABLE = {'a': 1}\ndef f():\n    return TABLE['a']\n", []),
    ("ENDED = ('finished', 'aborted')\n", []),
])
def test_the_check_finds_variables_and_changed_tables(source: str, state: list[str]) -> None:
    assert module_state({"m.py": source}, changed_names(ast.parse(source))) == state
