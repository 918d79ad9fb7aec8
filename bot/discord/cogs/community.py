"""Commands for everyone in a server: `/history [member] [game]`, `/leaderboard game` (from
the database, so a restart loses nothing) and `/board` (the public state of the match of
the room it is used in)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.community_views import board_embed, history_text
from bot.discord.errors import Refusal, answer_error, defer
from bot.discord.gate import POST, READ, Who, requires
from bot.discord.render import player_id, shown
from bot.discord.sharding import LostShard, may_post
from games.registry import all_games, get_game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

GameName = Literal[tuple(all_games())]  # type: ignore[valid-type]  # (built from the registry: discord.py reads its choices)
NONE = discord.AllowedMentions.none()


class CommunityCog(commands.Cog, name="Community"):
    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    async def cog_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        await answer_error(ctx, error)

    @commands.hybrid_command(name="history", description="A member's matches and ratings here")
    @app_commands.describe(member="whose history (you if left out)", game="only this game")
    @app_commands.guild_only()
    @requires(Who.ANYONE, pace=READ("history"))
    async def history(self, ctx: commands.Context[Any], member: discord.Member | None = None,
                      game: GameName | None = None) -> None:  # type: ignore[valid-type]  # (GameName: a Literal built at import)
        await defer(ctx, ephemeral=True)
        if ctx.guild is None:
            raise Refusal("History is kept per server: use this command in one.")
        who = member or ctx.author
        pid = player_id(who.id)
        lines = await self.bot.api.history(ctx.guild.id, pid, str(game) if game else None)
        games = [str(game)] if game else sorted({h.game for h in lines} | set(all_games()))
        ratings = []
        for slug in games:
            found = await self.bot.api.standings(ctx.guild.id, slug, [pid])
            ratings += [(slug, s) for s in found]
        text = history_text(shown(who), lines, ratings)
        await ctx.send(text[:2000], ephemeral=True, allowed_mentions=NONE)

    @commands.hybrid_command(name="leaderboard", description="This server's ratings of a game")
    @app_commands.describe(game="the game")
    @app_commands.guild_only()
    @requires(Who.ANYONE, pace=READ("leaderboard"))
    async def leaderboard(self, ctx: commands.Context[Any],
                          game: GameName) -> None:  # type: ignore[valid-type]  # (GameName: a Literal built at import)
        await defer(ctx, ephemeral=True)
        if ctx.guild is None:
            raise Refusal("Ratings are kept per server: use this command in one.")
        title = get_game(str(game)).title
        board = await self.bot.api.standings(ctx.guild.id, str(game))
        lines = [f"**{title}: leaderboard** (rating = μ − 3σ, openskill)"]
        lines += [f"{i}. {s.name} {s.rating:.1f} ({s.wins}W {s.losses}L {s.draws}D, "
                  f"μ {s.mu:.1f} σ {s.sigma:.1f})" for i, s in enumerate(board, 1)]
        if not board:
            lines.append("No rated match of this game in this server yet.")
        await ctx.send("\n".join(lines)[:2000], ephemeral=True, allowed_mentions=NONE)

    @commands.hybrid_command(name="board", description="The public state of this room's match")
    @app_commands.guild_only()
    @requires(Who.ANYONE, pace=POST)
    async def board(self, ctx: commands.Context[Any]) -> None:
        await defer(ctx, ephemeral=True)
        place = self.bot.routing.place_of(ctx.channel.id if ctx.channel else None)
        live = self.bot.api.live(place.match_id) if place else None
        if live is None or ctx.guild is None or live.transport.get("guild") != ctx.guild.id \
                or place is None or place.seat is not None:
            raise Refusal("Use /board in the game room of a match.")
        if not may_post(self.bot, live.transport):
            raise LostShard()
        posted = await ctx.channel.send(embed=board_embed(live), allowed_mentions=NONE)
        if ctx.interaction is not None:  # the slash command's own (private) answer
            await ctx.send(f"Board posted: {posted.jump_url}", ephemeral=True)


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(CommunityCog(bot))
