"""`/rules <game>`: a rules summary for anyone (the game's declared summary, then the start of
its rules page: `bot.discord.games`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from discord.ext import commands

from bot.discord.errors import answer_error
from bot.discord.games import hooks_for
from bot.discord.gate import Who, requires
from games.registry import all_games, get_game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

GameName = Literal[tuple(all_games())]  # type: ignore[valid-type]  # (built from the registry: discord.py reads its choices)


class RulesCog(commands.Cog, name="Rules"):
    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    @commands.hybrid_command(name="rules", description="How a game is played, as the umpire applies it")
    @requires(Who.ANYONE)
    async def rules(self, ctx: commands.Context[Any], game: GameName) -> None:  # type: ignore[valid-type]  # (GameName: a Literal built at import)
        found = get_game(str(game))
        await ctx.send(hooks_for(found.slug).rules_text(), ephemeral=True, suppress_embeds=True)

    async def cog_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        await answer_error(ctx, error)


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(RulesCog(bot))
