"""Host process of one Python bot file (`python -m bot.arena.pyhost BOT LIMIT ANSWER_FD`).

Speaks the line protocol described in `bot/arena/process.py`: commands on standard input,
answers on the pipe ANSWER_FD: one call at a time, or in lockstep (`bot/arena/lockstep.py`,
`hostloop.answer_batch`: one line per step for many matches, each with its own instance of the
bot). The bot's own standard input is empty and its output goes wherever the controller
sent this process's standard output, never into the answers.
Every call is timed here; a call that returns after the limit is reported as over it (the
controller kills this process when a call does not return in time).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from time import perf_counter
from types import FunctionType
from typing import Any

from bot.arena.hostloop import _failure_line, answer_batch
from bot.arena.pyload import _INERT, _notice, bot_failure


def main(argv: list[str]) -> int:
    arg, limit, answer_fd = argv[0], float(argv[1]), int(argv[2])
    commands = os.fdopen(os.dup(0), "rb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the bot cannot read our commands

    def send(line: str) -> None:
        os.write(answer_fd, (line + "\n").encode())

    from bot.arena.pyload import _python_target

    try:
        target, fresh = _python_target(arg)
    except BaseException as exc:  # the file is the user's: anything can happen on import
        reason = getattr(exc, "args", [""])[0] if type(exc).__name__ == "BotLoadError" else \
            f"{type(exc).__name__}: {exc}"
        send("E load\t" + " ".join(str(reason).split())[:300])
        return 0
    name = getattr(target, "name", None) or getattr(target, "NAME", None) or \
        Path(arg.partition(".py:")[0]).stem
    # Notifications that can do nothing (see match._Inert) are not even sent to us.
    skip = [m for m in ("draft_receive", "main_postprocess")
            if (_INERT[getattr(target, m)] if isinstance(target, type)
                and type(getattr(target, m)) is FunctionType
                else _notice(getattr(target, m)) is None)]
    send("ok " + json.dumps({"name": str(name), "skip": skip, "fresh": fresh}))

    class Slot:
        """The bot of one call at a time: its instance, notifications and first failure."""

        def __init__(self) -> None:
            self.failed: tuple[str, str] | None = None  # the first failure since an answer
            self.bot: Any = None if fresh else target
            self.receive: Callable[..., Any] | None = None
            self.postprocess: Callable[..., Any] | None = None
            if self.bot is not None:
                self.bind()

        def bind(self) -> None:
            self.receive = _notice(getattr(self.bot, "draft_receive", None))
            self.postprocess = _notice(getattr(self.bot, "main_postprocess", None))

        def call(self, where: str, fn: Callable[..., Any], *args: Any) -> Any:
            start = perf_counter()
            try:
                value = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - the bot's own failure, reported
                if self.failed is None:
                    self.failed = ("error", *bot_failure(exc, where))
                return None
            took = perf_counter() - start
            if took > limit and self.failed is None:
                self.failed = ("timeout", f"exceeded the time limit of {limit:g} s in "
                                          f"{where}: took {took:.3f} s")
            return value

        def answer(self, value: Any) -> None:
            if self.failed is not None:
                line = _failure_line(self.failed)
                self.failed = None
            elif type(value) is int:
                line = str(value)
            else:
                line = "X " + " ".join(repr(value).split())[:200]
            send(line)

    slot = Slot()
    lockstep: dict[str, Any] = {}  # lockstep mode: slot -> [bot, receive, postprocess]

    def write(text: str) -> None:
        os.write(answer_fd, text.encode())

    for raw in commands:
        if raw[:1] == b"@":
            answer_batch(raw.decode(), lockstep, target, limit, write)
            continue
        parts = raw.decode().split()
        op = parts[0] if parts else ""
        if op == "n":
            if fresh:
                slot.bot = slot.call("__init__", target)
                slot.bind()
        elif op == "p":
            slot.answer(None if slot.failed else
                        slot.call("draft_pick", slot.bot.draft_pick, parts[1:3]))
        elif op == "r":
            if slot.receive is not None and slot.failed is None:
                slot.call("draft_receive", slot.receive, parts[1])
        elif op == "m":
            slot.answer(None if slot.failed else
                        slot.call("main_play", slot.bot.main_play, parts[2:], parts[1]))
        elif op == "o":
            if slot.postprocess is not None and slot.failed is None:
                slot.call("main_postprocess", slot.postprocess, parts[1])
        elif op == "s":
            if slot.failed is not None:
                slot.answer(None)
            else:
                send("ok")
        else:
            send(f"E error\tunknown command {op!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
