"""Whether a match's channel may take a post now, and who can read it: the privacy
check every post of the outbox passes first (the transport's `check`), the verdicts kept
until the server changes, and the readers a table or the host log is meant for.

A table is for its player, the hosts who do not play the match and the bot; the host log
for the hosts who do not play it; the game room is public (only the bot's own access is
checked there); a spectator feed is read by anyone, so who may write there is checked
instead (bot/discord/feed.py). Its own module, split from the transport: the channel
keeper, the threads, the typed-move routing and the archive ask it too."""

from __future__ import annotations

import time

import aiohttp
import discord

from bot.discord.feed import writers_problem
from bot.discord.places import AUDIENCE_KEYS, channel_for, where
from bot.discord.render import user_id_of
from bot.discord.visibility import Intended, Place, bot_missing, describe, unintended_readers
from bot.facade import UmpireApi
from bot.transport import ChannelHeld, MatchInfo, TransportError

#: A verdict of who reads a channel is recomputed after this long even without an event.
VERDICT_SECONDS = 10.0
ENDED = ("finished", "aborted")


class ChannelPrivacy:
    def __init__(self) -> None:
        self.client: discord.Client | None = None
        self.api: UmpireApi | None = None
        #: Private threads whose member list was fetched once (the gateway keeps it since).
        self._members_known: set[int] = set()
        #: Per server, bumped by every event that may change who reads what (`changed`).
        self._generation: dict[int, int] = {}
        #: (match, audience, channel) -> (generation, when, why not private or None).
        self._verdicts: dict[tuple[int, str, int], tuple[int, float, str | None]] = {}

    def attach(self, client: discord.Client, api: UmpireApi) -> None:
        self.client, self.api = client, api

    async def check(self, match: MatchInfo, audience: str, channel_id: int) -> None:
        """Raise `ChannelHeld` unless the bot may post in the channel now and, for a private
        audience, only its intended readers (and the bot) can read it."""
        client = self.client
        assert client is not None
        guild_id = int(match.transport.get("guild") or 0)
        guild = client.get_guild(guild_id) if guild_id else None
        if guild is None:
            if not guild_id:
                return  # not a match of a server (a test's or the console's)
            raise ChannelHeld(f"server {guild_id} not available", for_hosts=(
                f"I cannot see the server of match #{match.id} right now."))
        found = await self.find(guild, channel_id)
        if found is None:
            raise ChannelHeld(f"channel {channel_id} not found", for_hosts=(
                f"I cannot find or see {where(match, audience, channel_id)}. Let me see it "
                "and post there."))
        try:
            missing = bot_missing(found)
            if missing:
                raise ChannelHeld(f"channel {channel_id}: missing {', '.join(missing)}",
                                  for_hosts=(
                    f"I cannot post in {where(match, audience, channel_id)}: I lack "
                    f"{', '.join(missing)} there. Give it back to me."))
            if audience != "feed" and (audience == "public" or self.ended(match.id)):
                return  # the room is public; an ended match's secrets are revealed
            problem = await self.verdict(match, audience, guild, found)
        except (LookupError, discord.ClientException) as exc:  # a thread's parent unknown
            raise ChannelHeld(f"channel {channel_id}: {exc}", for_hosts=(
                f"I cannot tell who reads {where(match, audience, channel_id)}.")) from exc
        if problem is not None:
            raise ChannelHeld(f"channel {channel_id} " + (
                "writable by others" if audience == "feed" else "readable by others"),
                for_hosts=problem)

    async def verdict(self, match: MatchInfo, audience: str, guild: discord.Guild,
                       found: discord.TextChannel | discord.Thread) -> str | None:
        """Why the channel is not private to its intended readers (a spectator feed: why
        others may write in it), or None. The verdict is kept until the server's next change (a listener calls `changed`), at most
        VERDICT_SECONDS: a check costs one permission computation per distinct set of roles
        in the server (about 9 ms for 10,000 members with 300 such sets)."""
        key = (match.id, audience, found.id)
        generation = self._generation.get(guild.id, 0)
        kept = self._verdicts.get(key)
        if kept is not None and kept[0] == generation and \
                time.monotonic() - kept[1] < VERDICT_SECONDS:
            return kept[2]
        if audience == "feed":  # read by anyone: who may write there is checked instead
            problem = writers_problem(found) if isinstance(found, discord.TextChannel) else None
            self._verdicts[key] = (generation, time.monotonic(), problem)
            return problem
        intended = await self.intended(match, audience, guild)
        place = Place.of(found, await self.thread_members(found))
        readers = unintended_readers(place, intended)
        problem = None
        if readers:
            said = where(match, audience, found.id)
            problem = (f"{said[0].upper()}{said[1:]} can be read by "
                       f"{describe(place, readers, intended)}. Remove that access.")
        self._verdicts[key] = (generation, time.monotonic(), problem)
        return problem

    def changed(self, guild_id: int | None = None) -> None:
        """Something that may change who reads a channel of the server (every server's
        when None) happened: verdicts kept from before no longer hold."""
        if guild_id is None:
            self._verdicts.clear()
        else:
            self._generation[guild_id] = self._generation.get(guild_id, 0) + 1

    async def hosts_only(self, channel: discord.TextChannel) -> str | None:
        """Why `channel` is not read by hosts only (a match's transcript, every secret in it,
        goes there), or None."""
        intended = Intended(host_role_id=await self.host_role_id(channel.guild))
        place = Place.of(channel)
        readers = unintended_readers(place, intended)
        if not readers:
            return None
        return (f"The host log {channel.mention} can be read by "
                f"{describe(place, readers, intended)}: only hosts may read a match's "
                "transcript. Remove that access and try again.")

    def ended(self, match_id: int) -> bool:
        live = self.api.live(match_id) if self.api is not None else None
        return live is not None and live.status in ENDED

    async def safe(self, match: MatchInfo, audience: str) -> str | None:
        """None if a private answer may be posted to `audience` now, else why not (for
        answers posted outside the outbox: a refusal in a player's table)."""
        channel_id = channel_for(match.transport, audience)
        if channel_id is None or self.client is None:
            return "no such channel"
        try:
            await self.check(match, audience, channel_id)
        except ChannelHeld as exc:
            return exc.for_hosts
        return None

    async def intended(self, match: MatchInfo, audience: str,
                       guild: discord.Guild) -> Intended:
        """Who may read `audience` of the match: a table its player and the hosts who do not
        play the match; the host log the hosts who do not play it."""
        players = {seat: uid for seat, p in enumerate(match.players)
                   if (uid := user_id_of(p)) is not None}
        host_role = await self.host_role_id(guild)
        if audience.startswith("seat"):
            own = players.get(int(audience[4:]))
            mine = frozenset({own} if own is not None else ())
            return Intended(members=mine, barred=frozenset(players.values()) - mine,
                            host_role_id=host_role)
        return Intended(barred=frozenset(players.values()), host_role_id=host_role)

    async def host_role_id(self, guild: discord.Guild) -> int | None:
        config = getattr(self.client, "guild_config", None)
        if config is None:
            return None
        role = (await config(guild.id)).host_role(guild)
        return role.id if role is not None else None

    async def find(self, guild: discord.Guild,
                    channel_id: int) -> discord.TextChannel | discord.Thread | None:
        """The channel or thread from the cache, else from Discord (an archived thread is
        not cached); None when it is gone or the bot may not see it."""
        found = guild.get_channel_or_thread(channel_id)
        if found is None and self.client is not None:
            try:
                found = await self.client.fetch_channel(channel_id)  # type: ignore[assignment]  # (a fetched guild channel is a guild channel or thread)
            except (discord.NotFound, discord.Forbidden):
                return None
            except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
                raise TransportError(f"could not look up channel {channel_id}: {exc}") from exc
        return found if isinstance(found, discord.TextChannel | discord.Thread) else None

    async def thread_members(self, found: discord.TextChannel | discord.Thread) -> set[int]:
        """A private thread's members: the gateway's list, fetched once per thread (the
        gateway announces who joins and leaves after that, but not who was in it before)."""
        if not isinstance(found, discord.Thread) or \
                found.type != discord.ChannelType.private_thread:
            return set()
        if found.id not in self._members_known:
            try:
                for member in await found.fetch_members():
                    found._add_member(member)
            except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
                raise TransportError(f"could not list thread {found.id}: {exc}") from exc
            if found.guild.get_thread(found.id) is found:
                self._members_known.add(found.id)
        return {m.id for m in found.members}

    def forget(self, match: MatchInfo) -> None:
        """Drop what is kept of a closed match (its verdicts, its threads' member lists)."""
        for key in AUDIENCE_KEYS.values():
            if key != "log" and (cid := match.transport.get(key)):
                self._members_known.discard(int(cid))
        self._verdicts = {k: v for k, v in self._verdicts.items() if k[0] != match.id}

    def memory(self) -> int:
        """Entries kept per match or channel (for tests: it must not grow with ended ones)."""
        return len(self._members_known) + len(self._verdicts)
