"""The import graph of bot/: every module imports on its own in a fresh interpreter, and
the imports that run when a module loads (module top level, not `if TYPE_CHECKING:`)
make no circle. Imports inside functions are left out: they run later, once both modules
have loaded, and break no start-up order.

The service's pieces (bot/service/) never import bot.umpire, whose facade imports them.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.support.import_graph import (
    ROOT,
    failures_importing_alone,
    import_targets,
)
from tests.support.import_graph import modules as tree_modules

BOT = ROOT / "bot"


def modules() -> dict[str, Path]:
    return tree_modules(BOT)

#: Circles among module-level imports that exist outside this test's reach, each named
#: (module -> module ... back to the first); the test fails if one disappears, so that
#: the list only ever shrinks.
KNOWN_CIRCLES: list[tuple[str, ...]] = []

def _top_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports that run when the module loads: at module level, including inside
    module-level `if`/`try`/`with` blocks, but never under `if TYPE_CHECKING:` (those run
    only for the type checker) nor inside functions or classes' methods."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(node)
            elif isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody,
                              *(h.body for h in node.handlers)):
                    visit(block)
            elif isinstance(node, ast.With | ast.ClassDef):
                visit(node.body)

    visit(tree.body)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the bot modules it imports at load time (`from pkg import sub` is an edge
    to the submodule `pkg.sub`, not to the package). Importing `a.b.c` also runs the
    packages `a.b` and `a`: an edge to each package on the way."""
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        edges: set[str] = set()
        for node in _top_level_imports(ast.parse(path.read_text(), str(path))):
            targets = import_targets(node, name, path, known)
            for target in targets:
                parts = target.split(".")
                edges.update(".".join(parts[:i]) for i in range(1, len(parts) + 1)
                             if ".".join(parts[:i]) in known)
        # (a module's own packages run before it: no edge back to them)
        parts = name.split(".")
        edges -= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Every circle left once the known ones are cut (each as found by the sorter)."""
    graph = {name: set(edges) for name, edges in graph.items()}
    for circle in KNOWN_CIRCLES:
        graph[circle[0]].discard(circle[1])
    try:
        list(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        return [tuple(exc.args[1])]
    return []


def test_the_graph_has_every_module_and_its_edges() -> None:
    graph = import_graph()
    assert len(graph) > 60
    assert "bot.service.clocks" in graph["bot.umpire"]
    assert "bot.service" in graph["bot.umpire"]  # (the package runs first)
    assert "bot.live" in graph["bot.service.commands"]
    assert "bot.status" in graph["bot.live"]


def test_bot_has_no_import_circle() -> None:
    found = circles(import_graph())
    assert not found, f"import circle in bot/: {' -> '.join(found[0])}"


def test_the_known_circles_are_still_there() -> None:
    """A known circle that was broken leaves the list (it only shrinks)."""
    graph = import_graph()
    for circle in KNOWN_CIRCLES:
        assert circle[1] in graph[circle[0]], f"{circle} is gone: remove it from the list"


def test_a_circle_is_found() -> None:
    """The check itself: a piece of the service that imports the facade is refused."""
    graph = import_graph()
    graph["bot.service.clocks"] = {*graph["bot.service.clocks"], "bot.umpire"}
    assert circles(graph), "the circle bot.umpire -> bot.service.clocks -> bot.umpire"


def test_no_service_piece_imports_the_facade() -> None:
    graph = import_graph()
    pieces = [name for name in graph if name.startswith("bot.service")]
    assert len(pieces) >= 8
    assert not [name for name in pieces if "bot.umpire" in graph[name]]


def test_every_bot_module_imports_alone_in_a_fresh_interpreter() -> None:
    failed = failures_importing_alone(sorted(modules()), ["pydantic", "sqlalchemy"])
    assert not failed, "\n".join(f"{name}:\n{error}" for name, error in failed.items())


def test_the_service_facade_stays_small() -> None:
    """Issue 32: the work of the match service is in its pieces (bot/service/)."""
    assert len((BOT / "umpire.py").read_text().splitlines()) < 400
