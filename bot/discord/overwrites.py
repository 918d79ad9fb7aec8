"""The permission overwrites of a match's channels: the bot's own, see-and-write (a player,
the host role) and hidden. The channels that are made (bot/discord/channels.py) and the
keeper that puts them back (bot/discord/keeper.py) both use them."""

from __future__ import annotations

import discord


def bot_overwrite(guild: discord.Guild) -> discord.PermissionOverwrite:
    """What the bot needs in a match channel (only bits it has, as Discord requires)."""
    me = guild.me.guild_permissions
    return discord.PermissionOverwrite(
        view_channel=True, send_messages=True, read_message_history=True,
        embed_links=me.embed_links or None, attach_files=me.attach_files or None,
        manage_messages=me.manage_messages or None)


SEE_AND_WRITE = discord.PermissionOverwrite(view_channel=True, send_messages=True,
                                            read_message_history=True)
HIDDEN = discord.PermissionOverwrite(view_channel=False)
