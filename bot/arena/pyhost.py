"""Host process of one Python bot file (`python -m bot.arena.pyhost BOT LIMIT ANSWER_FD`).

Speaks the line protocol described in `bot/arena/process.py`: commands on standard input,
answers on the pipe ANSWER_FD. The bot's own standard input is empty and its output goes
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

    failed: tuple[str, str] | None = None  # the first failure since the last answer
    bot: Any = None if fresh else target
    receive: Callable[..., Any] | None = None
    postprocess: Callable[..., Any] | None = None

    def call(where: str, fn: Callable[..., Any], *args: Any) -> Any:
        nonlocal failed
        start = perf_counter()
        try:
            value = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - the bot's own failure, reported
            if failed is None:
                failed = ("error", f"raised {type(exc).__name__}: {exc} in {where}"[:300])
            return None
        took = perf_counter() - start
        if took > limit and failed is None:
            failed = ("timeout", f"exceeded the time limit of {limit:g} s in {where}: "
                                 f"took {took:.3f} s")
        return value

    def answer(value: Any) -> None:
        nonlocal failed
        if failed is not None:
            send(f"E {failed[0]}\t{failed[1]}")
            failed = None
        elif type(value) is int:
            send(str(value))
        else:
            send("X " + " ".join(repr(value).split())[:200])

    def bind() -> None:
        nonlocal receive, postprocess
        receive = _notice(getattr(bot, "draft_receive", None))
        postprocess = _notice(getattr(bot, "main_postprocess", None))

    if bot is not None:
        bind()
    for raw in commands:
        parts = raw.decode().split()
        op = parts[0] if parts else ""
        if op == "n":
            if fresh:
                bot = call("__init__", target)
                bind()
        elif op == "p":
            answer(None if failed else call("draft_pick", bot.draft_pick, parts[1:3]))
        elif op == "r":
            if receive is not None and failed is None:
                call("draft_receive", receive, parts[1])
        elif op == "m":
            answer(None if failed else call("main_play", bot.main_play, parts[2:], parts[1]))
        elif op == "o":
            if postprocess is not None and failed is None:
                call("main_postprocess", postprocess, parts[1])
        elif op == "s":
            if failed is not None:
                answer(None)
            else:
                send("ok")
        else:
            send(f"E error\tunknown command {op!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
