"""`umpire invite`: the link that adds the bot to a server, with exactly the permissions
the configured channel mode needs, each named with why; and the per-server permission check
of `umpire run --check` (and of every start)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import discord

from bot.discord.preflight import TO_CREATE, TO_POST, TO_THREAD, label

#: Every permission the bot asks for in both channel modes, with why.
COMMON: dict[str, str] = {
    "view_channel": "see the game rooms, tables and host log it runs",
    "send_messages": "post the umpire's messages, decisions and results",
    "read_message_history": "find its own posts again after a restart, so that nothing is "
                            "posted twice",
    "embed_links": "post the helper notes and boards as embeds",
    "attach_files": "attach a match's transcript (/match export)",
    "manage_channels": "create each match's category, room, tables and the host log",
    "manage_roles": "set those channels' permission overwrites: the host log for the hosts "
                    "only (each player of a running match denied it), and in channels mode a "
                    "table for its player and the host role only",
    "manage_messages": "delete a private move typed in the public room",
}
#: Added in threads mode (tables as private threads in the game room).
THREADS: dict[str, str] = {
    "create_private_threads": "create each player's table as a private thread that only "
                              "that player and the bot read (not even the hosts)",
    "send_messages_in_threads": "post in those table threads",
    "manage_threads": "add the player to a private thread no one else may invite to, and "
                      "lock it when the match ends (the room denies Manage Threads to "
                      "everyone else: it would read every table)",
}
assert set(TO_CREATE) | set(TO_POST) <= set(COMMON) and set(TO_THREAD) <= set(THREADS)

SCOPES = ("bot", "applications.commands")


def needed(mode: str) -> dict[str, str]:
    """The permissions (discord.py's names) the bot needs in `mode`, with why."""
    return {**COMMON, **(THREADS if mode == "threads" else {})}


def permissions(mode: str) -> discord.Permissions:
    return discord.Permissions(**dict.fromkeys(needed(mode), True))


def client_id_of(token: str) -> int | None:
    """The bot's application id: the first part of its token is the id in base64."""
    first = token.strip().split(".", 1)[0]
    try:
        text = base64.b64decode(first + "=" * (-len(first) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def invite_url(client_id: int | str, mode: str) -> str:
    return (f"https://discord.com/oauth2/authorize?client_id={client_id}"
            f"&scope={'+'.join(SCOPES)}&permissions={permissions(mode).value}")


def invite_text(settings: Any) -> str:
    """What `umpire invite` prints: the link, then each permission with why."""
    mode = settings.discord.channel_mode
    token = settings.discord.token.get_secret_value() if settings.discord.token else ""
    found = client_id_of(token) if token else None
    lines = []
    if found is None:
        why = ("The configured bot token does not look like one (its first part is not the "
               "application id)" if token.strip() else "No bot token is configured")
        lines.append(f"({why}, so the link below has CLIENT_ID where the "
                     "bot's application id goes: copy it from the developer portal, "
                     "General Information > Application ID, or set DISCORD_TOKEN.)")
    lines += [f"Open this link to add the bot to a server ({mode} mode, permissions "
              f"integer {permissions(mode).value}):", "",
              "  " + invite_url(found or "CLIENT_ID", mode), "",
              "It asks for these permissions:"]
    lines += [f"  - {label(name)}: {why}." for name, why in needed(mode).items()]
    other = "channels" if mode == "threads" else "threads"
    lines += ["", f"(This is for [discord] channel_mode = \"{mode}\"; \"{other}\" mode needs "
              f"permissions integer {permissions(other).value}.) Also enable the Server "
              "Members and Message Content intents (developer portal > Bot)."]
    return "\n".join(lines)


def missing_in(guild: discord.Guild, mode: str) -> list[str]:
    """The permissions (labels) the bot lacks in `guild` for `mode`."""
    have = guild.me.guild_permissions
    return [label(name) for name in needed(mode) if not getattr(have, name)]
