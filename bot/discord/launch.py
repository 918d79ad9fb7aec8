"""Starting a match on Discord, all or nothing: the bot's permissions checked first (each
missing one named), the host log found or made, the room and tables created (or the named
channels used), the service's match started; whatever this start made is removed if a
later step fails. Used by `/match start`, `/challenge` and the Rematch button."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.channels import (
    MatchChannels,
    create_match_channels,
    let_back_into_log,
    log_channel,
    log_problem,
    named_channel_problems,
    shut_out_of_log,
)
from bot.discord.errors import Refusal
from bot.discord.options import validate_settings
from bot.discord.preflight import missing_permissions, missing_text, missing_thread_permissions
from bot.discord.threads import readers_problem
from bot.live import LiveMatch
from bot.transport import PlayerRef
from games.core.contract import Game

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot


async def launch(bot: UmpireBot, guild: discord.Guild, found: Game[Any],
                 members: Sequence[discord.Member | None], refs: Sequence[PlayerRef],
                 parsed: Mapping[str, Any], seed: str | None, *,
                 room: discord.TextChannel | None = None,
                 given_tables: Sequence[discord.TextChannel | None] = (None, None),
                 extra: Mapping[str, Any] | None = None) -> tuple[LiveMatch, MatchChannels]:
    """Start `found` with `refs` in seat order (seat 0 = the advantage) on `guild`; `extra`
    goes into the match's transport data (e.g. that it is a friendly match)."""
    named = [("room", room), *((f"table{seat + 1}", t) for seat, t in enumerate(given_tables))]
    held = held_channel_problems(bot, named)
    if held:
        raise Refusal("A channel serves one match at a time:\n- " + "\n- ".join(held))
    claimed = {ch.id for _, ch in named if ch is not None}
    if claimed & bot.archives.starting:  # another start under way named it first
        raise Refusal("Another match is being started in a channel you named; wait for it, "
                      "then name another channel.")
    bot.archives.starting.update(claimed)
    try:
        return await _launch(bot, guild, found, members, refs, parsed, seed, room=room,
                             given_tables=given_tables, extra=extra)
    finally:
        bot.archives.starting.difference_update(claimed)


async def _launch(bot: UmpireBot, guild: discord.Guild, found: Game[Any],
                  members: Sequence[discord.Member | None], refs: Sequence[PlayerRef],
                  parsed: Mapping[str, Any], seed: str | None, *,
                  room: discord.TextChannel | None,
                  given_tables: Sequence[discord.TextChannel | None],
                  extra: Mapping[str, Any] | None) -> tuple[LiveMatch, MatchChannels]:
    members, given_tables, parsed = list(members), list(given_tables), dict(parsed)
    settings_d = bot.settings.discord
    config = await bot.guild_config(guild.id)
    defaults = config.game_settings(found.slug)
    if defaults:  # the server's default settings for the game, overridden key by key
        parsed = validate_settings(found, json.dumps({**defaults, **parsed}))
    hosts = config.host_role(guild)
    log_name = config.log_channel_name()
    set_log = config.log_channel(guild)
    problems = named_channel_problems(guild, room=room, tables=given_tables,
                                      players=members, names=[r.name for r in refs],
                                      log_name=log_name, log_id=set_log.id if set_log else None,
                                      host_role_id=hosts.id if hosts is not None else None)
    if problems:
        raise Refusal("I cannot use the channels you named:\n- " + "\n- ".join(problems))
    existing_log = set_log or (None if config.stored.log_channel_id is not None else
                               discord.utils.get(guild.text_channels,
                                                 name=log_name.lower().replace(" ", "-")))
    creates = room is None or existing_log is None or any(
        m is not None and t is None for m, t in zip(members, given_tables, strict=True))
    if existing_log is not None and (problem := log_problem(existing_log, hosts)):
        raise Refusal(problem)
    lacking = missing_permissions(guild, creates=creates,
                                  named=[room, *given_tables, existing_log])
    if lacking:
        raise Refusal(missing_text(lacking))
    mode, mode_note = table_mode(guild, config.channel_mode,
                                 explicit=config.stored.channel_mode is not None, room=room,
                                 given_tables=given_tables, members=members,
                                 host_role_id=hosts.id if hosts is not None else None)
    if mode_note:
        log.info("server %s: %s", guild.id, mode_note)
    if set_log is not None:
        problem = log_problem(set_log, hosts)
        log_ch = None if problem else set_log
    elif config.stored.log_channel_id is not None:
        log_ch, problem = None, ("The host log set for this server no longer exists: a "
                                 "member with Manage Server sets another with "
                                 "`/umpire settings log_channel:`.")
    else:
        log_ch, problem = await log_channel(guild, log_name, hosts)
    if log_ch is None:
        raise Refusal(problem or "The host log cannot be used.")
    new_log = log_ch if existing_log is None else None  # made by this start
    channels: MatchChannels | None = None
    transport: dict[str, Any] = {}
    try:  # all or nothing: whatever this start made is removed if a later step fails
        channels = await create_match_channels(
            guild, title=found.title, slug=found.slug, players=members,
            names=[r.name for r in refs], hosts=hosts, log=log_ch, room=room,
            tables=given_tables, category_prefix=settings_d.category_prefix, mode=mode)
        channels.note = mode_note
        transport = {**channels.transport(), **(extra or {})}
        try:
            elsewhere = {int(uid): before for m in bot.api.running()
                         if isinstance(m.transport.get("log_denied"), dict)
                         for uid, before in m.transport["log_denied"].items()}
            transport["log_denied"] = await shut_out_of_log(log_ch, members, elsewhere)
        except discord.HTTPException as exc:
            raise Refusal(f"I could not hide the host log {log_ch.mention} from the players "
                          "(give me Manage Roles there); the match did not start.") from exc
        live = await bot.service.start_match(found.slug, refs, advantage=0, settings=parsed,
                                             seed=seed, transport=transport)
    except Exception as exc:
        if channels is not None:
            await channels.delete_created()
        with contextlib.suppress(discord.HTTPException):
            await let_back_into_log(log_ch, transport.get("log_denied") or {})
        if new_log is not None:
            with contextlib.suppress(discord.HTTPException):
                await new_log.delete(reason="umpire: the match did not start")
        if isinstance(exc, discord.HTTPException):
            raise Refusal("Discord refused a step of the start "
                          f"({exc.status}: {exc.text or 'no reason given'}); everything "
                          "I had made for it was removed, nothing was started. Try "
                          "again.") from exc
        raise
    if new_log is not None:  # kept as it was made from now on (bot/discord/keeper.py)
        await bot.keeper.made_log(guild, new_log, hosts)
    bot.routing.index_match(live.id, live.transport)
    assert channels is not None
    return live, channels


