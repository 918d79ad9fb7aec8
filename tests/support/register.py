"""Make the toy game visible to the registry for runtime tests."""

from games.registry import all_games
from tests.support.toy_game import DUEL


def register_duel() -> None:
    all_games()["duel"] = DUEL
