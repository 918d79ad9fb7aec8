"""The spectator feed on Discord: a channel anyone may read and only the bot writes in.

A feed (bot/feed.py) holds nothing secret when it is posted, so who reads it is the
server's choice (everyone, a spectators' role). Who *writes* in it is checked, at the start
and before every post, as the tables' readers are (bot/discord/visibility.py): a feed where
members can post is a chat beside the match, where a player could be told what happens at
their opponent's table. Only the bot, and those Discord lets write everywhere (the owner,
Administrator), may post there; otherwise the feed's messages are held and the hosts are
told which roles or members to deny Send Messages. The match itself never waits on its feed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.discord.launch import holding_match
from bot.discord.render import escape
from bot.discord.visibility import Readers, bot_missing
from games.core.contract import Game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

#: The permissions that let someone post in a feed channel (its threads included).
WRITING = ("send_messages", "send_messages_in_threads", "create_public_threads")


def _writes(channel: discord.TextChannel, who: discord.Member | discord.Role) -> bool:
    perms = channel.permissions_for(who)
    return perms.view_channel and any(getattr(perms, name) for name in WRITING)


def _may(who: discord.Member | discord.Role) -> bool:
    """Whether `who` may write in a feed: the bot, and those no channel can stop."""
    if isinstance(who, discord.Role):
        me = who.guild.me
        return who.permissions.administrator or (
            who.is_bot_managed() and who.tags is not None and who.tags.bot_id == me.id)
    return who.id == who.guild.me.id or who.id == who.guild.owner_id or \
        who.guild_permissions.administrator


def unintended_writers(channel: discord.TextChannel) -> Readers:
    """The roles and members (other than the bot) who can post in `channel`."""
    out = Readers()
    guild = channel.guild
    for role in guild.roles:
        if not _may(role) and _writes(channel, role):
            out.roles.append(role)
    one_by_one = {o.id for o in channel.overwrites if isinstance(o, discord.Member)}
    one_by_one |= {guild.me.id, guild.owner_id or 0}
    by_roles: dict[frozenset[int], list[discord.Member]] = {}
    for member in guild.members:
        if member.id in one_by_one:
            if not _may(member) and _writes(channel, member):
                out.members.append(member)
            continue
        by_roles.setdefault(frozenset(member._roles), []).append(member)
    for members in by_roles.values():
        first = members[0]  # the same roles: the same verdict for all of them
        if not _may(first) and _writes(channel, first):
            out.members.extend(members)
    out.members.sort(key=lambda m: m.id)
    return out


def writers_problem(channel: discord.TextChannel) -> str | None:
    """Why `channel` cannot be a feed (others can post in it), for the hosts, or None."""
    writers = unintended_writers(channel)
    if not writers:
        return None
    names = [("everyone" if r.is_default() else f"the role “{escape(r.name)}”")
             for r in writers.roles[:5]]
    names += [escape(m.display_name) for m in writers.members[:5]]
    more = len(writers.roles) + len(writers.members) - len(names)
    who = ", ".join(names) + (f" and {more} more" if more > 0 else "")
    return (f"The spectator feed {channel.mention} can be written in by {who}: only the bot "
            "may post in a feed. Deny them Send Messages (and thread permissions) there.")


def feed_problem(bot: UmpireBot, channel: discord.TextChannel) -> str | None:
    """Why `channel` cannot be the feed of a match being started, or None."""
    holder = holding_match(bot, channel.id)
    if holder is not None:
        return (f"{channel.mention} is {holder[1]} of match #{holder[0]}: a feed is a "
                "channel of its own. Name another one.")
    missing = bot_missing(channel)
    if missing:
        return (f"I cannot post in the feed {channel.mention}: I lack {', '.join(missing)} "
                "there. Give it to me (an overwrite for the bot), then start again.")
    return writers_problem(channel)


def feed_words(game: Game[Any]) -> str:
    """What a match's feed shows, as the game declares it (`contract.Reveals`), for the
    host who starts it: the room's lines while it runs, the reveal once it is over."""
    declared = type(game).reveals
    end = f"; once it is over, {declared.at_end}" if declared is not None else ""
    return f"the game room's lines while the match runs{end}"
