"""Turning the service's text into Discord text: mentions, relative timestamps, 2000-char parts,
and members' names made safe to repeat (escaped once, when the bot reads them)."""

from __future__ import annotations

import unicodedata
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


#: The characters Discord's markdown reads as markup anywhere in a line: emphasis, strike,
#: spoilers, code, masked links (both brackets: nested ones too), quotes, headings, mentions
#: (`<@id>`, `<@&id>`, `<#id>`, `@everyone`, `@here`), custom emoji and autolinks (`:` of
#: `https://`), and the backslash itself.
MARKUP = frozenset("\\*_~`|[]<>#@:")
#: Discord reads a backslash before any of these as "this character, literally".
ESCAPABLE = frozenset(chr(c) for c in range(33, 127) if not chr(c).isalnum())
#: Invisible letters (Hangul fillers) that make a name look blank or like another one.
FILLERS = frozenset("\u115f\u1160\u3164\uffa0")
NAME_LIMIT = 64  # a 32-character nickname with every character escaped
REASON_LIMIT = 300
EVENT_LIMIT = 100


def escape(text: object, limit: int = NAME_LIMIT) -> str:
    """Text the bot did not write (a nickname, a role, channel or event name, a host's reason,
    a setting's value, a bot file's output) as the bot may repeat it in a message, an embed,
    a file or an export: one line, every invisible character (zero-width spaces and joiners,
    direction overrides, fillers) dropped, every markup character escaped with a backslash
    on the whole string (each bracket of every masked link, nested or not; every mention;
    the `://` of a bare link; a heading, quote or list at its start), cut to `limit`
    characters ("…" at the end) between two escapes. Idempotent: text escaped already comes
    out as it went in, so a name read once and repeated again is never escaped twice.
    Never empty ("?" for text that was only invisible)."""
    cleaned = "".join(" " if ch.isspace() or unicodedata.category(ch) == "Cc" else ch
                      for ch in str(text) if unicodedata.category(ch) != "Cf"
                      and ch not in FILLERS)
    cleaned = " ".join(cleaned.split())
    parts: list[str] = []
    i = 0
    while i < len(cleaned):
        ch = cleaned[i]
        if ch == "\\" and i + 1 < len(cleaned) and cleaned[i + 1] in ESCAPABLE:
            parts.append(cleaned[i:i + 2])  # escaped already: Discord shows it as it is
            i += 2
            continue
        start = not parts  # a construct that only counts at the start of a line
        if ch in MARKUP or (start and ch in "->+") or (
                ch == "." and parts and all(p.isdigit() for p in parts)):
            parts.append("\\" + ch)
        else:
            parts.append(ch)
        i += 1
    return _capped(parts, limit) or "?"


def _capped(parts: list[str], limit: int) -> str:
    """The parts joined, cut at a part boundary to at most `limit` characters."""
    out: list[str] = []
    size = 0
    total = sum(map(len, parts))
    for part in parts:
        if total > limit and size + len(part) > limit - 1:
            out.append("…")
            break
        out.append(part)
        size += len(part)
    return "".join(out)


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