def held_channel_problems(bot: UmpireBot,
                          named: Sequence[tuple[str, discord.TextChannel | None]]) -> list[str]:
    """The named channels that already belong to a running match (its room, a table, or a
    thread of its room), each with the match that holds it: a second match there would take
    the first one's moves and buttons."""
    out = []
    for label, channel in named:
        if channel is None:
            continue
        holder = holding_match(bot, channel.id)
        if holder is not None:
            match_id, what = holder
            out.append(f"{channel.mention} ({label}) is {what} of match #{match_id}, which is "
                       "still running: name another channel, or leave it out and I create one.")
    return out


def holding_match(bot: UmpireBot, channel_id: int) -> tuple[int, str] | None:
    """(match id, "the room" | "a table") of the running match a channel belongs to."""
    for match in bot.api.running():
        t = match.transport
        if t.get("room") and int(t["room"]) == channel_id:
            return match.id, "the room"
        if any(t.get(f"table{s}") and int(t[f"table{s}"]) == channel_id for s in (0, 1)):
            return match.id, "a table"
    return None


def table_mode(guild: discord.Guild, setting: str, *, explicit: bool,
               room: discord.TextChannel | None,
               given_tables: Sequence[discord.TextChannel | None],
               members: Sequence[discord.Member | None],
               host_role_id: int | None = None) -> tuple[str, str | None]:
    """("threads" | "channels", a note for the host or None). Tables are private threads
    where the setting says so and the bot may make them; a server that chose nothing falls
    back to channels (and the host is told why), one whose host chose threads is refused with
    the missing permissions named. Tables a host named are channels."""
    wants_tables = [m is not None and t is None for m, t in zip(members, given_tables,
                                                                 strict=True)]
    if setting != "threads" or any(t is not None for t in given_tables) or \
            not any(wants_tables):
        return "channels", None
    lacking = missing_thread_permissions(guild, room)
    if not lacking:
        problem = room is not None and readers_problem(room, members, host_role_id)
        if problem:  # Manage Threads reads every private thread of the room
            raise Refusal(problem)
        return "threads", None
    where = f"in {room.mention}" if room is not None else "in this server"
    if explicit:
        raise Refusal(missing_text([f"{where} (tables are private threads on this server): "
                                    f"{', '.join(lacking)}"]) +
                      "\nOr a member with Manage Server sets `/umpire settings "
                      "channel_mode:channels` (tables as channels).")
    return "channels", (f"Tables are channels: I may not make private threads {where} "
                        f"(missing {', '.join(lacking)}).")
