"""Routing: plain messages in a match's game room or table channel go to the service.

Answers the bot posts itself in a player's table (a refusal) are checked like the outbox's
(`DiscordTransport.safe`): not posted while someone else could read the table. In threads
mode a player who left their table thread is added back on their next message in the room,
or on `/mine`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.discord.gate import REPLY, Who, requires
from bot.discord.pacing import Priority, sending
from bot.discord.places import channel_for
from bot.discord.render import player_id
from bot.discord.sharding import may_post
from bot.umpire import Reply

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot
    from bot.discord.routing import Place

log = logging.getLogger(__name__)


class PlayCog(commands.Cog, name="Play"):
    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    @requires(Who.SEAT, pace=REPLY)
    async def on_message(self, message: discord.Message) -> None:
        """A typed message in a match's room or table: the gate says whether it is a
        player's (else chat: never read); the answer to a refused one is paced (`REPLY`)."""
        if message.author.bot or message.guild is None:
            return
        place = self.bot.routing.place_of(message.channel.id)
        if place is None or not message.content.strip():
            return
        prefix = self.bot.settings.discord.command_prefix
        if prefix and message.content.startswith(prefix):
            return  # a command (handled by the command framework, gated there)
        if not self.bot.gate.message(message, self.bot.api.live(place.match_id)):
            return  # not a player of this match: chat
        if place.seat is None:
            await self._rejoin(place.match_id, message.author)
            if self.is_chat(place.match_id, message.content):
                return  # chat in the game room: no answer at all
        try:
            reply = await self.bot.service.submit(place.match_id, player_id(message.author.id),
                                                  message.content, table_of=place.seat,
                                                  message_ref=str(message.id))
        except Exception:
            log.exception("could not handle a message in match %s", place.match_id)
            reply = Reply(False, "Something went wrong on the umpire's side; nothing was "
                                 "applied. Please try again (the hosts can see the bot's log).")
        if reply.accepted or reply.ignored or not reply.message:
            return
        with sending(Priority.PROMPT, message.guild.id):  # a refusal: ahead of announcements
            await self._refuse(message, place, reply)

    async def _refuse(self, message: discord.Message, place: Place, reply: Reply) -> None:
        match = self.bot.api.live(place.match_id)
        seat = match.seat_of(player_id(message.author.id)) if match is not None else None
        if place.seat is not None and place.seat == seat:
            if self.bot.gate.may_reply(message.author.id, message.channel.id) and \
                    await self._private_ok(place.match_id, seat):
                await self._answer(message, reply.message)  # their own table: right there
            return
        await self._refuse_privately(message, place.match_id, reply)

    @commands.Cog.listener()
    @requires(Who.SEAT)
    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        """An edit of a move typed in the game room: while the move waits in its fix window
        (Decoder's prompt fix) the edited text is the move; any other edit changes nothing.
        Nothing is answered here (what the sender is told goes to their table)."""
        place = self.bot.routing.place_of(payload.channel_id)
        message = payload.message
        if place is None or place.seat is not None or message.author.bot or \
                "content" not in payload.data:
            return
        if not self.bot.gate.message(message, self.bot.api.live(place.match_id)):
            return  # not a player of this match: chat
        # (what the sender is told goes to their table through the outbox)
        await self.bot.service.fix(place.match_id, player_id(message.author.id),
                                   message.content, message_ref=str(message.id))

    @commands.Cog.listener()
    @requires(Who.SEAT)
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        """A move deleted in the game room while it waits in its fix window: withdrawn. The
        deletion names no author: only a message that holds a player's waiting move acts
        (the service finds it by the message), and nothing is answered here."""
        place = self.bot.routing.place_of(payload.channel_id)
        if place is None or place.seat is not None:
            return
        # (the sender is told in their table, through the outbox: the deletion names no one)
        await self.bot.service.withdraw(place.match_id, message_ref=str(payload.message_id))

    def is_chat(self, match_id: int, text: str) -> bool:
        """Text in the game room that does not start with one of the game's move words
        (public facts only: the same text is chat or a move whatever anyone holds)."""
        match = self.bot.api.live(match_id)
        if match is None:
            return False
        words = match.game.move_words(match.state)
        return words is not None and not words.matches(text)

    @commands.hybrid_command(
        name="mine", description="What you know in your match: your pool, hand, tanks (private)")
    @requires(Who.ANYONE)
    async def mine(self, ctx: commands.Context[Any]) -> None:
        """A player's own view, as the seeds allow ("ask any time, in private")."""
        user_id = player_id(ctx.author.id)
        service = self.bot.service
        place = self.bot.routing.place_of(ctx.channel.id if ctx.channel else None)
        match_id = place.match_id if place is not None else None
        if match_id is None:
            mine = self.bot.api.running_of(user_id)
            match_id = mine[0].id if len(mine) == 1 else None
        match = self.bot.api.live(match_id)
        seat = match.seat_of(user_id) if match is not None else None
        if match is None or seat is None:
            await ctx.send("You are not playing a match here.", ephemeral=True)
            return
        await self._rejoin(match.id, ctx.author)
        private = ctx.interaction is not None or (place is not None and place.seat == seat
                                                  and await self._private_ok(match.id, seat))
        if not private:
            await ctx.send("Ask with `/mine` (only you see the answer), or type "
                           f"`{ctx.prefix}mine` in your table channel.")
            return
        text = service.describe(match.id, user_id)  # names already filled in (one pass)
        await ctx.send(f"**Match #{match.id}, what you know:**\n{text}", ephemeral=True)

    async def _rejoin(self, match_id: int, user: discord.abc.User) -> None:
        """A player of a threads-mode match who left their table thread is added back."""
        from bot.discord.threads import rejoin

        match = self.bot.api.live(match_id)
        if match is not None and isinstance(user, discord.Member) and \
                match.transport.get("mode") == "threads":
            await rejoin(self.bot.transport, user.guild, match, user)

    async def _private_ok(self, match_id: int, seat: int) -> bool:
        """Whether the seat's table may get a private answer now (only its intended readers
        can read it); if not, the answer is not posted (the outbox holds the match's own
        messages there, and the hosts are told)."""
        match = self.bot.api.live(match_id)
        if match is None:
            return False
        why = await self.bot.transport.privacy.safe(match.info, f"seat{seat}")
        if why is not None:
            log.warning("match %s: no private answer in seat %s's table: %s", match_id, seat, why)
        return why is None

    async def _answer(self, message: discord.Message, text: str) -> None:
        """A refusal in the player's own table channel, as a reply that pings nobody."""
        try:
            await message.reply(text, mention_author=False,
                                allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.warning("could not answer in channel %s: %s", message.channel.id, exc)

    async def _refuse_privately(self, message: discord.Message, match_id: int,
                                reply: Reply) -> None:
        """A refusal of text typed anywhere but the player's own table (the game room): it
        goes to their table channel only, never to the room, since a refusal can describe
        private state. A private move typed in the room is deleted there where allowed."""
        deleted = False
        channel = message.channel
        if reply.delete:
            me = message.guild.me if message.guild else None
            can_delete = (self.bot.settings.discord.delete_private_in_public and me is not None
                          and isinstance(channel, discord.abc.GuildChannel)
                          and channel.permissions_for(me).manage_messages)
            if can_delete:
                try:
                    await message.delete()
                    deleted = True
                except discord.HTTPException as exc:
                    log.warning("could not delete a private move in the room: %s", exc)
        match = self.bot.api.live(match_id)
        seat = match.seat_of(player_id(message.author.id)) if match else None
        table = channel_for(match.transport, f"seat{seat}") if match and seat is not None else None
        if table and not self.bot.gate.may_reply(message.author.id, table):
            return  # told a moment ago; a deleted private move is still deleted
        target: Any = self.bot.get_channel(table) if table else None
        if target is None:
            log.warning("match %s: no table channel to send a refusal to", match_id)
            return
        if seat is None or not await self._private_ok(match_id, seat):
            return
        room = channel_for(match.transport, "public") if match else None
        where = "the game room" if channel.id == room else getattr(channel, "mention", "a channel")
        head = f"Your message in {where} was not applied: "
        if reply.delete:
            head = (f"I deleted your message in {where}. " if deleted else
                    f"I could not delete your message in {where}; delete it yourself. ")
        if match is not None and not may_post(self.bot, match.transport):
            return
        try:
            await target.send(f"{head}{reply.message}",  # never a ping
                              allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.warning("could not tell a player why their move was refused: %s", exc)


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(PlayCog(bot))
