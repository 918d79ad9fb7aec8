"""`/tournament`: events run by the bot on Discord.

Hosts (host role or Manage Server) create an event and run it: open and close sign-ups,
seed, start, pause, resume, replace a player, award a match, end it. Members join and leave
while sign-ups are open; everyone can `show` an event (one message per event, kept up to
date by editing it) and see a member's `history` of events. Each round's matches start
through the same launch as `/match start` (channels, tables, clocks, host controls); the
event runner (bot/tournament/runner.py) advances the event with each result.
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord import launch
from bot.discord.errors import Refusal, answer_error, defer
from bot.discord.event_views import STATUS_WORDS, show_embed
from bot.discord.feed import feed_problem
from bot.discord.gate import POST, READ, Who, requires, target
from bot.discord.options import validate_settings
from bot.discord.render import EVENT_LIMIT, escape, player_id, player_ref, shown
from bot.discord.sharding import LostShard, may_post
from bot.live import LiveMatch
from bot.ratings import ordinal, standings
from bot.tournament import event as ev
from bot.tournament.event import Entrant, Event, EventError, named_state
from bot.tournament.formats import FORMATS, FormatError, format_named
from bot.tournament.formats.base import Pairing
from bot.tournament.record import event_record
from bot.tournament.render import bracket_png, needs_picture
from bot.tournament.runner import EventRunner
from bot.transport import PlayerRef
from games.registry import all_games, get_game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)

GameName = Literal[tuple(all_games())]  # type: ignore[valid-type]  # (built from the registry: discord.py reads its choices)
FormatName = Literal[tuple(FORMATS)]  # type: ignore[valid-type]  # (built from the registry: discord.py reads its choices)
NONE = discord.AllowedMentions.none()


class TournamentCog(commands.Cog, name="Tournament"):
    """Events: many matches of one game, run round after round by the bot."""

    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot
        # Made with the cog, before the clocks run (the login): it hears every match's end.
        self.runner = EventRunner(bot.service, self._start_match)
        self.runner.listeners.append(self._changed)
        self._resumed = False

    async def cog_unload(self) -> None:
        await self.runner.stop()

    async def cog_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        await answer_error(ctx, error)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Once connected (channels can be made): take up the running events."""
        if self._resumed:
            return
        self._resumed = True
        try:
            await self.runner.resume()
        except Exception:
            log.exception("could not resume the running events")

    # --- the runner's Discord side ------------------------------------------------------------
    async def _start_match(self, event: Event, pairing: Pairing, players: list[PlayerRef],
                           transport: dict[str, Any]) -> LiveMatch:
        guild = self.bot.get_guild(event.guild)
        if guild is None:
            raise Refusal("the bot is not in the event's server any more")
        members = [guild.get_member(int(p.id.split(":", 1)[1])) if p.bot is None else None
                   for p in players]
        refs = [player_ref(m.id, m.display_name) if m is not None else p
                for m, p in zip(members, players, strict=True)]
        live, _ = await launch.launch(self.bot, guild, get_game(event.game), members, refs,
                                      event.settings, None, extra=transport)
        return live

    async def _changed(self, event: Event, note: str | None) -> None:
        """Post the runner's line in the event's channel, and edit the show message (only
        while this process umpires the event's server: sharded, its shard may be lost)."""
        channel = self._channel(event)
        if channel is None or not may_post(self.bot, {"guild": event.guild}):
            return
        if note:
            try:
                await channel.send(note[:2000], allowed_mentions=NONE)
            except discord.HTTPException as exc:
                log.warning("event %s: a line was not posted: %s", event.id, exc)
        message_id = event.place.get("message")
        if message_id:
            try:
                await channel.get_partial_message(int(message_id)).edit(
                    content=None, embed=show_embed(event))
            except discord.HTTPException as exc:
                log.warning("event %s: the show message was not edited: %s", event.id, exc)

    def _channel(self, event: Event) -> Any:
        channel_id = event.place.get("channel")
        return self.bot.get_channel(int(channel_id)) if channel_id else None

    # --- finding the event -------------------------------------------------------------------
    async def _event(self, ctx: commands.Context[Any], event_id: int | None, *,
                     latest: bool = False) -> Event:
        """The event named, else the one open here (`latest`: else the newest, ended too)."""
        if ctx.guild is None:
            raise Refusal("Events are run in a server: use this command in one.")
        if event_id is not None:
            found = await self.runner.stored(event_id)
            if found is None or found.guild != ctx.guild.id:
                raise Refusal("No such event here.")
            return found
        open_ones = await self.runner.of_guild(ctx.guild.id, open_only=True)
        if len(open_ones) == 1:
            return open_ones[0]
        newest = await self.runner.of_guild(ctx.guild.id, limit=1) \
            if latest and not open_ones else []
        if newest:
            return newest[0]
        if not open_ones:
            raise Refusal("No event is open in this server; a host creates one with "
                          "`/tournament create`.")
        names = ", ".join(f"#{e.id} {e.name}" for e in open_ones)
        raise Refusal(f"Several events are open ({names}): name one with the `event` option.")

    async def _hosted(self, ctx: commands.Context[Any], event_id: int | None) -> Event:
        """The event the gate let this host run (a host who plays in it cannot)."""
        return target(ctx)

    async def gate_target(self, ctx: commands.Context[Any], named: dict[str, Any]) -> Event:
        """The event a host command names (bot/discord/gate.py decides who may run it)."""
        latest = ctx.command is not None and ctx.command.name == "export"
        return await self._event(ctx, named.get("event"), latest=latest)

    async def _do(self, ctx: commands.Context[Any], work: Any) -> Any:
        """Run a runner step; an event's or a format's refusal is the host's sentence."""
        try:
            return await work
        except (EventError, FormatError) as exc:
            raise Refusal(str(exc)) from exc

    async def _say(self, ctx: commands.Context[Any], text: str) -> None:
        await ctx.send(text[:2000], ephemeral=True, allowed_mentions=NONE)

    # --- the group ----------------------------------------------------------------------------
    @commands.hybrid_group(name="tournament", description="Events run by the bot")
    @app_commands.guild_only()
    @requires(Who.ANYONE)
    async def tournament(self, ctx: commands.Context[Any]) -> None:
        if ctx.invoked_subcommand is None:
            await self._say(ctx, "Subcommands: create, open, close, seed, start, pause, resume, "
                                 "replace, award, end, export (hosts); join, leave, show, "
                                 "history.")

    @tournament.command(name="create", description="Create an event (hosts)")
    @app_commands.describe(name="the event's name", game="the game", format="the format",
                           settings="the matches' settings: key=value pairs or JSON",
                           rated="whether its matches count for the ratings",
                           break_seconds="the break between two rounds, in seconds",
                           cap="the most players sign-ups take",
                           rounds="Swiss: the number of rounds",
                           feed="a read-only spectator feed for every match of the event")
    @requires(Who.HOST)
    async def create(self, ctx: commands.Context[Any], name: str,
                     game: GameName, format: FormatName,  # type: ignore[valid-type]  # (GameName: a Literal built at import)
                     settings: str | None = None, rated: bool = True,
                     break_seconds: commands.Range[int, 0, 86400] = 60,
                     cap: commands.Range[int, 2, 256] | None = None,
                     rounds: commands.Range[int, 1, 50] | None = None,
                     feed: discord.TextChannel | None = None) -> None:
        await defer(ctx, ephemeral=True)
        assert ctx.guild is not None and ctx.channel is not None
        found = get_game(str(game))
        parsed = validate_settings(found, settings)
        if feed is not None:  # (checked again before every post, as a match's feed is)
            if feed.id == ctx.channel.id:
                raise Refusal("The event's announcements go in this channel: the spectator "
                              "feed needs a channel of its own. Name another one.")
            problem = feed_problem(self.bot, feed)
            if problem:
                raise Refusal(problem)
        event = await self._do(ctx, self.runner.create(
            name=escape(name, EVENT_LIMIT), game=found.slug, format=str(format), settings=parsed, rated=rated,
            break_seconds=int(break_seconds), cap=cap, rounds=rounds, guild=ctx.guild.id))
        event, _ = await self.runner.change(
            event.id, lambda e: (ev.placed(e, channel=ctx.channel.id,
                                           feed=feed.id if feed else None), None))
        if not may_post(self.bot, {"guild": ctx.guild.id}):  # (sharded: lost meanwhile)
            raise LostShard()
        await ctx.channel.send(
            f"📣 Event #{event.id}: **{event.name}** ({found.title}, "
            f"{format_named(event.format).label or event.format}). Seeding at random draws "
            f"from a secret seed committed to now: SHA-256 `{event.commitment}` (seed and salt "
            "are revealed when the event starts)." +
            (f" Spectator feed of every match: {feed.mention}." if feed else ""),
            allowed_mentions=NONE)
        await self._say(ctx, f"Event #{event.id} created. Open sign-ups with "
                             "`/tournament open`.")

    @tournament.command(name="open", description="Open sign-ups (hosts)")
    @requires(Who.EVENT_HOST)
    async def open_(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        await self._do(ctx, self.runner.change(
            found.id, lambda e: (ev.open_signups(e), None),
            f"📝 Sign-ups for **{found.name}** are open: `/tournament join`" +
            (f" ({found.cap} places)." if found.cap else ".")))
        await self._say(ctx, f"Sign-ups for {found.name} are open.")

    @tournament.command(name="close", description="Close sign-ups (hosts)")
    @requires(Who.EVENT_HOST)
    async def close(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        done, _ = await self._do(ctx, self.runner.change(
            found.id, lambda e: (ev.close_signups(e), None),
            f"🔒 Sign-ups for **{found.name}** are closed: {len(found.entrants)} players."))
        await self._say(ctx, f"Sign-ups closed: {len(done.entrants)} players. Seed them with "
                             "`/tournament seed`, or start (a random draw).")

    @tournament.command(name="seed", description="Seed the players (hosts)")
    @app_commands.describe(method="by rating (as the leaderboard) or a random draw")
    @requires(Who.EVENT_HOST)
    async def seed(self, ctx: commands.Context[Any], method: Literal["rating", "random"],
                   event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        if method == "rating":
            rated = await standings(self.runner.engine, found.guild, found.game,
                                    [e.id for e in found.entrants], limit=1000)
            ratings = {s.player_id: ordinal(s.mu, s.sigma) for s in rated}
            done, _ = await self._do(ctx, self.runner.change(
                found.id, lambda e: (ev.seed_by_rating(e, ratings), None)))
        else:
            done, _ = await self._do(ctx, self.runner.change(
                found.id, lambda e: (ev.seed_at_random(e), None)))
        order = ", ".join(f"{i}. {e.name}" for i, e in enumerate(done.entrants, 1))
        how = "by rating" if method == "rating" else "by the committed random draw"
        await self.runner.tell(done, f"🎯 {done.name} seeded {how}: {order}")
        await self._say(ctx, f"Seeded {how}.")

    @tournament.command(name="start", description="Start the event: round 1 begins (hosts)")
    @requires(Who.EVENT_HOST)
    async def start(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        await self._do(ctx, self.runner.start_event(found.id))
        await self._say(ctx, f"{found.name} started.")

    @tournament.command(name="pause", description="Pause the event and its matches (hosts)")
    @requires(Who.EVENT_HOST)
    async def pause(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        await self._do(ctx, self.runner.pause(found.id))
        await self._say(ctx, f"{found.name} paused.")

    @tournament.command(name="resume", description="Resume a paused event (hosts)")
    @requires(Who.EVENT_HOST)
    async def resume(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        await self._do(ctx, self.runner.resume_event(found.id))
        await self._say(ctx, f"{found.name} resumed.")

    @tournament.command(name="end", description="End the event now (hosts)")
    @requires(Who.EVENT_HOST)
    async def end(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        await self._do(ctx, self.runner.end(found.id))
        await self._say(ctx, f"{found.name} ended.")

    @tournament.command(name="replace", description="A player drops: walkover, and a "
                                                    "substitute if you name one (hosts)")
    @app_commands.describe(player="the player who drops",
                           substitute="who takes their place (left out: they withdraw)")
    @requires(Who.EVENT_HOST)
    async def replace(self, ctx: commands.Context[Any], player: discord.Member,
                      substitute: discord.Member | None = None,
                      event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        sub = None
        if substitute is not None:
            if substitute.bot:
                raise Refusal(f"{shown(substitute)} is a Discord bot account.")
            ref = player_ref(substitute.id, substitute.display_name)
            sub = Entrant(id=ref.id, name=ref.name)
        await self._do(ctx, self.runner.replace(found.id, player_id(player.id), sub))
        what = f"{sub.name} replaces {shown(player)}" if sub else f"{shown(player)} withdrew"
        await self._say(ctx, f"{what}; the match they were playing is a walkover.")

    @tournament.command(name="award", description="Award a match of the event (hosts)")
    @app_commands.describe(match="the match number", player="the winner")
    @requires(Who.EVENT_HOST)
    async def award(self, ctx: commands.Context[Any], match: int, player: discord.Member,
                    event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        await self._do(ctx, self.runner.award(found.id, match, player_id(player.id)))
        await self._say(ctx, f"Match #{match} awarded to {shown(player)}.")

    @tournament.command(name="export", description="The event's full record as JSON, "
                                                   "verifiable with `umpire verify` (hosts)")
    @requires(Who.EVENT_HOST)
    async def export(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._hosted(ctx, event)
        record = await self._do(ctx, event_record(self.bot.service, found.id))
        data = self.bot.service.export_json(record).encode()
        note = ("every match has ended: each one's secrets are included." if
                found.status == "ended" else "the event is not over: a running match has only "
                "its public messages, and it verifies once it has ended.")
        await ctx.send(f"Record of {found.name} (#{found.id}), {len(record['matches'])} "
                       f"matches; check it with `umpire verify event-{found.id}.json`: {note}",
                       ephemeral=True, allowed_mentions=NONE, files=[
                           discord.File(io.BytesIO(data), filename=f"event-{found.id}.json")])

    # --- members --------------------------------------------------------------------------------
    @tournament.command(name="join", description="Sign up for the open event")
    @requires(Who.ANYONE, pace=POST)
    async def join(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._event(ctx, event)
        ref = player_ref(ctx.author.id, ctx.author.display_name)
        done, _ = await self._do(ctx, self.runner.change(
            found.id, lambda e: (ev.join(e, Entrant(id=ref.id, name=ref.name)), None)))
        await self._say(ctx, f"You are signed up for {found.name} ({len(done.entrants)} "
                             "players so far).")

    @tournament.command(name="leave", description="Leave an event before it starts")
    @requires(Who.ANYONE, pace=POST)
    async def leave(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._event(ctx, event)
        await self._do(ctx, self.runner.change(
            found.id, lambda e: (ev.leave(e, player_id(ctx.author.id)), None)))
        await self._say(ctx, f"You left {found.name}.")

    @tournament.command(name="show", description="The event's standings or bracket, kept up "
                                                 "to date in one message")
    @requires(Who.ANYONE, pace=POST)
    async def show(self, ctx: commands.Context[Any], event: int | None = None) -> None:
        await defer(ctx, ephemeral=True)
        found = await self._event(ctx, event)
        channel = self._channel(found) or ctx.channel
        files = []
        if found.state is not None and needs_picture(named_state(found, self.runner.fmt(found))):
            picture = bracket_png(named_state(found, self.runner.fmt(found)))
            files = [discord.File(io.BytesIO(picture), filename=f"event-{found.id}.png")]
        message_id = found.place.get("message")
        if message_id:
            try:
                message = channel.get_partial_message(int(message_id))  # type: ignore[union-attr]  # (a server's channel)
                await message.edit(embed=show_embed(found), attachments=files)
                await self._say(ctx, f"The event's message is kept up to date: {message.jump_url}")
                return
            except discord.NotFound:
                pass  # deleted: post it again
        if not may_post(self.bot, {"guild": found.guild}):  # (sharded: lost meanwhile)
            raise LostShard()
        posted = await channel.send(embed=show_embed(found), files=files, allowed_mentions=NONE)
        await self.runner.change(found.id, lambda e: (ev.placed(
            e, channel=channel.id, message=posted.id), None))
        await self._say(ctx, f"Posted; it is edited as the event goes: {posted.jump_url}")

    @tournament.command(name="history", description="A member's events in this server")
    @requires(Who.ANYONE, pace=READ("tournament history"))
    async def history(self, ctx: commands.Context[Any],
                      member: discord.Member | None = None) -> None:
        await defer(ctx, ephemeral=True)
        if ctx.guild is None:
            raise Refusal("Events are kept per server: use this command in one.")
        who = member or ctx.author
        pid = player_id(who.id)
        events = await self.runner.of_player(ctx.guild.id, pid)
        lines = [f"**{shown(who)}**'s events:"]
        for e in events:
            fmt = self.runner.fmt(e)
            place = ""
            if e.state is not None:
                table = fmt.standings(fmt.load(e.state))
                mine = next((s for s in table if s.player == pid), None)
                if mine is not None:
                    place = f", rank {mine.rank} ({mine.wins}-{mine.draws}-{mine.losses})"
            lines.append(f"#{e.id} {e.name} ({get_game(e.game).title}, "
                         f"{STATUS_WORDS[e.status]}){place}")
        if not events:
            lines.append("No event yet.")
        await self._say(ctx, "\n".join(lines))


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(TournamentCog(bot))
