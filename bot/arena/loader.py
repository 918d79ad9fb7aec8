"""Finding arena bots: built-in names, Python files and JavaScript files.

A bot argument is one of:
- a built-in name: `minimal-valid`, `simple`, `basic-odds`, `saver` (games/rps_poker/players.py);
- a Python file `path/bot.py` (optionally `path/bot.py:Name` to pick a class or object in it);
  the file holds a class with the four methods (a new instance plays each match), an object
  `bot`/`BOT` with them, or the four functions at module level;
- a JavaScript file `path/bot.js` in the seed's object format (run under Node.js).
Objects and modules (and JavaScript bots) are one object for the whole tournament in each
worker process, like the seed's controller: a bot that keeps state must reset it itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

from bot.arena.builtins import BUILTINS
from bot.arena.names import plain
from bot.arena.pyload import BotLoadError, _python_target
from games.rps_poker.players import PLAYERS

__all__ = ["BotLoadError", "BotSpec", "Contestant", "_python_target", "resolve", "resolve_all"]


def _norm(name: str) -> str:
    """A built-in name as typed, with or without the `arena:` prefix, in one spelling."""
    return re.sub(r"[-_ ]", "", plain(name))


BUILTIN = {_norm(k): k for k in PLAYERS}


@dataclass(frozen=True)
class BotSpec:
    """A bot argument resolved enough to show its name; `load()` builds it in a worker."""

    arg: str
    name: str
    kind: str  # "builtin", "python" or "js"
    show_output: bool = False  # a bot file's own output goes to our standard error

    def load(self, limit: float, wait: bool = True) -> Contestant:
        """The bot, ready to play; a bot file's process is started, and with `wait` False
        not yet waited for (`target.loaded()`: several processes start at the same time)."""
        if self.kind == "builtin":
            return Contestant(self.name, BUILTINS[BUILTIN[_norm(self.arg)]], fresh=True)
        if self.kind == "python":
            from bot.arena.process import PyBot

            bot = PyBot(self.arg, limit, self.show_output, wait=wait)
            return Contestant(self.name, bot, fresh=False, for_match=bot.new_match)
        from bot.arena.jsbot import JsBot

        # a fresh object per match (new_match)
        js = JsBot(self.arg, limit, self.show_output, wait=wait)
        return Contestant(self.name, js, fresh=False, for_match=js.new_match)


class Contestant:
    """One bot inside a worker: `for_match()` gives the object that plays the next match.

    `for_match` is the class itself (a fresh instance) or a C-level callable returning the
    one object, so the match loop pays no Python call for it (or the given `for_match`: a
    bot in its own process starts a match with a message); `sync` says whether the object
    wants `arena_sync()` at the end of each match (bots in their own process).
    """

    def __init__(self, name: str, target: Any, fresh: bool,
                 for_match: Callable[[], Any] | None = None) -> None:
        self.name = name
        self.target = target
        self.fresh = fresh
        self.for_match: Callable[[], Any] = for_match or (
            target if fresh else repeat(target).__next__)
        self.sync = callable(getattr(target, "arena_sync", None))

    def close(self) -> None:
        close = getattr(self.target, "close", None)
        if not self.fresh and callable(close) and hasattr(self.target, "arena_sync"):
            close()


def resolve(arg: str, limit: float = 1.0, show_output: bool = False) -> BotSpec:
    """Check a bot argument now (load a bot file once in its own process) and return its
    spec. A bot file's code never runs in this process."""
    if _norm(arg) in BUILTIN and not Path(arg).exists():
        return BotSpec(arg, BUILTIN[_norm(arg)], "builtin")
    path = Path(arg.partition(".py:")[0] + (".py" if ".py:" in arg else ""))
    if not path.exists():
        known = ", ".join(PLAYERS)
        raise BotLoadError(f"{arg!r} is neither a built-in bot ({known}) nor an existing file")
    if path.suffix not in (".js", ".py"):
        raise BotLoadError(f"{arg}: a bot file must end in .py or .js")
    from bot.arena.process import BotProcessError, PipeBot, PyBot

    if path.suffix == ".js":
        from bot.arena.jsbot import JsBot

        maker: type[PipeBot] = JsBot
        where = str(path)
    else:
        maker, where = PyBot, arg
    try:
        bot = maker(where, limit)
    except BotProcessError as exc:
        raise BotLoadError(str(exc)) from None
    try:
        return BotSpec(where, str(bot.name), "js" if maker is not PyBot else "python",
                       show_output)
    finally:
        bot.close()


def resolve_all(args: list[str], limit: float = 1.0, show_output: bool = False) -> list[BotSpec]:
    """Resolve every argument; repeated names get " #2", " #3"."""
    specs = [resolve(a, limit, show_output) for a in args]
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s.name] = seen.get(s.name, 0) + 1
        name = s.name if seen[s.name] == 1 else f"{s.name} #{seen[s.name]}"
        out.append(BotSpec(s.arg, name, s.kind, s.show_output))
    return out
