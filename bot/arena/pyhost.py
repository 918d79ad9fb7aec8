"""Host process of one Python bot file (`python -m bot.arena.pyhost BOT LIMIT ANSWER_FD`).

Speaks the line protocol described in `bot/arena/process.py`: commands on standard input,
answers on the pipe ANSWER_FD: one call at a time, or in lockstep (`bot/arena/lockstep.py`,
`_lockstep` below: one line per step for many matches, each with its own instance of the
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
from operator import itemgetter
from pathlib import Path
from time import perf_counter
from types import FunctionType
from typing import Any

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
            self.failed: tuple[str, ...] | None = None  # the first failure since an answer
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
            _lockstep(raw.decode(), lockstep, target, limit, write)
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


def _sentence(text: str) -> str:
    """Text fit for one answer line: no line break, no unit separator."""
    return text.replace("\n", " ").replace("\r", " ").replace("\x1f", " ").replace("\t", " ")


def _failure_line(failed: tuple[str, ...]) -> str:
    """The answer line of a failure: `E <kind>\t<sentence>`, then, for an exception, a tab
    and its traceback as a JSON string (which holds no line break, tab or unit separator)."""
    line = f"E {failed[0]}\t{_sentence(failed[1])[:300]}"
    return line + "\t" + json.dumps(failed[2]) if len(failed) > 2 and failed[2] else line


def _lockstep(line: str, slots: dict[str, Any], target: Any, limit: float,
              write: Callable[[str], Any], catch: type[BaseException] = BaseException,
              beat: list | None = None) -> None:
    """One lockstep batch (`bot/arena/lockstep.py`): `@<kind><step> <slots> <records>`, one
    fixed-width record per slot. Kinds: d0 (a fresh instance, then draft_pick of the
    record's two cards), d1-d4 (draft_receive of the record's first card, then draft_pick
    of the next two), m0-m9 (draft_receive (m0) or main_postprocess of the first card, then
    main_play of the hand after the base card), s (main_postprocess of the card; the end of
    the match). Answers: one character per slot, a digit for an index 0-9 ("0" for the end
    of a match), "!" for anything else with its old answer line after a unit separator;
    written in pieces (a piece every 0.05 s while working, so the controller sees
    progress). Every call is timed, one clock read per call.

    Also run inside a worker for built-in bots (`lockstep._Local`): then `catch` is
    Exception (Ctrl-C and the watchdog's interruption must pass), and `beat` gets, before
    each slot, the time (for the watchdog) and the slot's position in the batch."""
    head, keys_text, payload = line.rstrip("\n").split(" ")
    kind, step = head[1], int(head[2:] or 0)
    keys = keys_text.split(",")
    width = len(payload) // len(keys)
    chars: list[str] = []
    details: list[str] = []
    last_write = clock = perf_counter()
    note = 1 if kind == "d" or (kind == "m" and step == 0) else 2  # receive or postprocess
    hand = _hand(width)
    for k, key in enumerate(keys):
        if beat is not None:
            beat[0], beat[2] = clock, k
        rec = payload[k * width:(k + 1) * width]
        where = "__init__"
        value: Any = None
        failed: tuple[str, ...] | None = None
        try:
            if kind == "d" and step == 0:
                if isinstance(target, type):
                    bot = target()
                    now = perf_counter()
                    if now - clock > limit:
                        failed = ("timeout", f"exceeded the time limit of {limit:g} s in "
                                             f"__init__: took {now - clock:.3f} s")
                    clock = now
                else:
                    bot = target
                slots[key] = entry = [bot, _notice(getattr(bot, "draft_receive", None)),
                                      _notice(getattr(bot, "main_postprocess", None))]
                where = "draft_pick"
                if failed is None:
                    value = bot.draft_pick([rec[:2], rec[2:4]])
            else:
                entry = slots.pop(key) if kind == "s" else slots[key]
                notify = entry[note]
                if notify is not None:
                    where = "draft_receive" if note == 1 else "main_postprocess"
                    notify(rec[:2])
                    now = perf_counter()
                    if now - clock > limit:
                        failed = ("timeout", f"exceeded the time limit of {limit:g} s in "
                                             f"{where}: took {now - clock:.3f} s")
                    clock = now
                if failed is None and kind == "d":
                    where = "draft_pick"
                    value = entry[0].draft_pick([rec[2:4], rec[4:6]])
                elif failed is None and kind == "m":
                    where = "main_play"
                    value = entry[0].main_play([*hand(rec)], rec[2:4])
                else:
                    value = 0
        except catch as exc:  # the bot's own failure, reported
            if failed is None:
                failed = ("error", *bot_failure(exc, where))
        now = perf_counter()
        if failed is None and now - clock > limit and kind != "s":
            failed = ("timeout", f"exceeded the time limit of {limit:g} s in {where}: "
                                 f"took {now - clock:.3f} s")
        clock = now
        if failed is None and type(value) is int and 0 <= value <= 9:
            chars.append(_DIGITS[value])
        else:
            chars.append("!")
            details.append(_failure_line(failed) if failed else
                           str(value) if type(value) is int else
                           "X " + " ".join(repr(value).split())[:200])
        if now - last_write > 0.05:  # show progress: not hung
            write("".join(chars) + "".join("\x1f" + d for d in details) + "\n")
            chars.clear()
            details.clear()
            last_write = now
    write("".join(chars) + "".join("\x1f" + d for d in details) + "\n")


_DIGITS = "0123456789"


def _hand(width: int) -> Callable[[str], tuple[str, ...]]:
    """The hand's cards of a main_play record (after the notification and the base)."""
    if width <= 6:
        return lambda rec: (rec[4:6],) if width == 6 else ()
    return itemgetter(*(slice(i, i + 2) for i in range(4, width, 2)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
