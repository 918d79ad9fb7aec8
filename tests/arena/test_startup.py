"""`umpire arena` starts without the game engines: the arena needs only the rules, the card
codes and the players of RPS Poker, and importing the engines (pydantic, games.core) was
two thirds of its start-up."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("games.rps_poker.engine", "games.core", "games.registry", "pydantic")


@pytest.mark.parametrize("cython", ["installed", "absent"])
def test_the_arena_command_imports_no_game_engine(cython: str) -> None:
    # Without Cython (an install that did not bring it), the pure-Python-mode modules take
    # its stand-in, games/cython_shim.py, which must not pull in games.core either.
    code = ("import sys; " + ("sys.modules['cython'] = None; " if cython == "absent" else "") +
            "from bot.cli import _main; import bot.arena.cli, bot.arena.check, "
            "bot.arena.replay; "
            "sys.exit(_main(['arena', 'simple', 'minimal-valid', '--rounds', '2', '--seed', '1', "
            "'--jobs', '1', '--no-progress']) or "
            f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r}))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "simple" in out
    assert out.rstrip().endswith("[]"), out


def test_the_game_is_still_found_and_made_once() -> None:
    import games.rps_poker as package
    from games.registry import get_game
    from games.rps_poker import engine

    # One instance, made under the import lock (threads asking at once get the same one).
    assert get_game("rps-poker") is package.GAME is package.GAME is engine.GAME
    assert isinstance(package.GAME, package.RpsPoker)
