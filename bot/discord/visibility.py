"""Who can read a channel or a thread now, from the bot's cached guild state, and who of
them a private message there is not meant for.

Reading follows Discord's rules through discord.py's own `permissions_for` (owner,
Administrator, roles, @everyone and role overwrites, member overwrites): a text channel is
read by whoever has View Channel there; a public thread by its parent's readers; a private
thread by its members and by whoever has Manage Threads in its parent (both with View
Channel in the parent). A role counts as a reader on its own when anyone given it would
read (that is how a spectators' role, or @everyone, leaks): only roles that make their
holders hosts (the host role, Administrator, Manage Server) and the bot's own role may.

Members are grouped by their set of roles (what they can read depends only on it, save for
the owner, member overwrites and thread membership, which are looked at one by one), so a
check costs one permission computation per distinct set of roles, not per member.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

import discord

from bot.discord.render import escape

Readable = discord.TextChannel | discord.Thread


@dataclass(frozen=True)
class Place:
    """Where a message would be read: the channel whose permissions apply (a thread's
    parent), and for a private thread who is in it."""

    channel: discord.abc.GuildChannel
    private_thread: bool = False
    thread_members: frozenset[int] = frozenset()
    #: How hosts are told where it is: a mention of the channel or thread.
    mention: str = ""

    @classmethod
    def of(cls, where: Readable, thread_members: Collection[int] = ()) -> Place:
        if isinstance(where, discord.Thread):
            parent = where.parent
            if parent is None:
                raise LookupError(f"the parent of thread {where.id} is not known")
            return cls(parent, where.type == discord.ChannelType.private_thread,
                       frozenset(thread_members), where.mention)
        return cls(where, mention=where.mention)

    @classmethod
    def future_private_thread(cls, room: discord.TextChannel,
                              members: Iterable[int]) -> Place:
        """A private thread not made yet in `room`, with these members."""
        return cls(room, True, frozenset(members), f"a private thread of {room.mention}")

    def can_read(self, who: discord.Member | discord.Role) -> bool:
        perms = self.channel.permissions_for(who)
        if not perms.view_channel:
            return False
        if not self.private_thread:
            return True
        return perms.manage_threads or (isinstance(who, discord.Member)
                                        and who.id in self.thread_members)


@dataclass(frozen=True)
class Intended:
    """Who may read a private message besides the bot: `members` by id (the seat's
    player), and hosts if `hosts`, except `barred` (the match's players: a host who plays
    never reads the opponent's table or the host log of their own match)."""

    members: frozenset[int] = frozenset()
    hosts: bool = True
    barred: frozenset[int] = frozenset()
    host_role_id: int | None = None

    def is_host(self, member: discord.Member) -> bool:
        perms = member.guild_permissions
        return perms.administrator or perms.manage_guild or \
            (self.host_role_id is not None and member.get_role(self.host_role_id) is not None)

    def allows(self, member: discord.Member) -> bool:
        if member.id in self.members:
            return True
        return self.hosts and member.id not in self.barred and self.is_host(member)

    def allows_role(self, role: discord.Role) -> bool:
        """A role whose every holder, now or later, would be an intended reader (the
        match's players are checked one by one as members)."""
        if role.is_default():
            return False
        if role.is_bot_managed() and role.tags is not None and \
                role.tags.bot_id == role.guild.me.id:
            return True
        perms = role.permissions
        return self.hosts and (role.id == self.host_role_id or perms.administrator
                               or perms.manage_guild)


@dataclass
class Readers:
    """Who can read a place and is not meant to."""

    roles: list[discord.Role] = field(default_factory=list)
    members: list[discord.Member] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.roles or self.members)


def unintended_readers(place: Place, intended: Intended) -> Readers:
    """The roles and members who can read `place` but are not `intended` (never the bot)."""
    guild = place.channel.guild
    me = guild.me
    out = Readers()
    for role in guild.roles:
        if place.can_read(role) and not intended.allows_role(role):
            out.roles.append(role)
    one_by_one = {o.id for o in place.channel.overwrites if isinstance(o, discord.Member)}
    one_by_one |= intended.members | intended.barred | place.thread_members | {guild.owner_id or 0}
    by_roles: dict[frozenset[int], list[discord.Member]] = {}
    for member in guild.members:
        if member.id == me.id:
            continue
        if member.id in one_by_one:
            if place.can_read(member) and not intended.allows(member):
                out.members.append(member)
            continue
        by_roles.setdefault(frozenset(member._roles), []).append(member)
    for members in by_roles.values():
        first = members[0]  # the same roles: the same verdict for all of them
        if place.can_read(first) and not intended.allows(first):
            out.members.extend(members)
    out.members.sort(key=lambda m: m.id)
    return out


def bot_missing(where: Readable) -> list[str]:
    """What the bot lacks to post in `where` (labels as Discord's settings name them)."""
    perms = where.permissions_for(where.guild.me)
    missing = [] if perms.view_channel else ["View Channel"]
    if isinstance(where, discord.Thread):
        if not perms.send_messages_in_threads:
            missing.append("Send Messages in Threads")
        if where.locked and not perms.manage_threads:
            missing.append("Manage Threads (the thread is locked)")
    elif not perms.send_messages:
        missing.append("Send Messages")
    return missing


def _role_name(role: discord.Role) -> str:
    return "everyone" if role.is_default() else f"the role “{escape(role.name)}”"


def describe(place: Place, readers: Readers, intended: Intended) -> str:
    """`readers`, named, with why each may read where that is not plain View Channel
    (Administrator, Manage Threads, a player of the match, a channel synced with its
    category)."""
    names: list[str] = []
    for role in readers.roles[:5]:
        why = []
        perms = role.permissions
        if perms.administrator:
            why.append("Administrator")
        elif place.private_thread:
            why.append(f"Manage Threads in {place.channel.mention}")
        names.append(_role_name(role) + (f" ({', '.join(why)})" if why else ""))
    for member in readers.members[:5]:
        why = ["a player of this match" if member.id in intended.barred else "not a host"]
        if member.guild_permissions.administrator or member.id == member.guild.owner_id:
            why.append("Administrator reads every channel")
        elif place.private_thread and member.id not in place.thread_members:
            why.append(f"Manage Threads in {place.channel.mention}")
        names.append(f"{escape(member.display_name)} ({', '.join(why)})")
    more = len(readers.roles) + len(readers.members) - len(names)
    text = ", ".join(names) + (f" and {more} more" if more > 0 else "")
    channel = place.channel
    category = getattr(channel, "category", None)
    if not place.private_thread and category is not None and \
            getattr(channel, "permissions_synced", False):
        text += (f" (its permissions are synced with its category “{escape(category.name)}”, "
                 "which does not hide it)")
    return text
