"""Turning the service's text into Discord text: mentions, relative timestamps, 2000-char parts,
and members' names made safe to repeat (escaped once, when the bot reads them)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import discord

from bot.transport import MatchInfo, PlayerRef, render_text

DISCORD_PREFIX = "discord:"
LIMIT = 2000


def player_id(user_id: int) -> str:
    """The player id of a Discord member, as matches, ratings and events store it."""
    return f"{DISCORD_PREFIX}{user_id}"


def user_id_of(player: PlayerRef) -> int | None:
    """The Discord user id of a seat, or None for a built-in bot seat."""
    if player.bot is None and player.id.startswith(DISCORD_PREFIX):
        return int(player.id[len(DISCORD_PREFIX):])
    return None


def escape(text: str) -> str:
    """User text (a nickname, a host's reason) as the bot may repeat it in a message, an embed
    or a file: markdown escaped (a nickname `[gift](https://...)` is no masked link, `**x**`
    no bold) and mentions defused (`@everyone` pings no one even where mentions are allowed)."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


def shown(member: discord.abc.User) -> str:
    """A member's display name, escaped (see `escape`)."""
    return escape(member.display_name)


def player_ref(user_id: int, name: str) -> PlayerRef:
    """A member's seat. The name is escaped here, once, so that every place that repeats a
    player's name ({P0}/{P1} in plain text, the board, ratings, transcripts) repeats it safely."""
    return PlayerRef(id=player_id(user_id), name=escape(name))


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
