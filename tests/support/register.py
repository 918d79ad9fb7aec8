"""Make the toy games visible to the registry for runtime tests (tests/support/toy_game)."""

from games.registry import all_games
from tests.support.toy_game import DUEL, DUEL_KIT


def register_duel() -> None:
    """Register Duel (the runtime tests' game) and Duel Kit (the same rules with every
    declaration a shipped game makes)."""
    all_games()[DUEL.slug] = DUEL
    all_games()[DUEL_KIT.slug] = DUEL_KIT
