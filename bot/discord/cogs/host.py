"""Host commands (hybrid: slash and prefix): `/match start|pause|resume|extend|lock|abort|
award|status|export|list`, for members with the host role or Manage Server."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.console.records import transcript_text
from bot.discord.channels import (
    sees_everything,
)
from bot.discord.command_help import bot_choices, match_choices
from bot.discord.errors import NO_SUCH_MATCH, Refusal, answer_error
from bot.discord.feed import feed_problem, feed_words
from bot.discord.gate import Who, requires, target
from bot.discord.host_tools import here, mark_unrated, stored_match
from bot.discord.launch import launch
from bot.discord.options import validate_settings
from bot.discord.render import REASON_LIMIT, escape, player_id, player_ref, shown
from bot.feed import with_feed
from bot.live import LiveMatch
from bot.transport import PlayerRef
from games.registry import all_games, get_game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)

GameName = Literal[tuple(all_games())]  # type: ignore[valid-type]  # (built from the registry: discord.py reads its choices)


class HostCog(commands.Cog, name="Host"):
    """Running matches. Every command here needs the host role or Manage Server."""

    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    @property
    def service(self) -> Any:
        return self.bot.service

    # --- who may: the gate (bot/discord/gate.py), from each command's declaration ----------
    async def cog_before_invoke(self, ctx: commands.Context[Any]) -> None:
        """Acknowledge a slash command at once (only the host sees the answer), then work:
        Discord fails an interaction not acknowledged within three seconds."""
        if ctx.interaction is not None and not ctx.interaction.response.is_done():
            await ctx.defer(ephemeral=True)

    async def cog_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        await answer_error(ctx, error)

    def resolve(self, ctx: commands.Context[Any], match_id: int | None) -> LiveMatch:
        """The match the gate let this host act on (`gate_target`, decided by the gate: a
        host who plays it, or plays in its event, cannot act on it, ever)."""
        return target(ctx)

    async def gate_target(self, ctx: commands.Context[Any], named: dict[str, Any]) -> LiveMatch:
        """The named match, else the match of this channel, else the only running one here.
        Only matches of this server: another server's match gets the same answer as an
        unknown id. An ended match is loaded for the commands that act on one."""
        match_id = named.get("match")
        if match_id is not None and ctx.command is not None and \
                ctx.command.name in ("export", "unrated", "delete"):
            await stored_match(self.bot, match_id)  # not kept in memory after a restart
        return self._find(ctx, match_id)

    def _find(self, ctx: commands.Context[Any], match_id: int | None) -> LiveMatch:
        api = self.bot.api
        guild_id = ctx.guild.id if ctx.guild else None
        if match_id is not None:
            found = api.live(match_id)
            if found is None or not here(found, guild_id):
                raise Refusal(NO_SUCH_MATCH)
            return found
        place = self.bot.routing.place_of(ctx.channel.id if ctx.channel else None)
        in_channel = api.live(place.match_id) if place is not None else None
        if in_channel is not None and here(in_channel, guild_id):
            return in_channel
        running = [m for m in api.running() if here(m, guild_id)]
        if len(running) == 1:
            return running[0]
        if not running:
            raise Refusal("No match is running in this server.")
        ids = ", ".join(f"#{m.id}" for m in running)
        raise Refusal(f"Several matches are running ({ids}): name one with the `match` option.")

    # --- the group -------------------------------------------------------------------------
    @commands.hybrid_group(name="match", description="Run umpired matches (hosts only)")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    @requires(Who.HOST)
    async def match(self, ctx: commands.Context[Any]) -> None:
        if ctx.invoked_subcommand is None:
            await ctx.send("Subcommands: start, pause, resume, extend, lock, abort, award, "
                           "status, export, list.", ephemeral=True)

    @match.command(name="start", description="Start a match: creates the room and the tables")
    @app_commands.describe(
        game="the game", player1="the first player", player2="the second player (or use bot)",
        bot="seat a built-in bot instead of player2 (e.g. heuristic)",
        advantage="who holds the advantage (seat 0): 1 = player1, 2 = the other",
        settings="key=value pairs or JSON, e.g. decision_seconds=20",
        seed="seed for a rehearsal or replay: the match is then unrated (revealed at the end)",
        room="use this channel as the game room", table1="use this as player1's table",
        table2="use this as player2's table",
        feed="a read-only spectator feed: the room, and each round's hands once it is over")
    @requires(Who.HOST)
    async def start(self, ctx: commands.Context[Any], game: GameName,  # type: ignore[valid-type]  # (GameName: a Literal built at import)
                    player1: discord.Member, player2: discord.Member | None = None,
                    bot: str | None = None, advantage: commands.Range[int, 1, 2] = 1,
                    settings: str | None = None, seed: str | None = None,
                    room: discord.TextChannel | None = None,
                    table1: discord.TextChannel | None = None,
                    table2: discord.TextChannel | None = None,
                    feed: discord.TextChannel | None = None) -> None:
        assert ctx.guild is not None
        found = get_game(str(game))
        bot_name = bot.removeprefix("bot:").strip() if bot else None
        bots = list(found.bots())
        if player2 is None and not bot_name:
            raise Refusal("Name the second player, or seat a built-in bot with `bot` "
                          f"({', '.join(bots) or 'this game has none'}).")
        if player2 is not None and bot_name:
            raise Refusal("Give either player2 or bot, not both.")
        if bot_name and bot_name not in bots:
            raise Refusal(f"{found.title} has no bot {bot_name!r}; bots: {', '.join(bots)}.")
        for member in (player1, player2):
            if member is not None and member.bot:
                raise Refusal(f"{shown(member)} is a Discord bot account; seat a built-in "
                              "bot with the `bot` option instead.")
        if player2 is not None and player2.id == player1.id:
            raise Refusal("The two players must be different people.")
        parsed = validate_settings(found, settings)
        members: list[discord.Member | None] = [player1, player2]
        refs: list[PlayerRef] = [player_ref(player1.id, player1.display_name),
                                 player_ref(player2.id, player2.display_name) if player2 else
                                 PlayerRef(id=f"bot:{bot_name}", name=f"{bot_name} (bot)",
                                           bot=bot_name)]
        given_tables = [table1, table2]
        if advantage == 2:  # seat 0 is the advantage holder
            members.reverse()
            refs.reverse()
            given_tables.reverse()
        for member in members:
            if member is not None and sees_everything(member):
                raise Refusal(f"{shown(member)} owns this server or has the Administrator "
                              "permission, which sees every channel: they would see the "
                              "opponent's table and the host log. Umpired matches need players "
                              "without it.")
        # A seed a host chose (a rehearsal, a replay) could be known to a player: unrated,
        # and announced as host-chosen with the commitment.
        chosen = {"host_seed": True, "unrated": True} if seed is not None else {}
        if feed is not None:  # checked again before every post (bot/discord/feed.py)
            problem = (f"{feed.mention} is named for this match already: a feed is a channel "
                       "of its own. Name another one." if feed in (room, table1, table2)
                       else feed_problem(self.bot, feed))
            if problem:
                raise Refusal(problem)
            chosen = with_feed(chosen, feed.id)
        live, channels = await launch(self.bot, ctx.guild, found, members, refs, parsed, seed,
                                      room=room, given_tables=given_tables, extra=chosen)
        tables = ", ".join(f"{r.name}: {t.mention}" for r, t in zip(refs, channels.tables,
                                                                      strict=True) if t)
        await ctx.send(f"Match #{live.id} ({found.title}) started: {refs[0].name} (advantage) "
                       f"vs {refs[1].name}. Room {channels.room.mention}; tables {tables or 'none'}; "
                       f"host log {channels.log.mention}." +
                       (f" Spectator feed {feed.mention}: {feed_words(found)}."
                        if feed is not None else "") +
                       (f" {channels.note}" if channels.note else ""),
                       allowed_mentions=discord.AllowedMentions.none())

    @match.command(name="pause", description="Stop every clock of a match")
    @requires(Who.REFEREE)
    async def pause(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        await self.service.pause(live.id)
        await ctx.send(f"Match #{live.id} paused.", ephemeral=True)

    @match.command(name="resume", description="Restart the clocks of a paused match")
    @requires(Who.REFEREE)
    async def resume(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        await self.service.resume(live.id)
        await ctx.send(f"Match #{live.id} resumed.", ephemeral=True)

    @match.command(name="extend", description="Give the pending decisions more time")
    @app_commands.describe(seconds="how many seconds more", player="only this player's clock")
    @requires(Who.REFEREE)
    async def extend(self, ctx: commands.Context[Any],
                     seconds: commands.Range[int, 1, 86400],
                     player: discord.Member | None = None, match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        seat = None
        if player is not None:
            seat = live.seat_of(player_id(player.id))
            if seat is None:
                raise Refusal(f"{shown(player)} does not play match #{live.id}.")
        await self.service.extend(live.id, float(seconds), seat=seat)
        await ctx.send(f"Match #{live.id}: {seconds} s more.", ephemeral=True)

    @match.command(name="lock", description="End every pending clock now (e.g. lock Decoder setup)")
    @requires(Who.REFEREE)
    async def lock(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        await self.service.expire(live.id)
        await ctx.send(f"Match #{live.id}: the pending decisions were closed.", ephemeral=True)

    @match.command(name="abort", description="End a match with no winner")
    @requires(Who.REFEREE)
    async def abort(self, ctx: commands.Context[Any], match: int | None = None, *,
                    reason: str = "aborted by the hosts") -> None:
        live = self.resolve(ctx, match)
        await self.service.abort(live.id, escape(reason, REASON_LIMIT))  # posted in the room
        await ctx.send(f"Match #{live.id} aborted.", ephemeral=True)

    @match.command(name="award", description="Award a match (or its running bout) to a player")
    @app_commands.describe(player="the winner (a member)", seat="or the winner's seat: 1 = the "
                           "advantage holder, 2 = the other (for a bot seat)",
                           part="the whole match (default), or only the running bout (Double "
                                "or Nothing)")
    @requires(Who.REFEREE)
    async def award(self, ctx: commands.Context[Any], player: discord.Member | None = None,
                    seat: commands.Range[int, 1, 2] | None = None,
                    match: int | None = None, part: Literal["match", "bout"] = "match", *,
                    reason: str = "awarded by the hosts") -> None:
        live = self.resolve(ctx, match)
        if player is not None:
            winner = live.seat_of(player_id(player.id))
            if winner is None:
                raise Refusal(f"{shown(player)} does not play match #{live.id}.")
        elif seat is not None:
            winner = seat - 1
        else:
            raise Refusal("Name the winner: `player` (a member) or `seat` (1 or 2).")
        await self.service.award(live.id, winner, escape(reason, REASON_LIMIT), unit=part)  # UmpireError: user-facing
        what = f"Match #{live.id}" if part == "match" else f"The running {part} of match #{live.id}"
        await ctx.send(f"{what} awarded to {live.players[winner].name}.", ephemeral=True)

    @match.command(name="status", description="Whose decision it is, the clocks, the channels")
    @requires(Who.REFEREE)
    async def status(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        text = self.service.status_text(live.id)  # names already filled in (one pass)
        room = live.transport.get("room")
        if room:
            text += f"\nRoom: <#{room}>."
        await ctx.send(text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    @match.command(name="list", description="The matches of this server, newest first")
    @requires(Who.HOST)
    async def list_(self, ctx: commands.Context[Any]) -> None:
        assert ctx.guild is not None
        found = await self.bot.api.guild_matches(ctx.guild.id, limit=30)
        lines = [f"#{m.id} {m.game}: {' vs '.join(m.names)} ({m.status})" for m in found]
        await ctx.send("\n".join(lines) or "No matches.", ephemeral=True,
                       allowed_mentions=discord.AllowedMentions.none())

    @match.command(name="export", description="The match record: JSON and a readable transcript")
    @requires(Who.REFEREE)
    async def export(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        record = await self.service.export(live.id)
        data = self.service.export_json(record).encode()
        transcript = transcript_text(record, live.players).encode()
        ended = record.get("seed") is not None
        note = ("every secret is included (the match has ended)." if ended else
                "the match is still running: only public messages are included; secrets and "
                "the seed follow once it ends.")
        await ctx.send(f"Record of match #{live.id}: {note}", ephemeral=True, files=[
            discord.File(io.BytesIO(data), filename=f"match-{live.id}.json"),
            discord.File(io.BytesIO(transcript), filename=f"match-{live.id}.txt")])


    @match.command(name="unrated", description="Keep a match out of the ratings (history keeps it)")
    @app_commands.describe(match="the match number")
    @requires(Who.REFEREE)
    async def unrated(self, ctx: commands.Context[Any], match: int) -> None:
        await mark_unrated(self.bot, ctx)


    @match.command(name="delete", description="Remove an ended match's channels (the "
                                              "transcript goes to the host log first)")
    @app_commands.describe(match="the match number")
    @requires(Who.REFEREE)
    async def delete(self, ctx: commands.Context[Any], match: int) -> None:
        from bot.discord.channel_lifecycle import archive_match

        live = self.resolve(ctx, match)
        await ctx.send(await archive_match(self.bot, live.id, delete_room=True), ephemeral=True)


_command: commands.HybridCommand[Any, ..., Any]
for _command in (HostCog.delete, HostCog.unrated, HostCog.pause, HostCog.resume, HostCog.extend, HostCog.lock, HostCog.abort,
                 HostCog.award, HostCog.status, HostCog.export):
    _command.autocomplete("match")(match_choices)
HostCog.start.autocomplete("bot")(bot_choices)


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(HostCog(bot))
