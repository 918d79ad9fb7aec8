"""The channels of a match, kept: a deleted room or table is made again, ended matches due
for archiving are archived once connected (the work: bot/discord/channel_lifecycle.py)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.discord.channel_lifecycle import archive_due, recreate, recreate_thread

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)


class LifecycleCog(commands.Cog, name="Lifecycle"):
    """Listeners: a deleted room or table is made again; ended matches due for archiving
    are archived once connected."""

    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        try:
            await recreate(self.bot, channel)
        except Exception:
            log.exception("could not recreate channel %s", channel.id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        try:
            await recreate_thread(self.bot, payload.guild_id, payload.thread_id)
        except Exception:
            log.exception("could not recreate thread %s", payload.thread_id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        await archive_due(self.bot)

    async def cog_unload(self) -> None:
        self.bot.archives.cancel()


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(LifecycleCog(bot))
