"""Any arena bot as a seat in a regular match (`umpire play rps-poker`, Discord).

Built-in arena bots are already registered by the game as `arena:<name>` (pure Python,
games/rps_poker/bots.py). For a bot file (Python or JavaScript), `seat_factory(path)`
returns a contract `BotFactory` built on the same `ArenaSeat` adapter: each decision starts
the bot fresh and replays what the seat has seen, so a JavaScript bot's Node.js process is
started for the decision and stopped after it.
"""

from __future__ import annotations

from typing import Any

from bot.arena.loader import resolve
from games.core import BotFactory
from games.rps_poker.bots import ArenaSeat


class _FreshJs:
    """A JS bot object that lives for one decision (closed when the replay is done)."""

    def __init__(self, path: str, limit: float) -> None:
        from bot.arena.jsbot import JsBot

        self.bot = JsBot(path, limit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)


def seat_factory(arg: str, limit: float = 1.0) -> BotFactory:
    """A BotFactory for the arena bot `arg` (a built-in name, .py or .js file)."""
    spec = resolve(arg, limit)
    name = f"arena:{spec.name}"
    if spec.kind != "js":
        contestant = spec.load(limit)
        return lambda: ArenaSeat(name, contestant.for_match)

    class JsSeat(ArenaSeat):
        def choose(self, view, prompt, rng):
            holder: list[Any] = []

            def make() -> Any:
                holder.append(_FreshJs(spec.arg, limit))
                return holder[-1]

            self.make_player = make
            try:
                return super().choose(view, prompt, rng)
            finally:
                for h in holder:
                    h.bot.close()

    return lambda: JsSeat(name, lambda: None)
