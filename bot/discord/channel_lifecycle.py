"""What happens to a match's channels after it ends, and to a table deleted while it runs.

- **Archive** (the server's archive delay after the end, `/umpire settings
  archive_delay_minutes:`): the transcript goes to the host log first (a file), then the
  channels the bot created for the match are deleted except the game room, which stays
  read-only (with its Rematch button) outside any category. A server thus keeps one channel
  per ended match instead of four.
- **Delete** (`/match delete ID`, a host): the same, the game room included.
- **A deleted table or room of a running match** is created again with the same
  permissions, the player's open decisions are posted there again, and their clocks are
  extended by the time the channel was missing: nobody is charged for the gap.
- **Threads mode** (tables as private threads in the room, bot/discord/threads.py): archiving
  archives and locks the table threads (the room stays, read-only); delete removes them; a
  deleted table thread is made again in the room with the player added (a deleted room is
  made again with new table threads in it).

Everything is recorded in the match's transport data (`archived`, `deleted`, the new channel
ids), so a restart neither repeats an archive nor forgets one that is due.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.errors import Refusal
from bot.discord.keeper import record_thread
from bot.discord.overwrites import HIDDEN, SEE_AND_WRITE, bot_overwrite
from bot.discord.sharding import LostShard, may_post
from bot.status import RUNNING
from bot.transport import MatchInfo

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)

ENDED = ("finished", "aborted")


async def archive_match(bot: UmpireBot, match_id: int, *, delete_room: bool = False) -> str:
    """Transcript to the host log, then delete the match's created channels (the room too
    when `delete_room`). Returns what was done, for the host who asked."""
    from bot.console.records import transcript_text

    service = bot.service
    live = await service.load(match_id)
    if live.status not in ENDED:
        raise Refusal(f"Match #{match_id} is still on: end it first (`/match abort` or "
                      "`/match award`).")
    async with bot.archives.lock(match_id):
        data = dict(live.transport)
        if data.get("deleted") or (data.get("archived") and not delete_room):
            return f"Match #{match_id}'s channels were already removed."
        guild = bot.get_guild(int(data.get("guild") or 0))
        if guild is None:
            raise Refusal("I do not see the match's server right now; try again later.")
        if not data.get("transcript_posted"):
            record = await service.export(match_id)
            text = transcript_text(record, live.players)
            host_log = guild.get_channel(int(data.get("log") or 0))
            if not isinstance(host_log, discord.TextChannel):
                raise Refusal("The host log of this match is gone, so its transcript cannot be "
                              "kept there: nothing was deleted (`/match export` gives it to "
                              "you).")
            problem = await bot.transport.privacy.hosts_only(host_log)
            if problem is not None:
                raise Refusal(f"{problem} Nothing was deleted.")
            if not may_post(bot, data):  # (sharded: the shard was lost meanwhile)
                raise LostShard()
            await host_log.send(
                f"🗄 Match #{match_id} ({live.game.title}, {' vs '.join(live.names)}): the "
                "transcript, posted before its channels are removed.",
                file=discord.File(io.BytesIO(text.encode()), filename=f"match-{match_id}.txt"),
                allowed_mentions=discord.AllowedMentions.none())
            data = await bot.api.remember(match_id, {"transcript_posted": True})
        created = set(data.get("created") or [])
        keep = set() if delete_room else {data.get("room")}
        order = [data.get("table0"), data.get("table1"), data.get("room"), data.get("category")]
        if data.get("mode") == "threads":  # table threads: archived and locked, or deleted
            from bot.discord.threads import set_tables

            tables = [t for t in order[:2] if t and t in created]
            why = f"umpire: match #{match_id} {'deleted by a host' if delete_room else 'archived'}"
            await set_tables(bot, tables, archived=True, locked=True, delete=delete_room,
                             reason=why)
            for tid in tables:
                bot.routing.forget(int(tid))
            order = order[2:]
        for cid in order:
            if not cid or cid not in created or cid in keep:
                continue
            channel = guild.get_channel(int(cid))
            if channel is None:
                continue
            with contextlib.suppress(discord.NotFound):
                await channel.delete(reason=f"umpire: match #{match_id} "
                                            f"{'deleted by a host' if delete_room else 'archived'}")
            bot.routing.forget(int(cid))
        flag = {"deleted": True, "archived": True} if delete_room else {"archived": True}
        live.transport.update(await bot.api.remember(match_id, flag))
    threads = data.get("mode") == "threads"
    if delete_room:
        return (f"Match #{match_id}: transcript posted in the host log, "
                f"{'room and table threads' if threads else 'channels'} deleted.")
    if threads:
        return f"Match #{match_id}: transcript posted in the host log, table threads archived."
    return f"Match #{match_id}: transcript posted in the host log, tables removed."


def schedule_archive(bot: UmpireBot, match: MatchInfo, ended_at: datetime | None = None,
                     unlocked: frozenset[int] = frozenset()) -> None:
    """Archive an ended match after its server's delay (in the background). `unlocked`:
    tables left writable because this archive deletes them; locked if it cannot."""
    if not match.transport.get("created") or match.transport.get("archived"):
        return

    async def later() -> None:
        guild_id = int(match.transport.get("guild") or 0)
        config = await bot.guild_config(guild_id)
        due = (ended_at or datetime.now(UTC)) + timedelta(minutes=config.archive_delay_minutes)
        await asyncio.sleep(max(0.0, (due - datetime.now(UTC)).total_seconds()))
        try:
            await archive_match(bot, match.id)
        except Refusal as exc:
            log.warning("match %s not archived: %s", match.id, exc)
            if unlocked:  # they stay after all: read-only, as every ended match's
                await lock_tables(bot, match, unlocked)
        except Exception:
            log.exception("archiving match %s failed", match.id)

    bot.archives.keep(asyncio.create_task(later(), name=f"archive-{match.id}"))


async def lock_tables(bot: discord.Client, match: MatchInfo, tables: frozenset[int]) -> None:
    """Make these tables of an ended match read-only after all (the rest is done)."""
    from bot.discord.channels import lock_match_channels

    data = match.transport
    rest = frozenset(int(c) for key in ("room", "table0", "table1")
                     if (c := data.get(key)) and int(c) not in tables)
    await lock_match_channels(bot, match, skip=rest, host_log=False)


async def archive_due(bot: UmpireBot) -> None:
    """On connect: schedule every ended match whose channels are not archived yet."""
    for row in await bot.api.ended_with_open_places("archived"):
        if row.transport.get("created") and row.transport.get("closed"):
            schedule_archive(bot, MatchInfo(id=row.id, game=row.game, players=(),
                                            transport=dict(row.transport)), row.ended_at)


async def wait_archived(bot: UmpireBot) -> None:
    """Wait for the archives scheduled so far (tests, shutdown)."""
    await bot.archives.wait()


# --- a table deleted while the match runs --------------------------------------------------
REMADE = "♻️ This channel was deleted and made again; here is what is open."


def _running(bot: UmpireBot, channel_id: int) -> tuple[Any, Any] | None:
    """(place, live match) when `channel_id` is the room or a table of a running match."""
    place = bot.routing.place_of(channel_id)
    if place is None:
        return None
    live = bot.api.live(place.match_id)
    if live is None or live.status not in RUNNING:
        return None
    return place, live


async def recreate(bot: UmpireBot, channel: discord.abc.GuildChannel) -> bool:
    """If `channel` was the room or a table of a running match: create it again, post the
    open decisions there again and extend their clocks by the gap. True if it did. In
    threads mode a deleted room takes its table threads with it: they are made again in the
    new room too."""
    found = _running(bot, channel.id)
    if found is None:
        return False
    place, live = found
    gone_at = bot.service.now()
    guild = channel.guild
    key = "room" if place.seat is None else f"table{place.seat}"
    remade: list[tuple[str, discord.abc.Messageable, str]] = []  # (audience, new, old name)
    async with bot.archives.lock(live.id):
        if live.transport.get(key) != channel.id:
            return False
        category = guild.get_channel(int(live.transport.get("category") or 0)) or \
            getattr(channel, "category", None)
        overwrites = dict(getattr(channel, "overwrites", {}) or {})
        if not overwrites:
            overwrites = {guild.me: bot_overwrite(guild)}
            if place.seat is not None:
                overwrites[guild.default_role] = HIDDEN
                uid = int(live.players[place.seat].id.split(":", 1)[1])
                member = guild.get_member(uid)
                if member is not None:
                    overwrites[member] = SEE_AND_WRITE
        try:
            new = await guild.create_text_channel(
                channel.name, overwrites=overwrites,
                category=category if isinstance(category, discord.CategoryChannel) else None,
                topic=getattr(channel, "topic", None),  # type: ignore[arg-type]  # (None: no topic)
                reason=f"umpire: a channel of match #{live.id} was deleted")
        except discord.HTTPException as exc:
            log.warning("could not recreate channel %s of match %s: %s", channel.id, live.id, exc)
            return False
        changes: dict[str, Any] = {key: new.id}
        gone = [channel.id]
        remade.append(("public" if place.seat is None else f"seat{place.seat}", new,
                       channel.name))
        if place.seat is None and live.transport.get("mode") == "threads":
            for seat in (0, 1):
                old = live.transport.get(f"table{seat}")
                thread = await _new_table(bot, guild, live, seat, new) if old else None
                if thread is not None:
                    changes[f"table{seat}"] = thread.id
                    gone.append(int(old))
                    remade.append((f"seat{seat}", thread, thread.name))
        await _record(bot, live, changes, gone)
    for audience, made, name in remade:
        await _repost(bot, live, guild, audience, made, name, gone_at)
    return True


async def recreate_thread(bot: UmpireBot, guild_id: int | None, thread_id: int) -> bool:
    """If `thread_id` was a table thread of a running match: make a new private thread in
    the room, add the player, post their open decisions again and extend those clocks by
    the gap. True if it did."""
    found = _running(bot, thread_id)
    if found is None or found[0].seat is None:
        return False
    place, live = found
    gone_at = bot.service.now()
    guild = bot.get_guild(int(guild_id or live.transport.get("guild") or 0))
    if guild is None:
        return False
    key = f"table{place.seat}"
    async with bot.archives.lock(live.id):
        if live.transport.get(key) != thread_id or live.transport.get("mode") != "threads":
            return False  # already made again (its room was deleted), or not a thread table
        room = guild.get_channel(int(live.transport.get("room") or 0))
        if not isinstance(room, discord.TextChannel):
            return False  # the room is gone too: its own recreation makes the tables
        thread = await _new_table(bot, guild, live, place.seat, room)
        if thread is None:
            return False
        await _record(bot, live, {key: thread.id}, [thread_id])
    await _repost(bot, live, guild, f"seat{place.seat}", thread, thread.name, gone_at)
    return True


async def _new_table(bot: UmpireBot, guild: discord.Guild, live: Any, seat: int,
                     room: discord.TextChannel) -> discord.Thread | None:
    from bot.discord.threads import create_table

    uid = int(live.players[seat].id.split(":", 1)[1])
    member = guild.get_member(uid)
    if member is None:
        return None
    try:
        return await create_table(room, member, live.players[seat].name, live.game.title)
    except discord.HTTPException as exc:
        log.warning("could not make the table thread of seat %s of match %s again: %s",
                    seat, live.id, exc)
        return None


async def _record(bot: UmpireBot, live: Any, changes: dict[str, Any], gone: list[int]) -> None:
    """Store the new channel ids (and forget the deleted ones) in the match's transport."""
    for cid in gone:
        bot.routing.forget(cid)
    new_ids = [v for k, v in changes.items() if k != "mode"]
    created = [c for c in live.transport.get("created") or [] if c not in gone]
    changes = {**changes, "created": [*created, *new_ids], "kept": _kept_again(live, changes)}
    live.transport.update(await bot.api.remember(live.id, changes))
    bot.routing.index_match(live.id, live.transport)
    bot.keeper.keep(int(live.transport.get("guild") or 0))  # (made from the old one's state)


