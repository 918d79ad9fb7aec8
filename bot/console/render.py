"""Showing the umpire's messages in a terminal."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.store.repository import StoredMessage
from bot.transport import MatchInfo, seconds_left
from bot.transport import render_text as fill

PLACE_LABELS = {"public": "room", "umpire": "host log"}


def place_label(match: MatchInfo, audience: str) -> str:
    """"room", "host log", or "table of NAME"."""
    if audience.startswith("seat"):
        return f"table of {match.players[int(audience[4:])].name}"
    return PLACE_LABELS.get(audience, audience)


def render_text(match: MatchInfo, message: StoredMessage, now: Callable[[], datetime]) -> str:
    names = [p.name for p in match.players]
    return fill(message.text, lambda seat: names[seat] if seat < len(names) else None,
                lambda when: seconds_left(when, now()))


def indent(label: str, text: str) -> str:
    """`[label] first line` with the following lines indented under it."""
    lines = text.splitlines() or [""]
    pad = " " * (len(label) + 3)
    return "\n".join([f"[{label}] {lines[0]}", *(pad + line for line in lines[1:])])
