"""Every call of a match, logged: what `--check` and `--replay` show a bot's author.

`Logged` stands in for one bot in `match.play_match` and records each of its calls (the
arguments, what it returned or raised, how long it took, what it printed). A bot file runs
in its own process, which reports a notification's failure with its next answer; a logged
one is asked after every notification instead (`arena_sync`), so a failure is logged at
the call that made it. Its standard output can be captured (`PipeBot(capture_output=True)`)
and what a call printed is then logged with it (`--check` warns of it): the arena never
takes output for an answer, but an author who prints an answer instead of returning it
wants to know.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter
from typing import Any

NOTIFICATIONS = ("draft_receive", "main_postprocess")


@dataclass
class Call:
    seat: int
    bot: str
    method: str
    args: tuple[Any, ...]
    returned: str = ""  # repr of the value, "" for a notification that returned nothing
    error: str = ""  # why the call failed (raised, timed out, the process ended)
    seconds: float = 0.0
    printed: str = ""
    traceback: str = ""  # the bot's frames, when its code raised (or threw)

    def signature(self) -> str:
        return f"{self.method}({', '.join(repr(a) for a in self.args)})"

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "call": self.method,
                "args": list(self.args), "returned": self.returned, "error": self.error,
                "ms": round(self.seconds * 1000, 3), "printed": self.printed,
                "traceback": self.traceback}


class Logged:
    """One bot's four methods, each call appended to `log` (shared by both seats)."""

    def __init__(self, bot: Any, seat: int, name: str, log: list[Call],
                 noise: bool = False) -> None:
        self.bot = bot
        self.seat = seat
        self.name = name
        self.log = log
        self.noise = noise and callable(getattr(bot, "printed", None))
        self.sync = callable(getattr(bot, "arena_sync", None))

    def draft_pick(self, cards: list[str]) -> Any:
        return self._call("draft_pick", cards)

    def draft_receive(self, card: str) -> Any:
        return self._call("draft_receive", card)

    def main_play(self, cards: list[str], base: str) -> Any:
        return self._call("main_play", cards, base)

    def main_postprocess(self, card: str) -> Any:
        return self._call("main_postprocess", card)

    def _call(self, method: str, *args: Any) -> Any:
        call = Call(self.seat, self.name, method, tuple(list(a) if isinstance(a, list) else a
                                                        for a in args))
        self.log.append(call)
        start = perf_counter()
        try:
            value = getattr(self.bot, method)(*args)
            if self.sync and method in NOTIFICATIONS:
                self.bot.arena_sync()  # a notification's failure, now rather than later
        except Exception as exc:
            call.seconds = perf_counter() - start
            call.error = getattr(exc, "arena_reason", None) or str(exc) \
                if type(exc).__name__ in ("CallTimeout", "BotProcessError") else \
                f"raised {type(exc).__name__}: {exc}"
            call.traceback = getattr(exc, "traceback", "")
            if self.noise:
                call.printed = self.bot.printed()
            raise
        call.seconds = perf_counter() - start
        if method not in NOTIFICATIONS or value is not None:
            call.returned = repr(value)
        if self.noise:  # a warning, for `--check`: the call goes on as in a tournament
            call.printed = self.bot.printed()
        return value
