"""bot/arena/ has no import circle, counting the imports inside functions too: the arena
starts light by importing some modules only when they are needed (lockstep, the bot
processes), and such an import must not be what holds a circle together."""

from __future__ import annotations

from graphlib import CycleError, TopologicalSorter

from tests.support.import_graph import ROOT, modules, runtime_graph

ARENA = ROOT / "bot" / "arena"


def test_the_arena_has_no_import_circle_inside_functions_either() -> None:
    graph = runtime_graph(modules(ARENA))
    assert "bot.arena.lockstep" in graph["bot.arena.tournament"]  # inside a function
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        raise AssertionError(f"import circle in bot/arena/: {' -> '.join(exc.args[1])}") from exc
