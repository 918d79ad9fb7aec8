"""The built-in bots as the arena plays them: the classes of the compiled twin of
games/rps_poker/players.py when it was built from that file as it is (`bot.arena.core`),
else players.py's own. Same names, same code, same results."""

from __future__ import annotations

from bot.arena.core import compiled
from bot.arena.pyload import COMPILED_SOURCES
from games.rps_poker import players
from games.rps_poker.players import PLAYERS

_twin = compiled("games.rps_poker._players_c", players.__file__)
BUILTINS: dict[str, type] = PLAYERS if _twin is None else {
    name: getattr(_twin, cls.__name__) for name, cls in PLAYERS.items()}
if _twin is not None:  # `_notice` reads a compiled method's emptiness in its source
    COMPILED_SOURCES.update((getattr(_twin, cls.__name__), cls)
                            for cls in vars(players).values()
                            if isinstance(cls, type) and cls.__module__ == players.__name__)

# The classes whose bots only read the lists of cards they are given, and only during the
# call (players.py's built-ins, as they are written: none keeps or changes its `cards`; a
# test holds them to it). The match loop gives them its own lists rather than copies. Only
# these classes exactly: a subclass may do anything with its lists.
BORROWERS: frozenset[type] = frozenset({*PLAYERS.values(), *BUILTINS.values()})
