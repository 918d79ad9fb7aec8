"""`/help`: every umpire command and game (the text: bot/discord/command_help.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from discord.ext import commands

from bot.discord import command_help
from bot.discord.gate import Who, requires

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot


class HelpCog(commands.Cog, name="Help"):
    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    @commands.hybrid_command(name="help", description="Every umpire command and game")
    @requires(Who.ANYONE)
    async def help(self, ctx: commands.Context[Any]) -> None:
        if ctx.interaction is not None and not ctx.interaction.response.is_done():
            await ctx.defer(ephemeral=True)
        text = command_help.help_text(self.bot.tree, self.bot.settings.discord.command_prefix)
        await ctx.send(text[:2000], ephemeral=True, suppress_embeds=True)


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(HelpCog(bot))
