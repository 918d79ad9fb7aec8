"""A bot file's answers to one lockstep batch (`answer_batch`), in the bot's own process.

`bot/arena/lockstep.py` sends each bot's process one line per step and seat for many
matches; `pyhost.py` hands each line to `answer_batch`, which calls the bot of each match
(its own instance) and times every call. A built-in bot answers the same lines inside the
worker (`lockstep._Local`).

The compiled core: setup.py compiles this very file with Cython (pure-Python mode, like
match.py) into bot/arena/_hostloop_c, where the loop over a batch's records is C and the
clock is read in C (CLOCK_MONOTONIC, perf_counter's own clock on Linux); the end of this
module takes that twin's `answer_batch` when it was built from this file as it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from operator import itemgetter
from time import perf_counter
from typing import Any

try:
    import cython
except ImportError:  # Cython is needed only to build the compiled core
    from games import cython_shim as cython

from bot.arena.core import compiled
from bot.arena.pyload import _notice, bot_failure

if cython.compiled:
    from cython.cimports.posix.time import CLOCK_MONOTONIC, clock_gettime, timespec


@cython.cfunc
@cython.inline
@cython.exceptval(check=False)
def _now() -> cython.double:
    """perf_counter, read in C by the compiled core."""
    ts = cython.declare(timespec)
    clock_gettime(CLOCK_MONOTONIC, cython.address(ts))
    return ts.tv_sec + ts.tv_nsec * 1e-9


if not cython.compiled:
    _now = perf_counter  # noqa: F811


def _sentence(text: str) -> str:
    """Text fit for one answer line: no line break, no unit separator."""
    return text.replace("\n", " ").replace("\r", " ").replace("\x1f", " ").replace("\t", " ")


def _failure_line(failed: tuple[str, ...]) -> str:
    """The answer line of a failure: `E <kind>\t<sentence>`, then, for an exception, a tab
    and its traceback as a JSON string (which holds no line break, tab or unit separator)."""
    line = f"E {failed[0]}\t{_sentence(failed[1])[:300]}"
    return line + "\t" + json.dumps(failed[2]) if len(failed) > 2 and failed[2] else line


def answer_batch(line: str, slots: dict[str, Any], target: Any, limit: float,
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
    # C types when compiled (plain annotations, not evaluated, in pure Python).
    k: cython.Py_ssize_t
    o: cython.Py_ssize_t
    width: cython.Py_ssize_t
    cards: cython.Py_ssize_t
    note: cython.Py_ssize_t
    call: cython.Py_ssize_t
    first: cython.bint
    clock: cython.double
    now: cython.double
    last_write: cython.double
    payload: str
    head, keys_text, payload = line.rstrip("\n").split(" ")
    kind, step = head[1], int(head[2:] or 0)
    keys = keys_text.split(",")
    width = len(payload) // len(keys)
    chars: list[str] = []
    details: list[str] = []
    last_write = clock = _now()
    first = kind == "d" and step == 0  # a fresh instance, then its first pick
    # The entry's notification (1: receive, 2: postprocess) and method (3: draft_pick,
    # 4: main_play, 0: none, the end of the match); their names, for the reasons.
    note = 1 if kind == "d" or kind == "m" and step == 0 else 2
    noticed = "draft_receive" if note == 1 else "main_postprocess"
    call = 3 if kind == "d" else 4 if kind == "m" else 0
    called = "draft_pick" if call == 3 else "main_play"
    cards = (width - 4) // 2  # a main_play record's hand (after the notice and the base)
    hand = _hand(width)
    o = -width
    for k, key in enumerate(keys):
        if beat is not None:
            beat[0], beat[2] = clock, k
        o += width
        failed = None
        value: Any = 0
        where = called
        try:
            if first:
                where = "__init__"
                if isinstance(target, type):
                    bot = target()
                    now = _now()
                    if now - clock > limit:
                        failed = ("timeout", f"exceeded the time limit of {limit:g} s in "
                                             f"__init__: took {now - clock:.3f} s")
                    clock = now
                else:
                    bot = target
                # The four methods are looked up once per match (a missing one: at its call).
                slots[key] = [bot, _notice(getattr(bot, "draft_receive", None)),
                              _notice(getattr(bot, "main_postprocess", None)),
                              getattr(bot, "draft_pick", None), getattr(bot, "main_play", None)]
                where = "draft_pick"
                if failed is None:
                    value = bot.draft_pick([payload[o:o + 2], payload[o + 2:o + 4]])
            else:
                entry = slots[key] if call else slots.pop(key)
                notify = entry[note]
                if notify is not None:
                    where = noticed
                    notify(payload[o:o + 2])
                    now = _now()
                    if now - clock > limit:
                        failed = ("timeout", f"exceeded the time limit of {limit:g} s in "
                                             f"{where}: took {now - clock:.3f} s")
                    clock = now
                    where = called
                if failed is None and call:
                    method = entry[call]
                    if method is None:  # (not there when the match began: raises)
                        method = getattr(entry[0], called)
                    if call == 3:
                        value = method([payload[o + 2:o + 4], payload[o + 4:o + 6]])
                    elif cards == 3:
                        value = method([payload[o + 4:o + 6], payload[o + 6:o + 8],
                                        payload[o + 8:o + 10]], payload[o + 2:o + 4])
                    else:
                        value = method([*hand(payload[o:o + width])], payload[o + 2:o + 4])
        except catch as exc:  # the bot's own failure, reported
            if failed is None:
                failed = ("error", *bot_failure(exc, where))
        now = _now()
        if failed is None and now - clock > limit and call:
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


if not cython.compiled:  # the pure module: take the compiled twin's code if it is current
    _twin = compiled("bot.arena._hostloop_c", __file__)
    if _twin is not None:
        answer_batch = _twin.answer_batch  # noqa: F811
