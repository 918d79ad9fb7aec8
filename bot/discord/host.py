"""Host commands (hybrid: slash and prefix): `/match start|pause|resume|extend|lock|abort|
award|status|export|list`, for members with the host role or Manage Server."""

from __future__ import annotations

import contextlib
import io
import json
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.channels import (
    MatchChannels,
    create_match_channels,
    let_back_into_log,
    log_channel,
    log_problem,
    named_channel_problems,
    sees_everything,
    shut_out_of_log,
)
from bot.discord.errors import NO_SUCH_MATCH, Refusal, answer_error
from bot.discord.help import bot_choices, match_choices
from bot.discord.options import validate_settings
from bot.discord.preflight import missing_permissions, missing_text
from bot.discord.render import player_ref, render_plain
from bot.live import LiveMatch
from bot.store.guilds import matches_of_guild
from bot.transport import PlayerRef
from bot.umpire import UmpireError
from games.registry import all_games, get_game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)

GameName = Literal[tuple(all_games())]  # type: ignore[valid-type]
PLACES = {"public": "room", "seat0": "table of {0}", "seat1": "table of {1}", "umpire": "host log"}


class HostCog(commands.Cog, name="Host"):
    """Running matches. Every command here needs the host role or Manage Server."""

    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    @property
    def service(self) -> Any:
        return self.bot.service

    # --- who may --------------------------------------------------------------------------
    async def cog_check(self, ctx: commands.Context[Any]) -> bool:  # type: ignore[override]
        if ctx.guild is None:
            raise commands.CheckFailure("Match commands work in a server, not in direct messages.")
        config = await self.bot.guild_config(ctx.guild.id)
        if not config.is_host(ctx.author):
            raise commands.CheckFailure(
                f"Only hosts can run matches: you need the {config.host_role_label(ctx.guild)} "
                "role or the Manage Server permission.")
        return True

    async def cog_before_invoke(self, ctx: commands.Context[Any]) -> None:
        """Acknowledge a slash command at once (only the host sees the answer), then work:
        Discord fails an interaction not acknowledged within three seconds."""
        if ctx.interaction is not None and not ctx.interaction.response.is_done():
            await ctx.defer(ephemeral=True)

    async def cog_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        await answer_error(ctx, error)

    def resolve(self, ctx: commands.Context[Any], match_id: int | None) -> LiveMatch:
        """The named match, else the match of this channel, else the only running one here.
        Only matches of this server: another server's match gets the same answer as an
        unknown id. A host who plays a running match cannot act on it (another host can)."""
        live = self._find(ctx, match_id)
        if live.status in ("active", "paused") and \
                live.seat_of(f"discord:{ctx.author.id}") is not None:
            raise Refusal(f"You play in match #{live.id}: another host must run this command "
                          "while it is on.")
        return live

    def _find(self, ctx: commands.Context[Any], match_id: int | None) -> LiveMatch:
        matches = self.service.matches
        guild_id = ctx.guild.id if ctx.guild else None
        if match_id is not None:
            found = matches.get(match_id)
            if found is None or not here(found, guild_id):
                raise Refusal(NO_SUCH_MATCH)
            return found
        place = self.bot.place_of(ctx.channel.id if ctx.channel else None)
        if place is not None and place.match_id in matches and \
                here(matches[place.match_id], guild_id):
            return matches[place.match_id]
        running = [m for m in matches.values() if m.status in ("active", "paused")
                   and here(m, guild_id)]
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
        seed="seed for a reproducible match (published when it ends)",
        room="use this channel as the game room", table1="use this as player1's table",
        table2="use this as player2's table")
    async def start(self, ctx: commands.Context[Any], game: GameName,  # type: ignore[valid-type]
                    player1: discord.Member, player2: discord.Member | None = None,
                    bot: str | None = None, advantage: app_commands.Range[int, 1, 2] = 1,
                    settings: str | None = None, seed: str | None = None,
                    room: discord.TextChannel | None = None,
                    table1: discord.TextChannel | None = None,
                    table2: discord.TextChannel | None = None) -> None:
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
                raise Refusal(f"{member.display_name} is a Discord bot account; seat a built-in "
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
                raise Refusal(f"{member.display_name} owns this server or has the Administrator "
                              "permission, which sees every channel: they would see the "
                              "opponent's table and the host log. Umpired matches need players "
                              "without it.")
        settings_d = self.bot.settings.discord
        config = await self.bot.guild_config(ctx.guild.id)
        defaults = config.game_settings(found.slug)
        if defaults:  # the server's default settings for the game, overridden key by key
            parsed = validate_settings(found, json.dumps({**defaults, **parsed}))
        hosts = config.host_role(ctx.guild)
        log_name = config.log_channel_name()
        set_log = config.log_channel(ctx.guild)
        problems = named_channel_problems(ctx.guild, room=room, tables=given_tables,
                                          players=members, names=[r.name for r in refs],
                                          log_name=log_name, log_id=set_log.id if set_log else None)
        if problems:
            raise Refusal("I cannot use the channels you named:\n- " + "\n- ".join(problems))
        existing_log = set_log or (None if config.stored.log_channel_id is not None else
                                   discord.utils.get(ctx.guild.text_channels,
                                                     name=log_name.lower().replace(" ", "-")))
        creates = room is None or existing_log is None or any(
            m is not None and t is None for m, t in zip(members, given_tables, strict=True))
        if existing_log is not None and (problem := log_problem(existing_log, hosts)):
            raise Refusal(problem)
        lacking = missing_permissions(ctx.guild, creates=creates,
                                      named=[room, *given_tables, existing_log])
        if lacking:
            raise Refusal(missing_text(lacking))
        if set_log is not None:
            problem = log_problem(set_log, hosts)
            log_ch = None if problem else set_log
        elif config.stored.log_channel_id is not None:
            log_ch, problem = None, ("The host log set for this server no longer exists: a "
                                     "member with Manage Server sets another with "
                                     "`/umpire settings log_channel:`.")
        else:
            log_ch, problem = await log_channel(ctx.guild, log_name, hosts)
        if log_ch is None:
            raise Refusal(problem or "The host log cannot be used.")
        new_log = log_ch if existing_log is None else None  # made by this start
        channels: MatchChannels | None = None
        transport: dict[str, Any] = {}
        try:  # all or nothing: whatever this start made is removed if a later step fails
            channels = await create_match_channels(
                ctx.guild, title=found.title, slug=found.slug, players=members,
                names=[r.name for r in refs], hosts=hosts, log=log_ch, room=room,
                tables=given_tables, category_prefix=settings_d.category_prefix)
            transport = channels.transport()
            try:
                elsewhere = {int(uid): before for m in self.service.matches.values()
                             if m.status in ("active", "paused")
                             if isinstance(m.transport.get("log_denied"), dict)
                             for uid, before in m.transport["log_denied"].items()}
                transport["log_denied"] = await shut_out_of_log(log_ch, members, elsewhere)
            except discord.HTTPException as exc:
                raise Refusal(f"I could not hide the host log {log_ch.mention} from a player "
                              "who is a host (give me Manage Roles there); the match did not "
                              "start.") from exc
            live = await self.service.start_match(found.slug, refs, advantage=0, settings=parsed,
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
        self.bot.index_match(live.id, live.transport)
        tables = ", ".join(f"{r.name}: {t.mention}" for r, t in zip(refs, channels.tables,
                                                                      strict=True) if t)
        await ctx.send(f"Match #{live.id} ({found.title}) started: {refs[0].name} (advantage) "
                       f"vs {refs[1].name}. Room {channels.room.mention}; tables {tables or 'none'}; "
                       f"host log {channels.log.mention}.",
                       allowed_mentions=discord.AllowedMentions.none())

    @match.command(name="pause", description="Stop every clock of a match")
    async def pause(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        await self.service.pause(live.id)
        await ctx.send(f"Match #{live.id} paused.", ephemeral=True)

    @match.command(name="resume", description="Restart the clocks of a paused match")
    async def resume(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        await self.service.resume(live.id)
        await ctx.send(f"Match #{live.id} resumed.", ephemeral=True)

    @match.command(name="extend", description="Give the pending decisions more time")
    @app_commands.describe(seconds="how many seconds more", player="only this player's clock")
    async def extend(self, ctx: commands.Context[Any],
                     seconds: app_commands.Range[int, 1, 86400],
                     player: discord.Member | None = None, match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        seat = None
        if player is not None:
            seat = live.seat_of(f"discord:{player.id}")
            if seat is None:
                raise Refusal(f"{player.display_name} does not play match #{live.id}.")
        await self.service.extend(live.id, float(seconds), seat=seat)
        await ctx.send(f"Match #{live.id}: {seconds} s more.", ephemeral=True)

    @match.command(name="lock", description="End every pending clock now (e.g. lock Decoder setup)")
    async def lock(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        await self.service.expire(live.id)
        await ctx.send(f"Match #{live.id}: the pending decisions were closed.", ephemeral=True)

    @match.command(name="abort", description="End a match with no winner")
    async def abort(self, ctx: commands.Context[Any], match: int | None = None, *,
                    reason: str = "aborted by the hosts") -> None:
        live = self.resolve(ctx, match)
        await self.service.abort(live.id, reason)
        await ctx.send(f"Match #{live.id} aborted.", ephemeral=True)

    @match.command(name="award", description="Award a match (or its running bout) to a player")
    @app_commands.describe(player="the winner (a member)", seat="or the winner's seat: 1 = the "
                           "advantage holder, 2 = the other (for a bot seat)",
                           part="the whole match (default), or only the running bout (Double "
                                "or Nothing)")
    async def award(self, ctx: commands.Context[Any], player: discord.Member | None = None,
                    seat: app_commands.Range[int, 1, 2] | None = None,
                    match: int | None = None, part: Literal["match", "bout"] = "match", *,
                    reason: str = "awarded by the hosts") -> None:
        live = self.resolve(ctx, match)
        if player is not None:
            winner = live.seat_of(f"discord:{player.id}")
            if winner is None:
                raise Refusal(f"{player.display_name} does not play match #{live.id}.")
        elif seat is not None:
            winner = seat - 1
        else:
            raise Refusal("Name the winner: `player` (a member) or `seat` (1 or 2).")
        await self.service.award(live.id, winner, reason, unit=part)  # UmpireError: user-facing
        what = f"Match #{live.id}" if part == "match" else f"The running {part} of match #{live.id}"
        await ctx.send(f"{what} awarded to {live.players[winner].name}.", ephemeral=True)

    @match.command(name="status", description="Whose decision it is, the clocks, the channels")
    async def status(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        live = self.resolve(ctx, match)
        text = self.service.status_text(live.id)  # names already filled in (one pass)
        room = live.transport.get("room")
        if room:
            text += f"\nRoom: <#{room}>."
        await ctx.send(text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    @match.command(name="list", description="The matches of this server, newest first")
    async def list_(self, ctx: commands.Context[Any]) -> None:
        assert ctx.guild is not None
        found = await matches_of_guild(self.service.repo.engine, ctx.guild.id, limit=30)
        lines = [f"#{m.id} {m.game}: {' vs '.join(m.names)} ({m.status})" for m in found]
        await ctx.send("\n".join(lines) or "No matches.", ephemeral=True,
                       allowed_mentions=discord.AllowedMentions.none())

    @match.command(name="export", description="The match record: JSON and a readable transcript")
    async def export(self, ctx: commands.Context[Any], match: int | None = None) -> None:
        if match is not None and match not in self.service.matches:
            try:  # an ended match is not kept in memory after a restart: load its record
                await self.service.load(match)
            except UmpireError as exc:
                raise Refusal(NO_SUCH_MATCH) from exc
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


for _command in (HostCog.pause, HostCog.resume, HostCog.extend, HostCog.lock, HostCog.abort,
                 HostCog.award, HostCog.status, HostCog.export):
    _command.autocomplete("match")(match_choices)
HostCog.start.autocomplete("bot")(bot_choices)


def here(match: LiveMatch, guild_id: int | None) -> bool:
    """Whether `match` was started on server `guild_id`."""
    return guild_id is not None and match.transport.get("guild") == guild_id


def transcript_text(record: dict[str, Any], players: tuple[PlayerRef, ...]) -> str:
    """A readable transcript: one block per message, with where it was posted."""
    names = [p.name for p in players]
    head = [f"Match #{record['match']} ({record['game']}): {names[0]} vs {names[1]}",
            f"Status: {record['status']}; result: {record.get('result')}",
            f"Settings: {record.get('settings')}",
            f"Seed commitment (SHA-256): {record.get('seed_commitment')}",
            f"Seed: {record.get('seed') or '(revealed when the match ends)'}", ""]
    body = []
    for m in record.get("messages", []):
        place = PLACES.get(m["audience"], m["audience"]).format(*names)
        text = render_plain(m["text"], players).replace("\n", "\n    ")
        body.append(f"[{m['at']}] [{place}]\n    {text}")
    return "\n".join(head + body) + "\n"
