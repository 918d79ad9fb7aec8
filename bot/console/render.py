"""Showing the umpire's messages in a terminal."""

from __future__ import annotations

import re
import shutil
import textwrap
from collections.abc import Callable
from datetime import datetime

from bot.store.repository import StoredMessage
from bot.transport import MatchInfo, seconds_left
from bot.transport import render_text as fill

PLACE_LABELS = {"public": "room", "umpire": "host log"}
#: The width when the terminal's cannot be known (output piped to a file).
DEFAULT_WIDTH = 100


def place_label(match: MatchInfo, audience: str) -> str:
    """"room", "host log", or "table of NAME"."""
    if audience.startswith("seat"):
        return f"table of {match.players[int(audience[4:])].name}"
    return PLACE_LABELS.get(audience, audience)


def render_text(match: MatchInfo, message: StoredMessage, now: Callable[[], datetime]) -> str:
    names = [p.name for p in match.players]
    return fill(message.text, lambda seat: names[seat] if seat < len(names) else None,
                lambda when: seconds_left(when, now()))


def terminal_width() -> int:
    return min(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, 120)


def wrap(label: str, text: str, width: int) -> str:
    """`label` then the text, every line wrapped to `width` and indented under the label."""
    pad = " " * len(label)
    out: list[str] = []
    for n, line in enumerate(text.splitlines() or [""]):
        first = label if n == 0 else pad
        out += textwrap.wrap(line, width, initial_indent=first, subsequent_indent=pad + "  ",
                             break_on_hyphens=False) or [first.rstrip()]
    return "\n".join(out)


_ITEM = re.compile(r"^(\s*)([-*]|\d+\.)\s+")


def reflow(text: str, width: int) -> list[str]:
    """Markdown-like text as lines of at most `width`: each paragraph or list item (its
    lines joined again, wherever the source broke them) wrapped, a continuation indented
    under the item's text; headings, table rows and blank lines kept as they are."""
    blocks: list[tuple[str, str]] = []  # (subsequent indent, text); ("", "") a blank line
    for line in text.splitlines():
        stripped = line.strip()
        item = _ITEM.match(line)
        if not stripped:
            blocks.append(("", ""))
        elif line.startswith(("#", "|", "```")) or item or not blocks or not blocks[-1][1] \
                or blocks[-1][1].startswith(("#", "|", "```")):
            blocks.append((" " * item.end() if item else " " * (len(line) - len(line.lstrip())),
                           line.rstrip()))
        else:  # the source broke a paragraph or an item here: join it again
            indent, body = blocks[-1]
            blocks[-1] = (indent, f"{body} {stripped}")
    out: list[str] = []
    for indent, body in blocks:
        if not body or body.startswith(("#", "|", "```")):
            out.append(body)
        else:
            out += _wrap_columns(body, width, indent)
    return out


def columns(text: str) -> int:
    """How many terminal columns `text` takes (an emoji or a wide character: two)."""
    from unicodedata import east_asian_width

    return sum(2 if east_asian_width(c) in "WF" else 1 for c in text)


def _wrap_columns(line: str, width: int, indent: str) -> list[str]:
    """`line` wrapped at spaces to `width` columns (textwrap counts characters, and an emoji
    takes two columns), continuations starting with `indent`."""
    lead = line[:len(line) - len(line.lstrip(" "))]
    out: list[str] = []
    current = lead
    for word in line.split():
        joined = f"{current} {word}" if current.strip() else current + word
        if current.strip() and columns(joined) > width:
            out.append(current)
            current = indent + word
        else:
            current = joined
    out.append(current)
    return out


def wrap_lines(text: str, width: int) -> str:
    """Each line of `text` wrapped on its own to `width`, a continuation indented under the
    line's text (under a list item's text, past its marker)."""
    out: list[str] = []
    for line in text.splitlines():
        item = _ITEM.match(line)
        indent = item.end() if item else len(line) - len(line.lstrip()) + 2
        out += _wrap_columns(line, width, " " * indent) if line.strip() else [""]
    return "\n".join(out)
