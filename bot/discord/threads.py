"""Tables as private threads: in "threads" mode a match gets one game room (in a category
the bot keeps, "<prefix>es", a new one each 50 rooms, Discord's limit per category) and each
player's table is a private thread in that room, not invitable, with only that player (and
the bot) added. Only thread members and those with Manage Threads can read a private thread,
so the room denies Manage Threads to @everyone: no player, spectator or moderator reads a
table (the server owner and Administrators see everything, as with channels). Threads do not
count towards Discord's 500-channel limit.

Once the match ends its threads are locked (read-only); after the archive delay they are
archived and stay locked; `/match delete` deletes them."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence

import discord

log = logging.getLogger(__name__)

ROOMS_PER_CATEGORY = 50  # Discord's limit of channels in one category
AUTO_ARCHIVE_MINUTES = 10080  # a week: the bot archives ended matches itself


def room_overwrites(guild: discord.Guild,
                    bot: discord.PermissionOverwrite) -> dict[discord.Role | discord.Member,
                                                               discord.PermissionOverwrite]:
    """The game room: public, but nobody moderates its threads (Manage Threads reads every
    private thread) except the bot, which makes, locks and deletes the tables."""
    mine = discord.PermissionOverwrite(**dict(bot))
    mine.update(manage_threads=True, create_private_threads=True, send_messages_in_threads=True)
    return {guild.default_role: discord.PermissionOverwrite(manage_threads=False),
            guild.me: mine}


async def rooms_category(guild: discord.Guild, name: str, bot: discord.PermissionOverwrite,
                         created: list[int]) -> discord.CategoryChannel:
    """The bot's category for game rooms with room for one more channel; a new one (its id
    added to `created`) when every one of that name is full."""
    for category in guild.categories:
        if category.name == name and len(category.channels) < ROOMS_PER_CATEGORY:
            return category
    category = await guild.create_category(name, overwrites={guild.me: bot},
                                           reason="umpire: a category for game rooms")
    created.append(category.id)
    return category


async def create_table(room: discord.TextChannel, member: discord.Member, name: str,
                       title: str) -> discord.Thread:
    """`member`'s private table: a thread in the room that only they (and the bot) are in.
    If adding them fails the thread is deleted again."""
    thread = await room.create_thread(
        name=f"table-{name}"[:100], type=discord.ChannelType.private_thread, invitable=False,
        auto_archive_duration=AUTO_ARCHIVE_MINUTES,
        reason=f"umpire: {name}'s private table for {title}")
    try:
        await thread.add_user(member)
    except discord.HTTPException:
        with contextlib.suppress(discord.HTTPException):
            await thread.delete()
        raise
    return thread


async def set_tables(client: discord.Client, thread_ids: Sequence[int | None], *,
                     reason: str, archived: bool | None = None, locked: bool | None = None,
                     delete: bool = False) -> None:
    """Lock, archive or delete table threads by id (archived threads are not in discord.py's
    cache, so this goes by id). A thread already gone is skipped; other failures are logged."""
    for tid in thread_ids:
        if not tid:
            continue
        try:
            if delete:
                await client.http.delete_channel(int(tid), reason=reason)
            else:
                changes = {k: v for k, v in (("archived", archived), ("locked", locked))
                           if v is not None}
                await client.http.edit_channel(int(tid), reason=reason, **changes)
        except discord.NotFound:
            continue
        except discord.HTTPException as exc:
            log.warning("could not change table thread %s: %s", tid, exc)
