"""Arena bot names as people type them: `saver`, `arena:saver`, `Basic_Odds`.

The arena (`umpire arena`) knows its built-in bots by bare name, while a game's bot table
(`umpire play`, `umpire demo`, Discord) registers them as `arena:<name>`. Both accept either
spelling through these two functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

PREFIX = "arena:"


def plain(name: str) -> str:
    """The bare arena name: without the `arena:` prefix, lower case, `_` and spaces as `-`."""
    if name.lower().startswith(PREFIX):
        name = name[len(PREFIX):]
    return re.sub(r"[_ ]", "-", name.strip().lower())


def registered_name(available: Iterable[str], name: str) -> str:
    """The name under which `available` (a game's bot names) knows the bot `name`, typed
    with or without the `arena:` prefix; `name` itself when none matches (the caller then
    refuses it, or takes it for a file)."""
    names = list(available)
    if name in names:
        return name
    wanted = plain(name)
    for known in names:
        if known.startswith(PREFIX) and plain(known) == wanted:
            return known
    return name
