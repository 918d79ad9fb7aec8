"""Tables as private threads: in "threads" mode a match gets one game room (in a category
the bot keeps, "<prefix>es", a new one each 50 rooms, Discord's limit per category) and each
player's table is a private thread in that room, not invitable, with only that player (and
the bot) added. Only thread members and those with Manage Threads can read a private thread,
so the room denies Manage Threads to @everyone: no player, spectator or moderator reads a
table (the server owner and Administrators see everything, as with channels). Threads do not
count towards Discord's 500-channel limit.

Who else could read a table is checked at the start (`readers_problem`: a named room where
someone who is not a host, or a player, has Manage Threads is refused) and before every
post (bot/discord/transport.py). A player who leaves their table thread is added back on
their next message in the room or `/mine` (`rejoin`).

Once the match ends its threads are locked (read-only); after the archive delay they are
archived and stay locked; `/match delete` deletes them."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.discord.render import player_id, shown
from bot.discord.visibility import Intended, Place, Readers, describe, unintended_readers
from bot.status import RUNNING

if TYPE_CHECKING:
    from bot.discord.transport import DiscordTransport

log = logging.getLogger(__name__)

ROOMS_PER_CATEGORY = 50  # Discord's limit of channels in one category
AUTO_ARCHIVE_MINUTES: Final = 10080  # a week: the bot archives ended matches itself


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


def readers_problem(room: discord.TextChannel, players: Sequence[discord.Member | None],
                    host_role_id: int | None) -> str | None:
    """Why private table threads in `room` would not be private (None: they would be):
    whoever has Manage Threads there reads every private thread of the room. Hosts who do
    not play may; a player, or anyone else, may not."""
    ids = frozenset(m.id for m in players if m is not None)
    found = Readers()
    intended = Intended(host_role_id=host_role_id)
    for member in players:
        if member is None:
            continue
        intended = Intended(members=frozenset({member.id}), barred=ids - {member.id},
                            host_role_id=host_role_id)
        place = Place.future_private_thread(room, {member.id, room.guild.me.id})
        readers = unintended_readers(place, intended)
        found.roles += [r for r in readers.roles if r not in found.roles]
        found.members += [m for m in readers.members if m not in found.members]
    if not found:
        return None
    playing = [m for m in found.members if m.id in ids]
    if playing:
        names = ", ".join(shown(m) for m in playing)
        return (f"{names} {'has' if len(playing) == 1 else 'have'} Manage Threads in "
                f"{room.mention}, so they could read their opponent's private table thread "
                "there: deny it to them in that channel, or leave `room` out and I create one.")
    place = Place.future_private_thread(room, ids)
    return (f"A private table thread in {room.mention} could be read by "
            f"{describe(place, found, intended)}: Manage Threads reads every private thread "
            "of a channel. Deny it to them there, leave `room` out and I create one, or set "
            "`/umpire settings channel_mode:channels`.")


async def rejoin(transport: DiscordTransport, guild: discord.Guild, match: Any,
                 member: discord.Member) -> bool:
    """Add `member` back to their table thread in a threads-mode match if they left it
    (a private thread that is not invitable: only the bot can). True if it did."""
    seat = match.seat_of(player_id(member.id))
    if seat is None or match.transport.get("mode") != "threads" or \
            match.status not in RUNNING:
        return False
    thread = guild.get_thread(int(match.transport.get(f"table{seat}") or 0))
    if thread is None:
        return False
    try:
        if member.id in await transport.privacy.thread_members(thread):
            return False
        await thread.add_user(member)
    except Exception as exc:  # a failure here must not stop the move being handled
        log.warning("could not add %s back to thread %s: %s", member.id, thread.id, exc)
        return False
    log.info("match %s: added %s back to their table thread", match.id, member.id)
    return True
