"""What the bot must be allowed to do before `/match start` creates anything, checked up
front so a host learns exactly which permissions are missing (and nothing is half made)."""

from __future__ import annotations

from collections.abc import Sequence

import discord

#: Server-level permissions needed to create a match's category and channels with their
#: permission overwrites, and to post in them (embeds carry the helper notes).
TO_CREATE = ("view_channel", "send_messages", "read_message_history", "embed_links",
             "manage_channels", "manage_roles")
#: Needed in a channel a host named (the room or a table), where nothing is created.
TO_POST = ("view_channel", "send_messages", "read_message_history", "embed_links")


#: Needed (server-wide, or in a room a host named) for tables as private threads: create
#: them, post in them, and add the player to a thread no one else may invite to, lock it.
TO_THREAD = ("create_private_threads", "send_messages_in_threads", "manage_threads")


def label(permission: str) -> str:
    """`manage_channels` -> `Manage Channels` (as Discord's settings name them)."""
    return {"view_channel": "View Channels",
            "send_messages_in_threads": "Send Messages in Threads"}.get(
        permission, permission.replace("_", " ").title())


def missing_thread_permissions(guild: discord.Guild,
                               room: discord.abc.GuildChannel | None = None) -> list[str]:
    """The permissions (labels) the bot lacks to make private table threads: in `room` when
    a host named one, else server-wide (the room it creates inherits them)."""
    have = room.permissions_for(guild.me) if room is not None else guild.me.guild_permissions
    return [label(p) for p in TO_THREAD if not getattr(have, p)]


def missing_permissions(guild: discord.Guild, *, creates: bool,
                        named: Sequence[discord.abc.GuildChannel | None] = ()) -> list[str]:
    """Lines naming each missing permission: server-wide ones when the bot must create
    channels (or the host log), and per channel a host named."""
    me = guild.me
    out: list[str] = []
    if creates:
        have = me.guild_permissions
        lacking = [label(p) for p in TO_CREATE if not getattr(have, p)]
        if lacking:
            out.append(f"in this server: {', '.join(lacking)}")
    for channel in named:
        if channel is None:
            continue
        have = channel.permissions_for(me)
        lacking = [label(p) for p in TO_POST if not getattr(have, p)]
        if lacking:
            out.append(f"in {channel.mention}: {', '.join(lacking)}")
    return list(dict.fromkeys(out))


def missing_text(lines: Sequence[str]) -> str:
    return ("I cannot start the match: I am missing permissions\n- " + "\n- ".join(lines) +
            "\nGive them to my role (Server Settings > Roles, or the channel's permissions) "
            "and start again. Nothing was created.")
