"""The match's channels: a category with a public game room and one private table channel
per player (that player, the host role and the bot can see it; nobody else, and never the
opponent, even one who holds the host role), the shared host log (hosts only; every player
of a running match is denied it by a member overwrite, so that one made a host mid-match
still reads nothing of their match), checks of channels a host names, and making
them read-only when the match ends."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.discord.keeper import record_room, record_table, record_thread
from bot.discord.overwrites import HIDDEN, SEE_AND_WRITE, bot_overwrite
from bot.discord.render import shown, user_id_of
from bot.discord.visibility import Intended, Place, describe, unintended_readers
from bot.transport import MatchInfo

log = logging.getLogger(__name__)

Target = discord.Role | discord.Member


def host_role(guild: discord.Guild, name: str) -> discord.Role | None:
    return discord.utils.find(lambda r: r.name.lower() == name.lower(), guild.roles)


def private_overwrites(guild: discord.Guild, hosts: discord.Role | None,
                       extra: Sequence[Target] = ()) -> dict[Target, discord.PermissionOverwrite]:
    """Hidden from @everyone; visible to the host role, the bot and `extra`."""
    out: dict[Target, discord.PermissionOverwrite] = {guild.default_role: HIDDEN,
                                                      guild.me: bot_overwrite(guild)}
    if hosts is not None:
        out[hosts] = SEE_AND_WRITE
    for target in extra:
        out[target] = SEE_AND_WRITE
    return out


def is_host_member(member: discord.Member, hosts: discord.Role | None) -> bool:
    perms = member.guild_permissions
    return perms.administrator or perms.manage_guild or (hosts is not None and hosts in member.roles)


def sees_everything(member: discord.Member) -> bool:
    """Owner and Administrator: no channel overwrite can hide anything from them."""
    return member.guild_permissions.administrator or member.id == member.guild.owner_id


async def log_channel(guild: discord.Guild, name: str,
                      hosts: discord.Role | None) -> tuple[discord.TextChannel | None, str | None]:
    """The host log: an existing text channel of that name if only hosts and the bot can read
    it, else a new hosts-only one. (None, why) when the existing one is not private."""
    wanted = name.lower().replace(" ", "-")
    found = discord.utils.get(guild.text_channels, name=wanted)
    if found is not None:
        problem = log_problem(found, hosts)
        return (None, problem) if problem else (found, None)
    return await guild.create_text_channel(
        wanted, overwrites=private_overwrites(guild, hosts),  # type: ignore[arg-type]  # (Role | Member keys: discord.py's Mapping is invariant)
        topic="Umpire host log: every secret of every match, as it happens. Hosts only.",
        reason="umpire: host log"), None


def log_problem(host_log: discord.TextChannel, hosts: discord.Role | None) -> str | None:
    """Why an existing host log may not be used: someone but hosts and the bot can read it."""
    guild = host_log.guild
    if host_log.permissions_for(guild.default_role).view_channel:
        return (f"Everyone can read the host log {host_log.mention}, which gets every secret of "
                "every match: hide it from @everyone and let only the host role see it.")
    readers = [m for m in guild.members if not m.bot and host_log.permissions_for(m).view_channel
               and not is_host_member(m, hosts)]
    if readers:
        names = ", ".join(shown(m) for m in readers[:5])
        return (f"The host log {host_log.mention} can be read by {names}, who "
                f"{'is' if len(readers) == 1 else 'are'} not a host: only hosts and the bot "
                "may read it.")
    intended = Intended(host_role_id=hosts.id if hosts is not None else None)
    others = unintended_readers(Place.of(host_log), intended)  # roles anyone could be given
    if others:
        return (f"The host log {host_log.mention} can be read by "
                f"{describe(Place.of(host_log), others, intended)}: only hosts and the bot "
                "may read it.")
    return None


def named_channel_problems(
    guild: discord.Guild, *, room: discord.TextChannel | None,
    tables: Sequence[discord.TextChannel | None], players: Sequence[discord.Member | None],
    names: Sequence[str], log_name: str, log_id: int | None = None,
    host_role_id: int | None = None,
) -> list[str]:
    """What is wrong with the channels a host named for a match (empty: nothing): every
    channel distinct, no table or room doubling as the host log, and each table private to
    its player (neither @everyone nor the opponent can read it, nor anyone else but the hosts
    who do not play, nor a role anyone could be given; the player and the bot can write in
    it)."""
    out: list[str] = []
    labels = [("room", room), *((f"table{s + 1}", t) for s, t in enumerate(tables))]
    given = [(label, ch) for label, ch in labels if ch is not None]
    for i, (label, ch) in enumerate(given):
        for other, ch2 in given[:i]:
            if ch.id == ch2.id:
                out.append(f"{other} and {label} are the same channel ({ch.mention}): the room "
                           "and each player's table must be different channels.")
        if ch.id == log_id or (log_id is None and ch.name == log_name.lower().replace(" ", "-")):
            out.append(f"{ch.mention} is the host log; it cannot be the {label}.")
    me = guild.me
    for seat, table in enumerate(tables):
        if table is None or seat >= len(players) or players[seat] is None:
            continue
        member = players[seat]
        assert member is not None
        label = f"table{seat + 1}"
        found = len(out)
        if table.permissions_for(guild.default_role).view_channel:
            out.append(f"Everyone can read {table.mention}, so it cannot be {names[seat]}'s "
                       f"private table: hide it from @everyone, or leave {label} out and I "
                       "create one.")
        for rival, opponent in enumerate(players):
            if rival != seat and opponent is not None and \
                    table.permissions_for(opponent).view_channel:
                out.append(f"{names[rival]} can read {table.mention}, the table of their "
                           f"opponent {names[seat]}: pick a channel only {names[seat]} can read.")
        rights = table.permissions_for(member)
        if not (rights.view_channel and rights.send_messages):
            out.append(f"{names[seat]} cannot write in {table.mention}, their table.")
        mine = table.permissions_for(me)
        if not (mine.view_channel and mine.send_messages):
            out.append(f"I cannot post in {table.mention}; give me View Channel and Send "
                       "Messages there.")
        if len(out) > found:
            continue  # said already, more plainly
        ids = frozenset(p.id for p in players if p is not None)
        intended = Intended(members=frozenset({member.id}), barred=ids - {member.id},
                            host_role_id=host_role_id)
        others = unintended_readers(Place.of(table), intended)
        if others:
            out.append(f"{table.mention} can be read by "
                       f"{describe(Place.of(table), others, intended)}, so it cannot be "
                       f"{names[seat]}'s private table: only they, the hosts and I may read it.")
    return out


Pair = list[int] | None  # a stored overwrite: [allow, deny] bits, or None (none)


def _pair(overwrite: discord.PermissionOverwrite | None) -> Pair:
    if overwrite is None or overwrite.is_empty():
        return None
    allow, deny = overwrite.pair()
    return [allow.value, deny.value]


def _is_shut_out(overwrite: discord.PermissionOverwrite | None) -> bool:
    return overwrite is not None and _pair(overwrite) == _pair(HIDDEN)


async def shut_out_of_log(host_log: discord.TextChannel, players: Sequence[discord.Member | None],
                          denied_elsewhere: Mapping[int, Pair]) -> dict[str, Pair]:
    """Deny every player of a match the host log while it runs: a player who is a host, or
    is made one mid-match, must never read their own match's secrets there. Returns, per
    user id, the overwrite to put back when it ends: the one they had, or the one another
    running match of theirs (`denied_elsewhere`) will put back."""
    out: dict[str, Pair] = {}
    for member in players:
        if member is None:
            continue
        current = host_log.overwrites_for(member)
        if member.id in denied_elsewhere and _is_shut_out(current):
            out[str(member.id)] = denied_elsewhere[member.id]
            continue
        out[str(member.id)] = _pair(current)
        if _is_shut_out(current):
            continue
        await host_log.set_permissions(member, overwrite=HIDDEN,
                                       reason="umpire: a player never reads the host log of "
                                              "their match")
    return out


async def let_back_into_log(host_log: discord.TextChannel,
                            denied: Mapping[str, Pair] | Sequence[int],
                            still_playing: frozenset[int] = frozenset()) -> None:
    """Undo `shut_out_of_log` for players not `still_playing` another running match: put
    back the overwrite each had (unless someone changed ours since)."""
    if not isinstance(denied, Mapping):  # an older record: a list of user ids
        denied = {str(uid): None for uid in denied}
    for uid, before in denied.items():
        member = host_log.guild.get_member(int(uid))
        if member is None or int(uid) in still_playing or \
                not _is_shut_out(host_log.overwrites_for(member)):
            continue  # gone, playing on, or someone changed the overwrite since: leave it
        back = None if before is None else discord.PermissionOverwrite.from_pair(
            discord.Permissions(before[0]), discord.Permissions(before[1]))
        try:
            await host_log.set_permissions(member, overwrite=back,
                                           reason="umpire: the match this host played ended")
        except discord.HTTPException as exc:
            log.warning("could not let %s back into the host log: %s", uid, exc)


Table = discord.TextChannel | discord.Thread


@dataclass
class MatchChannels:
    room: discord.TextChannel
    tables: list[Table | None]
    log: discord.TextChannel
    category: discord.CategoryChannel | None = None
    created: list[int] = field(default_factory=list)
    mode: str = "channels"  # or "threads": the tables are private threads in the room
    #: Made by this start but kept for later matches (the bot's category of game rooms):
    #: removed only if the start fails.
    shared: list[int] = field(default_factory=list)
    note: str | None = None  # for the host: why the tables are not threads, say
    #: What the channel keeper keeps of the channels made (bot/discord/keeper.py), by id.
    kept: dict[str, Any] = field(default_factory=dict)

    def transport(self) -> dict[str, Any]:
        data: dict[str, Any] = {"guild": self.room.guild.id, "room": self.room.id,
                                "log": self.log.id, "created": self.created, "mode": self.mode,
                                "kept": self.kept}
        for seat, table in enumerate(self.tables):
            data[f"table{seat}"] = table.id if table else None
        if self.category is not None and self.mode == "channels":
            data["category"] = self.category.id
        return data

    async def delete_created(self) -> None:
        """Undo a start that failed after the channels were made."""
        await _delete_channels(self.room.guild, [*self.shared, *self.created])


async def create_match_channels(
    guild: discord.Guild, *, title: str, slug: str, players: Sequence[discord.Member | None],
    names: Sequence[str], hosts: discord.Role | None, log: discord.TextChannel,
    room: discord.TextChannel | None = None,
    tables: Sequence[discord.TextChannel | None] = (), category_prefix: str = "match",
    mode: str = "channels",
) -> MatchChannels:
    """Room and tables (seat order), created where the host did not name existing ones.
    A seat played by a built-in bot (`players[seat]` None) gets no table channel. In
    "threads" `mode` the tables are private threads in the room (bot/discord/threads.py)."""
    given = list(tables) + [None] * (len(players) - len(tables))
    needed_tables = [s for s, m in enumerate(players) if m is not None and given[s] is None]
    created: list[int] = []
    shared: list[int] = []
    try:
        if mode == "threads":
            return await _create_threaded(guild, title=title, slug=slug, players=players,
                                          names=names, log=log, room=room, given=given,
                                          needed_tables=needed_tables,
                                          category_prefix=category_prefix, created=created,
                                          shared=shared)
        return await _create(guild, title=title, slug=slug, players=players, names=names,
                             hosts=hosts, log=log, room=room, given=given,
                             needed_tables=needed_tables, category_prefix=category_prefix,
                             created=created)
    except Exception:  # all or nothing: remove what was made before the failure
        await _delete_channels(guild, [*shared, *created])
        raise


async def _create_threaded(
    guild: discord.Guild, *, title: str, slug: str, players: Sequence[discord.Member | None],
    names: Sequence[str], log: discord.TextChannel, room: discord.TextChannel | None,
    given: list[discord.TextChannel | None], needed_tables: list[int], category_prefix: str,
    created: list[int], shared: list[int],
) -> MatchChannels:
    from bot.discord.threads import create_table, room_overwrites, rooms_category

    category = None
    kept: dict[str, Any] = {}
    if room is None:
        category = await rooms_category(guild, f"{category_prefix} rooms"[:100],
                                        bot_overwrite(guild), shared)
        overwrites = room_overwrites(guild, bot_overwrite(guild))
        room = await guild.create_text_channel(
            f"{slug}-{'-vs-'.join(names)}"[:100], category=category, overwrites=overwrites,  # type: ignore[arg-type]  # (Role | Member keys: discord.py's Mapping is invariant)
            topic=f"{title}: {' vs '.join(names)}. Public game room (spectators welcome); "
                  "each player's table is a private thread here.",
            reason="umpire: game room")
        created.append(room.id)
        kept[str(room.id)] = record_room(overwrites)
    out_tables: list[Table | None] = list(given)
    for seat in needed_tables:
        member = players[seat]
        assert member is not None
        thread = await create_table(room, member, names[seat], title)
        created.append(thread.id)
        kept[str(thread.id)] = record_thread(seat)
        out_tables[seat] = thread
    return MatchChannels(room=room, tables=out_tables, log=log, category=category,
                         created=created, mode="threads", kept=kept)


async def _delete_channels(guild: discord.Guild, created: Sequence[int]) -> None:
    for cid in reversed(created):
        thread = guild.get_thread(cid)
        if thread is not None:
            try:
                await thread.delete()
            except discord.HTTPException:
                log.warning("could not delete thread %s", cid)
            continue
        channel = guild.get_channel(cid)
        if channel is not None:
            try:
                await channel.delete(reason="umpire: the match did not start")
            except discord.HTTPException:
                log.warning("could not delete channel %s", cid)


async def _create(
    guild: discord.Guild, *, title: str, slug: str, players: Sequence[discord.Member | None],
    names: Sequence[str], hosts: discord.Role | None, log: discord.TextChannel,
    room: discord.TextChannel | None, given: list[discord.TextChannel | None],
    needed_tables: list[int], category_prefix: str, created: list[int],
) -> MatchChannels:
    category = None
    if room is None or needed_tables:
        category = await guild.create_category(
            f"{category_prefix} {' vs '.join(names)}"[:100],
            overwrites={guild.me: bot_overwrite(guild)}, reason="umpire: new match")
        created.append(category.id)
    if room is None:
        assert category is not None
        room = await guild.create_text_channel(
            f"{slug}-room", category=category,
            overwrites={guild.me: bot_overwrite(guild)},
            topic=f"{title}: {' vs '.join(names)}. Public game room (spectators welcome).",
            reason="umpire: game room")
        created.append(room.id)
    out_tables: list[Table | None] = list(given)
    kept: dict[str, Any] = {}
    for seat in needed_tables:
        member = players[seat]
        assert member is not None and category is not None
        overwrites = private_overwrites(guild, hosts, [member])
        for other in players:  # an explicit deny beats the host role the opponent may hold
            if other is not None and other.id != member.id:
                overwrites[other] = HIDDEN
        table = await guild.create_text_channel(
            f"table-{names[seat]}"[:100], category=category, overwrites=overwrites,  # type: ignore[arg-type]  # (Role | Member keys: discord.py's Mapping is invariant)
            topic=f"{names[seat]}'s private table for {title}: your secret choices go here.",
            reason="umpire: private table channel")
        created.append(table.id)
        kept[str(table.id)] = record_table(seat, overwrites, hosts)
        out_tables[seat] = table
    return MatchChannels(room=room, tables=out_tables, log=log, category=category,
                         created=created, kept=kept)


async def lock_match_channels(client: discord.Client | None, match: MatchInfo,
                                        still_playing: frozenset[int] = frozenset(),
                                        skip: frozenset[int] = frozenset(), *,
                                        host_log: bool = True) -> bool:
    """Read-only once the match has ended: players (and, in channels the bot created,
    everyone) may no longer send; the channels stay for the record. Hosts who played get the
    host log back (unless they play another running match: `still_playing`). Channels in
    `skip` are left as they are (about to be deleted); `host_log` False leaves the host log
    as it is. False when the server is not known (yet); a channel that cannot be edited is
    logged and skipped."""
    if client is None:
        return False
    data = match.transport
    created = set(data.get("created") or [])
    guild = client.get_guild(int(data.get("guild") or 0))
    if guild is None:
        return False
    members = [guild.get_member(uid) for p in match.players
               if (uid := user_id_of(p)) is not None]
    for key in ("room", "table0", "table1"):
        cid = data.get(key)
        channel = guild.get_channel(int(cid)) if cid and int(cid) not in skip else None
        if not isinstance(channel, discord.TextChannel):
            continue
        overwrites = dict(channel.overwrites)
        targets: list[Target] = [m for m in members if m is not None]
        if channel.id in created:
            targets.append(guild.default_role)
        for target in targets:
            current = overwrites.get(target, discord.PermissionOverwrite())
            current.update(send_messages=False)
            overwrites[target] = current
        me = overwrites.get(guild.me, discord.PermissionOverwrite())
        me.update(send_messages=True, view_channel=True)
        overwrites[guild.me] = me
        try:
            await channel.edit(overwrites=overwrites, reason="umpire: the match has ended")
        except discord.HTTPException as exc:
            log.warning("could not make channel %s read-only: %s", channel.id, exc)
    if data.get("mode") == "threads":  # the tables: locked (read-only), archived later
        from bot.discord.threads import set_tables

        await set_tables(client, [t for t in (data.get("table0"), data.get("table1"))
                                  if t and int(t) not in skip], locked=True,
                         reason="umpire: the match has ended")
    log_channel = guild.get_channel(int(data.get("log") or 0)) if host_log else None
    if isinstance(log_channel, discord.TextChannel):
        await let_back_into_log(log_channel, data.get("log_denied") or {}, still_playing)
    return True
