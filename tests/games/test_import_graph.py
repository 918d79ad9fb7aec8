"""The import graph of games/: every module imports on its own, and no import circle.

A circle (engine -> grammar -> engine) works only as long as the imports stay inside
functions or the modules load in one order; ruff's PLC0415 keeps imports at module top in
games/, and these tests keep the graph that leaves acyclic.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "games"

# Runs in a fresh interpreter: for each module, a forked child that has imported no games
# module yet imports that one alone; prints the failures as JSON.
_IMPORT_EACH = """
import json, os, sys, traceback
import pydantic  # shared by every child: imported once, before the fork
failed = {}
for name in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            __import__(name)
            code = 0
        except BaseException:
            os.write(write, traceback.format_exc().encode())
            code = 1
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        error = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failed[name] = error or f"exit status {status}"
print(json.dumps(failed))
"""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(GAMES.rglob("*.py"))}


def _runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import that runs when the module loads: module level and inside functions,
    never under `if TYPE_CHECKING:` (those run only for the type checker)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for alt in child.orelse:
                    visit(alt)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the games modules it imports (`from pkg import sub` is an edge to the
    submodule `pkg.sub`, not to the package)."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _runtime_imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name in known)
                continue
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1],
                                 *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    edges.add(sub)
                elif base in known:
                    edges.add(base)
        edges.discard(name)
        graph[name] = edges
    return graph


def test_the_graph_has_every_module_and_its_edges() -> None:
    graph = import_graph()
    assert len(graph) > 60
    assert "games.core.contract" in graph["games.renounce_fate.checks"]
    assert "games.renounce_fate.flow" in graph["games.renounce_fate.engine"]


def test_games_has_no_import_circle() -> None:
    try:
        order = list(TopologicalSorter(import_graph()).static_order())
    except CycleError as exc:
        raise AssertionError(f"import circle in games/: {' -> '.join(exc.args[1])}") from exc
    assert order


def test_a_circle_is_found() -> None:
    """The check itself: a graph with a circle is refused."""
    graph = import_graph()
    graph["games.renounce_fate.flow"] = {*graph["games.renounce_fate.flow"],
                                         "games.renounce_fate.engine"}
    try:
        list(TopologicalSorter(graph).static_order())
    except CycleError:
        return
    raise AssertionError("the circle flow -> engine -> flow was not found")


def test_every_games_module_imports_alone_in_a_fresh_interpreter() -> None:
    names = sorted(modules())
    done = subprocess.run([sys.executable, "-c", _IMPORT_EACH, json.dumps(names)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    failed = json.loads(done.stdout.strip().splitlines()[-1])
    assert not failed, "\n".join(f"{name}:\n{error}" for name, error in failed.items())
