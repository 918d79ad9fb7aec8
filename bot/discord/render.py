"""Turning the service's text into Discord text: mentions, relative timestamps, 2000-char parts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from bot.transport import MatchInfo, PlayerRef, render_text

DISCORD_PREFIX = "discord:"
LIMIT = 2000


def user_id_of(player: PlayerRef) -> int | None:
    """The Discord user id of a seat, or None for a built-in bot seat."""
    if player.bot is None and player.id.startswith(DISCORD_PREFIX):
        return int(player.id[len(DISCORD_PREFIX):])
    return None


def player_ref(user_id: int, name: str) -> PlayerRef:
    return PlayerRef(id=f"{DISCORD_PREFIX}{user_id}", name=name)


def mention(player: PlayerRef) -> str:
    uid = user_id_of(player)
    return f"<@{uid}>" if uid is not None else f"**{player.name}**"


def relative(moment: datetime) -> str:
    return f"<t:{int(moment.timestamp())}:R>"


def _seat(players: Sequence[PlayerRef], show: Any) -> Any:
    return lambda seat: show(players[seat]) if seat < len(players) else None


def render(text: str, players: Sequence[PlayerRef]) -> str:
    """{P0}/{P1} as mentions, {until:ISO} as a Discord relative timestamp (one pass)."""
    return render_text(text, _seat(players, mention), relative)


def render_plain(text: str, players: Sequence[PlayerRef]) -> str:
    """For files (transcripts) and ephemeral answers: names, and deadlines as UTC times."""
    return render_text(text, _seat(players, lambda p: p.name),
                       lambda m: m.strftime("%H:%M:%S UTC"))


def split(text: str, limit: int = LIMIT) -> list[str]:
    """Cut a long message at line breaks (hard cut only for a single over-long line)."""
    if len(text) <= limit:
        return [text]
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                parts.append(current)
                current = ""
            parts.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            parts.append(current)
            current = line
        else:
            current = candidate
    if current:
        parts.append(current)
    return parts


def seat_mentions(match: MatchInfo, text: str) -> list[int]:
    """User ids of the players named in a text (for allowed_mentions)."""
    out = []
    for seat, player in enumerate(match.players):
        uid = user_id_of(player)
        if uid is not None and f"{{P{seat}}}" in text:
            out.append(uid)
    return out
