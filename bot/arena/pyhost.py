"""Host process of one Python bot file (`python -m bot.arena.pyhost BOT LIMIT ANSWER_FD`).

Speaks the line protocol described in `bot/arena/process.py`: commands on standard input,
answers on the pipe ANSWER_FD. In batch mode (`bot/arena/batch.py`) each command starts with
a match's slot number, each slot has its own instance of the bot, and the answers of a batch
(ended by a line ".") are written together. The bot's own standard input is empty and its output goes
wherever the controller sent this process's standard output, never into the answers.
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


def main(argv: list[str]) -> int:
    arg, limit, answer_fd = argv[0], float(argv[1]), int(argv[2])
    commands = os.fdopen(os.dup(0), "rb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the bot cannot read our commands

    def send(line: str) -> None:
        os.write(answer_fd, (line + "\n").encode())

    from bot.arena.loader import _python_target
    from bot.arena.match import _INERT, _notice

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

    out: list[str] = []  # batch mode: answers not written yet
    last_write = perf_counter()

    def write(lines: list[str]) -> None:
        nonlocal last_write
        os.write(answer_fd, ("\n".join(lines) + "\n").encode())
        lines.clear()
        last_write = perf_counter()

    class Slot:
        """One match's bot: its instance, its notifications and its first failure."""

        def __init__(self, batch: bool) -> None:
            self.batch = batch
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
                    self.failed = ("error",
                                   f"raised {type(exc).__name__}: {exc} in {where}"[:300])
                return None
            end = perf_counter()
            took = end - start
            if took > limit and self.failed is None:
                self.failed = ("timeout", f"exceeded the time limit of {limit:g} s in "
                                          f"{where}: took {took:.3f} s")
            if self.batch and end - last_write > 0.05:  # show progress: not hung
                write(out or ["+"])
            return value

        def answer(self, value: Any) -> None:
            if self.failed is not None:
                line = f"E {self.failed[0]}\t{self.failed[1]}"
                self.failed = None
            elif type(value) is int:
                line = str(value)
            else:
                line = "X " + " ".join(repr(value).split())[:200]
            if self.batch:
                out.append(line)
            else:
                send(line)

    single = Slot(batch=False)
    slots: dict[str, Slot] = {}
    for raw in commands:
        parts = raw.decode().split()
        if parts and parts[0].isdigit():  # batch mode: "<slot> <command>", "." ends a batch
            key = parts.pop(0)
            slot = slots.get(key)
            if slot is None:
                slot = slots[key] = Slot(batch=True)
        elif parts == ["."]:
            if out:
                write(out)
            continue
        else:
            slot = single
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
            elif slot.batch:
                out.append("ok")
            else:
                send("ok")
            if slot.batch:  # the end of the slot's match
                del slots[key]
        else:
            send(f"E error\tunknown command {op!r}")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
