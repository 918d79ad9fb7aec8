"""No import circle in games/ or bot/, counting every import that runs: at module level and
inside functions alike (only those under `if TYPE_CHECKING:` are left out). An import moved
into a function still ties the two modules together; it only hides the circle from the
start-up order (tests/bot/test_import_graph.py checks that order).

The circles that remain are listed by name below, each with its reason: the test fails on
any other, and on a listed one that is gone (the list only shrinks).
"""

from __future__ import annotations

from functools import cache

from tests.support.import_graph import ROOT, circles, modules, runtime_graph

#: The discord transport closes a match's channels itself (locking them, offering the
#: rematch, archiving: it imports channels, friendly and channel_lifecycle inside
#: functions), and the keeper reads the transport's audience keys. These circles go when the end of a
#: match's channels becomes a service of its own that listens for a match's end (issue 44,
#: the transport split). Each is spelled from its alphabetically first module, in import
#: order.
TRANSPORT_CLOSES_CHANNELS: frozenset[tuple[str, ...]] = frozenset({
    ("bot.discord.channel_lifecycle", "bot.discord.channels", "bot.discord.keeper",
     "bot.discord.transport"),
    ("bot.discord.channel_lifecycle", "bot.discord.client", "bot.discord.keeper",
     "bot.discord.transport"),
    ("bot.discord.channel_lifecycle", "bot.discord.client", "bot.discord.transport"),
    ("bot.discord.channel_lifecycle", "bot.discord.keeper", "bot.discord.transport"),
    ("bot.discord.channels", "bot.discord.keeper", "bot.discord.transport"),
    ("bot.discord.channels", "bot.discord.keeper", "bot.discord.transport",
     "bot.discord.feed", "bot.discord.launch"),
    ("bot.discord.channels", "bot.discord.keeper", "bot.discord.transport",
     "bot.discord.friendly"),
    ("bot.discord.channels", "bot.discord.keeper", "bot.discord.transport",
     "bot.discord.friendly", "bot.discord.launch"),
})

KNOWN_CIRCLES = TRANSPORT_CLOSES_CHANNELS


@cache
def import_graph() -> dict[str, set[str]]:
    return runtime_graph({**modules(ROOT / "games"), **modules(ROOT / "bot")})


def _spelled(found: set[tuple[str, ...]]) -> str:
    return "\n".join(" -> ".join((*c, c[0])) for c in sorted(found))


def test_the_graph_counts_imports_inside_functions() -> None:
    graph = import_graph()
    assert len(graph) > 250
    assert "games.core.contract" in graph["games.renounce_fate.checks"]
    assert "bot.arena.lockstep" in graph["bot.arena.tournament"]  # (inside a function)
    assert "bot.store.problems" in graph["bot.health"]  # (inside a function)


def test_no_import_circle_but_the_known_ones() -> None:
    new = circles(import_graph()) - KNOWN_CIRCLES
    assert not new, f"import circles in games/ or bot/:\n{_spelled(new)}"


def test_the_known_circles_are_still_there() -> None:
    """A known circle that was broken leaves the list."""
    gone = KNOWN_CIRCLES - circles(import_graph())
    assert not gone, f"no longer circles: remove them from the list:\n{_spelled(gone)}"


def test_a_circle_is_found() -> None:
    """The check itself: the health checks importing the command line again (an import
    inside a function) is a circle, and so is a module-level pair."""
    graph = dict(import_graph())
    graph["bot.health"] = {*graph["bot.health"], "bot.cli"}
    found = circles(graph) - KNOWN_CIRCLES
    assert ("bot.cli", "bot.health") in found
    assert circles({"a": {"b"}, "b": {"a", "c"}, "c": {"a"}}) == {("a", "b"), ("a", "b", "c")}
