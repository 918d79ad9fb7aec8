"""The match's channels: a category with a public game room and one private table channel
per player (that player, the host role and the bot can see it; nobody else), the shared host
log (hosts only), and making them read-only when the match ends."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.transport import MatchInfo

log = logging.getLogger(__name__)

Target = discord.Role | discord.Member


def _bot_overwrite(guild: discord.Guild) -> discord.PermissionOverwrite:
    """What the bot needs in a match channel (only bits it has, as Discord requires)."""
    me = guild.me.guild_permissions
    return discord.PermissionOverwrite(
        view_channel=True, send_messages=True, read_message_history=True,
        embed_links=me.embed_links or None, attach_files=me.attach_files or None,
        manage_messages=me.manage_messages or None)


SEE_AND_WRITE = discord.PermissionOverwrite(view_channel=True, send_messages=True,
                                            read_message_history=True)
HIDDEN = discord.PermissionOverwrite(view_channel=False)


def host_role(guild: discord.Guild, name: str) -> discord.Role | None:
    return discord.utils.find(lambda r: r.name.lower() == name.lower(), guild.roles)


def private_overwrites(guild: discord.Guild, hosts: discord.Role | None,
                       extra: Sequence[Target] = ()) -> dict[Target, discord.PermissionOverwrite]:
    """Hidden from @everyone; visible to the host role, the bot and `extra`."""
    out: dict[Target, discord.PermissionOverwrite] = {guild.default_role: HIDDEN,
                                                      guild.me: _bot_overwrite(guild)}
    if hosts is not None:
        out[hosts] = SEE_AND_WRITE
    for target in extra:
        out[target] = SEE_AND_WRITE
    return out


async def log_channel(guild: discord.Guild, name: str, hosts: discord.Role | None,
                      invoker: discord.Member | None) -> discord.TextChannel:
    """The host log: an existing text channel of that name, else a new hosts-only one."""
    wanted = name.lower().replace(" ", "-")
    found = discord.utils.get(guild.text_channels, name=wanted)
    if found is not None:
        return found
    extra = [invoker] if invoker is not None and (hosts is None or hosts not in invoker.roles) else []
    return await guild.create_text_channel(
        wanted, overwrites=private_overwrites(guild, hosts, extra),
        topic="Umpire host log: every secret of every match, as it happens. Hosts only.",
        reason="umpire: host log")


@dataclass
class MatchChannels:
    room: discord.TextChannel
    tables: list[discord.TextChannel | None]
    log: discord.TextChannel
    category: discord.CategoryChannel | None = None
    created: list[int] = field(default_factory=list)

    def transport(self) -> dict[str, Any]:
        data: dict[str, Any] = {"guild": self.room.guild.id, "room": self.room.id,
                                "log": self.log.id, "created": self.created}
        for seat, table in enumerate(self.tables):
            data[f"table{seat}"] = table.id if table else None
        if self.category is not None:
            data["category"] = self.category.id
        return data

    async def delete_created(self) -> None:
        """Undo a start that failed after the channels were made."""
        guild = self.room.guild
        for cid in reversed(self.created):
            channel = guild.get_channel(cid)
            if channel is not None:
                try:
                    await channel.delete(reason="umpire: the match did not start")
                except discord.HTTPException:
                    log.warning("could not delete channel %s", cid)


async def create_match_channels(
    guild: discord.Guild, *, title: str, slug: str, players: Sequence[discord.Member | None],
    names: Sequence[str], hosts: discord.Role | None, invoker: discord.Member | None,
    log: discord.TextChannel, room: discord.TextChannel | None = None,
    tables: Sequence[discord.TextChannel | None] = (), category_prefix: str = "match",
) -> MatchChannels:
    """Room and tables (seat order), created where the host did not name existing ones.
    A seat played by a built-in bot (`players[seat]` None) gets no table channel."""
    given = list(tables) + [None] * (len(players) - len(tables))
    needed_tables = [s for s, m in enumerate(players) if m is not None and given[s] is None]
    created: list[int] = []
    category = None
    invoker_extra = [invoker] if invoker is not None and (
        hosts is None or hosts not in invoker.roles) else []
    if room is None or needed_tables:
        category = await guild.create_category(
            f"{category_prefix} {' vs '.join(names)}"[:100],
            overwrites={guild.me: _bot_overwrite(guild)}, reason="umpire: new match")
        created.append(category.id)
    if room is None:
        assert category is not None
        room = await guild.create_text_channel(
            f"{slug}-room", category=category,
            overwrites={guild.me: _bot_overwrite(guild)},
            topic=f"{title}: {' vs '.join(names)}. Public game room (spectators welcome).",
            reason="umpire: game room")
        created.append(room.id)
    out_tables: list[discord.TextChannel | None] = list(given)
    for seat in needed_tables:
        member = players[seat]
        assert member is not None and category is not None
        table = await guild.create_text_channel(
            f"table-{names[seat]}"[:100], category=category,
            overwrites=private_overwrites(guild, hosts, [member, *invoker_extra]),
            topic=f"{names[seat]}'s private table for {title}: your secret choices go here.",
            reason="umpire: private table channel")
        created.append(table.id)
        out_tables[seat] = table
    return MatchChannels(room=room, tables=out_tables, log=log, category=category,
                         created=created)


async def lock_match_channels(client: discord.Client | None, match: MatchInfo) -> bool:
    """Read-only once the match has ended: players (and, in channels the bot created,
    everyone) may no longer send; the channels stay for the record. False when the server is
    not known (yet); a channel that cannot be edited is logged and skipped."""
    if client is None:
        return False
    data = match.transport
    created = set(data.get("created") or [])
    guild = client.get_guild(int(data.get("guild") or 0))
    if guild is None:
        return False
    members = [guild.get_member(int(p.id.split(":", 1)[1])) for p in match.players
               if p.bot is None and p.id.startswith("discord:")]
    for key in ("room", "table0", "table1"):
        cid = data.get(key)
        channel = guild.get_channel(int(cid)) if cid else None
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
    return True
