"""The arena's two failures of a bot call, in a module of their own so that they are the
same classes whichever core plays the match (the compiled `bot.arena._match_c` imports
them from here, as the pure `bot.arena.match` does; other modules `except` them), with
the failures of bot files' processes, which `umpire arena` catches without importing the
modules that run those processes."""

from __future__ import annotations


class Disqualified(Exception):
    """A bot broke the controller's rules; `side` (0/1) is the culprit, args[0] the reason."""

    def __init__(self, side: int, reason: str) -> None:
        super().__init__(reason)
        self.side = side
        self.reason = reason


class CallTimeout(Exception):
    """Raised into a bot call that ran past the limit (by the watchdog, or a JS bot's pipe)."""


class BotProcessError(Exception):
    """The bot failed (raised, threw, could not load, or its process ended)."""

    def __init__(self, reason: str, traceback: str = "") -> None:
        super().__init__(reason)
        self.arena_reason = reason
        self.traceback = traceback  # the bot's frames, when its code raised (or threw)


class NodeMissing(RuntimeError):
    """A JavaScript bot was asked for and Node.js is not installed."""
