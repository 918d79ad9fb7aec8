"""The import graph of games/: every module imports on its own, and no import circle.

A circle (engine -> grammar -> engine) works only as long as the imports stay inside
functions or the modules load in one order; ruff's PLC0415 keeps imports at module top in
games/, and these tests keep the graph that leaves acyclic.
"""

from __future__ import annotations

from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.support.import_graph import (
    ROOT,
    failures_importing_alone,
    runtime_graph,
)
from tests.support.import_graph import modules as tree_modules

GAMES = ROOT / "games"


def modules() -> dict[str, Path]:
    return tree_modules(GAMES)

def import_graph() -> dict[str, set[str]]:
    return runtime_graph(modules())


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
    failed = failures_importing_alone(sorted(modules()), ["pydantic"])
    assert not failed, "\n".join(f"{name}:\n{error}" for name, error in failed.items())
