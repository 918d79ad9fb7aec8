"""Logging for the `umpire` command: one line per event, on standard error.

`umpire run` logs warnings and errors (-v: everything); the local commands (play, demo,
matches, export...) log nothing below CRITICAL unless -v is given, so that their output is
never interleaved with log lines (a slow disk's "a commit took 107 ms" is the bot operator's
business, not a player's; a failure is told as the command's one sentence, its cause with -v).
A logged exception stays on its event's line. discord.py's notes about voice support,
which this bot does not use, are dropped.
"""

from __future__ import annotations

import logging
import sys
import traceback

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: discord.py's start-up notes about optional voice packages (PyNaCl, davey).
VOICE_NOTE = "voice will NOT be supported"


class OneLineFormatter(logging.Formatter):
    """The record, and its exception if any, on one line: "... | ValueError: x (at f.py:12)"."""

    def format(self, record: logging.LogRecord) -> str:
        exc_info, stack = record.exc_info, record.stack_info
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        try:
            line = super().format(record)
        finally:
            record.exc_info, record.stack_info = exc_info, stack
        if exc_info and exc_info[1] is not None:
            exc = exc_info[1]
            frames = traceback.extract_tb(exc_info[2])
            where = f" (at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno})" \
                if frames else ""
            line += f" | {type(exc).__name__}: {exc}{where}"
        return line.replace("\r", " ").replace("\n", " ⏎ ")


class _NoVoiceNotes(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return VOICE_NOTE not in record.getMessage()


def setup(command: str | None, verbose: bool = False) -> None:
    """Log to standard error, one line per event, at the level `command` calls for."""
    level = logging.DEBUG if verbose else logging.WARNING if command in ("run", None) \
        else logging.CRITICAL
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLineFormatter(FORMAT))
    handler.addFilter(_NoVoiceNotes())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
