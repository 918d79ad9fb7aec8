"""`/challenge @member game`: a friendly match without a host (the buttons, the limits and
the start: bot/discord/friendly.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.errors import Refusal, answer_error
from bot.discord.friendly import (
    DYNAMIC_ITEMS,
    NO_FRIENDLIES,
    ChallengeButton,
    ChallengeLimits,
    challenge_keys,
)
from bot.discord.gate import POST, Who, requires
from bot.discord.render import shown
from bot.discord.sharding import LostShard, may_post
from games.registry import all_games, get_game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

GameName = Literal[tuple(all_games())]  # type: ignore[valid-type]  # (built from the registry: discord.py reads its choices)


class ChallengeCog(commands.Cog, name="Challenge"):
    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot
        self.limits = ChallengeLimits(bot.api.challenges)

    async def cog_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        await answer_error(ctx, error)

    @commands.hybrid_command(name="challenge",
                             description="Challenge a member to a friendly match (no host)")
    @app_commands.describe(member="who you challenge", game="the game")
    @app_commands.guild_only()
    @requires(Who.ANYONE, pace=POST, order=lambda ctx, named: challenge_keys(ctx, named))
    async def challenge(self, ctx: commands.Context[Any], member: discord.Member,
                        game: GameName) -> None:  # type: ignore[valid-type]  # (GameName: a Literal built at import)
        if ctx.interaction is not None and not ctx.interaction.response.is_done():
            await ctx.defer(ephemeral=True)
        if ctx.guild is None:
            raise Refusal("Challenges work in a server.")
        game = str(game)
        if game not in all_games():
            raise Refusal(f"No game {game!r}; games: {', '.join(all_games())}.")
        if member.id == ctx.author.id:
            raise Refusal("Challenge someone else.")
        if member.bot:
            raise Refusal(f"{shown(member)} is a Discord bot account.")
        config = await self.bot.guild_config(ctx.guild.id)
        if not config.friendly_matches:
            raise Refusal(NO_FRIENDLIES)
        cooldown = config.challenge_cooldown_seconds
        refusal = await self.limits.refusal(self.bot, ctx.guild.id, ctx.author, member,
                                            cooldown)
        if refusal is not None:
            raise Refusal(refusal)
        view = discord.ui.View(timeout=None)
        view.add_item(ChallengeButton(game, ctx.author.id, member.id, "a"))
        view.add_item(ChallengeButton(game, ctx.author.id, member.id, "d"))
        channel = ctx.channel
        if not isinstance(channel, discord.abc.Messageable):
            raise Refusal("Use /challenge in a text channel.")
        if not may_post(self.bot, {"guild": ctx.guild.id}):
            raise LostShard()
        posted = await channel.send(
            f"⚔️ {shown(ctx.author)} challenges {member.mention} to a friendly match of "
            f"{get_game(game).title}. {shown(member)}: Accept or Decline? (The advantage "
            "goes by a coin flip.)", view=view,
            allowed_mentions=discord.AllowedMentions(users=[member], everyone=False, roles=False))
        await self.limits.opened(ctx.guild.id, ctx.author.id, member.id, game, posted)
        if ctx.interaction is not None:  # the slash command's own (private) answer
            await ctx.send(f"Challenge posted: {posted.jump_url}", ephemeral=True)


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog, and the buttons of earlier messages."""
    await bot.add_cog(ChallengeCog(bot))
    bot.add_dynamic_items(*DYNAMIC_ITEMS)  # clicks on any earlier challenge or offer
