"""What the host commands (bot/discord/cogs/host.py) do beyond the service: find a match of
this server, load an ended one from the store, mark one unrated, post a line in an ended
match's room."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.discord.errors import NO_SUCH_MATCH, Refusal
from bot.discord.gate import target
from bot.discord.sharding import may_post
from bot.live import LiveMatch
from bot.status import RUNNING
from bot.umpire import UmpireError

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)


async def mark_unrated(bot: UmpireBot, ctx: commands.Context[Any]) -> None:
    """A running match of this server is marked (rated or not when it ends); an ended one is
    taken out of the ratings, which are recomputed from the rest of the history."""
    from datetime import UTC, datetime

    live = target(ctx)  # the gate's: a host who plays it cannot, ever
    if live.status in RUNNING:  # the mark and the room's line: one transaction
        await bot.api.mark_unrated(live.id, UNRATED_LINE)
        live.transport["unrated"] = True
        text = f"Match #{live.id} will not count for the ratings (it stays in the history)."
    else:
        await bot.api.unrate_ended(live.id, datetime.now(UTC))
        await post_in_room(bot, live, UNRATED_LINE)
        text = (f"Match #{live.id} no longer counts for the ratings; the {live.game.title} "
                "ratings of this server were recomputed without it.")
    await ctx.send(text, ephemeral=True)


async def stored_match(bot: UmpireBot, match_id: int) -> LiveMatch:
    """Match `match_id` as held, else loaded from the store: an ended match is not kept in
    memory after a restart. A match that does not exist is an unknown match."""
    try:
        return await bot.api.live_or_stored(match_id)
    except UmpireError as exc:
        raise Refusal(NO_SUCH_MATCH) from exc


UNRATED_LINE = "📋 The hosts marked this match unrated: it will not change ratings."


async def post_in_room(bot: commands.Bot, live: LiveMatch, text: str) -> None:
    """A line in the room of an ended match, if the room is still there (best effort: the
    outbox is closed once a match has ended, and the room may be archived or deleted)."""
    room = live.transport.get("room")
    if not room:
        return
    try:
        channel = bot.get_channel(int(room)) or await bot.fetch_channel(int(room))
        if not may_post(bot, live.transport):  # (sharded: the shard was lost meanwhile)
            return
        await channel.send(text, allowed_mentions=discord.AllowedMentions.none())  # type: ignore[union-attr]  # (a match room: a text channel)
    except (discord.HTTPException, AttributeError) as exc:
        log.warning("could not post in the room of match %s: %s", live.id, exc)


def here(match: LiveMatch, guild_id: int | None) -> bool:
    """Whether `match` was started on server `guild_id`."""
    return guild_id is not None and match.transport.get("guild") == guild_id