def _kept_again(live: Any, changes: dict[str, Any]) -> dict[str, Any]:
    """What the channel keeper keeps of the channels made again: a table thread as a new
    one; a room or table channel as the one it replaces was kept (nothing, if a host had
    named it)."""
    kept = dict(live.transport.get("kept") or {})
    for key, new in changes.items():
        old = live.transport.get(key)
        if key not in ("room", "table0", "table1") or not old:
            continue
        spec = kept.pop(str(old), None)
        if key != "room" and live.transport.get("mode") == "threads":
            spec = record_thread(int(key[-1]))
        if spec is not None:
            kept[str(new)] = spec
    return kept


async def _repost(bot: UmpireBot, live: Any, guild: discord.Guild, audience: str,
                  new: Any, old_name: str, gone_at: datetime) -> None:
    await bot.service.repost(live.id, audience, gone_at, note=REMADE)
    with contextlib.suppress(discord.HTTPException):
        log_ch = guild.get_channel(int(live.transport.get("log") or 0))
        if isinstance(log_ch, discord.TextChannel) and may_post(bot, live.transport):
            await log_ch.send(f"♻️ Match #{live.id}: {old_name} was deleted; I made it again "
                              f"({new.mention}) and posted its open decisions there.",
                              allowed_mentions=discord.AllowedMentions.none())
