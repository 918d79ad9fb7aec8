"""Listeners for what changes who can read a match's channels: channel overwrites (an edit,
a sync with the category), roles (their permissions, who holds them), members leaving, thread
membership. Each has the channel keeper look at the server's kept channels (the ones the bot
made, and the players' denies of the host log: bot/discord/keeper.py puts back what someone
changed), drops the transport's kept verdicts of who reads the server's channels
(`DiscordTransport.changed`) and retries at once the channels of the server's matches that
delivery holds (`Delivery.wake`): the transport checks them again before posting
(bot/discord/transport.py), so a fixed channel gets its held messages without waiting for
the next backoff."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

class WatchCog(commands.Cog, name="Watch"):
    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    def wake(self, guild_id: int | None) -> None:
        """Forget what was worked out about the server's channels; have the keeper put back
        what someone changed in the channels the bot made; retry the held channels of its
        running matches now."""
        if guild_id is None:
            return
        self.bot.transport.privacy.changed(guild_id)
        self.bot.keeper.keep(guild_id)
        for match in self.bot.api.running(guild_id):
            self.bot.api.retry_held(match.id)

    @commands.Cog.listener()
    async def on_guild_channel_update(self, before: Any, after: discord.abc.GuildChannel) -> None:
        self.wake(after.guild.id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        self.wake(channel.guild.id)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        self.wake(after.guild.id)

    @commands.Cog.listener()
    async def on_guild_role_delete(self, role: discord.Role) -> None:
        self.wake(role.guild.id)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        self.wake(after.guild.id)

    @commands.Cog.listener()
    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        self.wake(payload.guild_id)

    @commands.Cog.listener()
    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        self.wake(after.id)  # (a new owner)

    @commands.Cog.listener()
    async def on_thread_update(self, before: discord.Thread, after: discord.Thread) -> None:
        self.wake(after.guild.id)

    @commands.Cog.listener()
    async def on_raw_thread_member_remove(self, payload: discord.RawThreadMembersUpdate) -> None:
        self.wake(payload.guild_id)

    @commands.Cog.listener()
    async def on_thread_member_join(self, member: discord.ThreadMember) -> None:
        self.wake(member.thread.guild.id)

    @commands.Cog.listener()
    async def on_member_join(self, member: discord.Member) -> None:
        self.wake(member.guild.id)  # (a member overwrite may wait for them)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        self.wake(guild.id)  # the server's state was loaded again

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        self.wake(guild.id)

    @commands.Cog.listener()
    async def on_resumed(self) -> None:
        self.bot.transport.privacy.changed(None)


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(WatchCog(bot))
