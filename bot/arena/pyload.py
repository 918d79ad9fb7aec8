"""What a bot file's own process needs, and nothing more, so that it starts quickly
(`pyhost.py` imports no rules, no game engine, no pydantic): importing a Python bot file and
finding its bot (`_python_target`), and knowing which notification methods can do nothing
(`_notice`).
"""

from __future__ import annotations

import dis
import importlib.util
import inspect
import re
from pathlib import Path
from types import FunctionType, MethodType, ModuleType
from typing import Any

METHODS = ("draft_pick", "draft_receive", "main_play", "main_postprocess")


class BotLoadError(ValueError):
    """A bot argument that names no usable bot (the message says why)."""


def _has_methods(obj: Any) -> bool:
    return all(callable(getattr(obj, m, None)) for m in METHODS)


def _import(path: Path) -> ModuleType:
    name = "arena_bot_" + re.sub(r"\W", "_", str(path.resolve()))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise BotLoadError(f"importing {path} failed: {type(exc).__name__}: {exc}"
                           f"{_location(exc)[0] if not isinstance(exc, SyntaxError) else ''}"
                           ) from exc
    return module


def _python_target(arg: str) -> tuple[Any, bool]:
    """(class or object or module, whether a fresh instance plays each match)."""
    path_text, _, attr = arg.partition(".py:")
    path = Path(path_text if not attr else path_text + ".py")
    module = _import(path)
    if attr:
        if not hasattr(module, attr):
            raise BotLoadError(f"{path} has no {attr}")
        candidates = [getattr(module, attr)]
    else:
        candidates = [getattr(module, n) for n in ("BOT", "bot", "Bot") if hasattr(module, n)]
        if not candidates:
            candidates = [obj for _, obj in inspect.getmembers(module, inspect.isclass)
                          if obj.__module__ == module.__name__ and _has_methods(obj)]
            if len(candidates) > 1:
                names = ", ".join(c.__name__ for c in candidates)
                raise BotLoadError(f"{path} defines several bot classes ({names}): "
                                   f"name one as {path}:ClassName")
        if not candidates and _has_methods(module):
            candidates = [module]
    if not candidates:
        raise BotLoadError(f"{path} has no bot: define a class with {', '.join(METHODS)}, "
                           "an object `bot` with them, or the four functions")
    target = candidates[0]
    if inspect.isclass(target):
        if not _has_methods(target):
            raise BotLoadError(f"{target.__name__} in {path} lacks one of {', '.join(METHODS)}")
        return target, True
    if not _has_methods(target):
        raise BotLoadError(f"the bot in {path} lacks one of {', '.join(METHODS)}")
    return target, False


class _Inert(dict):
    """function -> whether its bound method, called with one card, can do nothing at all:
    a plain function whose body is empty (`pass`, `...`, a docstring, `return None`) and
    that accepts (self, card). Such a notification is not called (nor timed): the call
    could not change anything, fail or run long, so skipping it changes no result."""

    def __missing__(self, fn: Any) -> bool:
        inert = type(fn) is FunctionType and not fn.__code__.co_flags & _NOT_PLAIN and [
            (i.opname, i.argval) for i in dis.get_instructions(fn)
            if i.opname not in ("RESUME", "NOP", "CACHE")] in _EMPTY_BODIES
        if inert:
            try:
                inspect.signature(fn).bind(None, "R0")
            except (TypeError, ValueError):
                inert = False
        self[fn] = inert
        return inert


_NOT_PLAIN = (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
              | inspect.CO_ITERABLE_COROUTINE)
_EMPTY_BODIES = ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])
_INERT = _Inert()


def _notice(method: Any) -> Any:
    """The notification method to call, or None when calling it would do nothing."""
    if type(method) is MethodType and type(method.__func__) is FunctionType:
        return None if _INERT[method.__func__] else method
    if COMPILED_SOURCES:  # a compiled built-in's method: as its Python source has it
        name = getattr(method, "__name__", None)
        for cls in type(getattr(method, "__self__", None)).__mro__:
            if name in cls.__dict__:  # the class that defines it
                source = COMPILED_SOURCES.get(cls)
                if source is not None and _INERT[source.__dict__[name]]:
                    return None
                break
    return method


# A compiled class -> the Python class it was compiled from (filled by bot.arena.builtins,
# which only the arena's own processes import): a compiled method is no Python function,
# so `_INERT` reads its source's.
COMPILED_SOURCES: dict[type, type] = {}


_HARNESS = frozenset(str(Path(__file__).with_name(n))
                     for n in ("pyhost.py", "pyload.py", "hostloop.py"))
_HARNESS_TWIN = "_hostloop_c.py"  # (its frames are named by the file it was compiled from)


def bot_failure(exc: BaseException, where: str) -> tuple[str, str]:
    """(the one-line reason, the traceback) of an exception raised by a bot's code: the
    reason names the exception, the call and the line of the bot's code where it was raised;
    the traceback holds the bot's frames only (the harness's calling frames left out)."""
    reason = f"raised {type(exc).__name__}: {' '.join(str(exc).split())[:120]} in {where}"
    at, trace = _location(exc)
    return reason + at, trace


def _location(exc: BaseException) -> tuple[str, str]:
    """(" (bot.py, line 7: the line)", the traceback of the bot's frames), or ("", "")."""
    import traceback  # (only on a failure: the host's start stays light)

    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if f.filename not in _HARNESS and "importlib._bootstrap" not in f.filename
              and Path(f.filename).name != _HARNESS_TWIN]
    if not frames:
        return "", ""
    last = ([f for f in frames if not _library(f.filename)] or frames)[-1]
    code = f": {' '.join(last.line.split())[:60]}" if last.line else ""
    trace = "".join(["Traceback (the bot's frames, most recent call last):\n",
                     *traceback.format_list(frames[-8:]),
                     *traceback.format_exception_only(type(exc), exc)])
    return f" ({Path(last.filename).name}, line {last.lineno}{code})", trace.rstrip("\n")


def _library(filename: str) -> bool:
    """Whether a frame is in Python's own library (a bot's call into `random`, say), so that
    the reason names the bot's line that made the call."""
    import sysconfig

    return filename.startswith(tuple({sysconfig.get_path(p) for p in ("stdlib", "platstdlib",
                                                                        "purelib")})) \
        or filename.startswith("<frozen ")
