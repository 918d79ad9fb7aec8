"""UmpireBot: the discord.py client that puts the match service on Discord."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import Settings
from bot.discord.components import DYNAMIC_ITEMS
from bot.discord.errors import NO_SUCH_MATCH
from bot.discord.guild import GuildConfig
from bot.discord.sharding import answer_only_owned
from bot.discord.transport import DiscordTransport
from bot.store.guilds import GuildStore
from bot.umpire import MatchService

log = logging.getLogger(__name__)

SYNCED_KEY = "commands_synced"


def commands_version(tree: app_commands.CommandTree[Any]) -> str:
    """The package version and a digest of the global command set: a new version, or a
    changed command, syncs again; a plain restart does not."""
    try:
        version = importlib.metadata.version("umpire")
    except importlib.metadata.PackageNotFoundError:
        version = "dev"
    payload = json.dumps([c.to_dict(tree) for c in tree.get_commands()], sort_keys=True,
                         default=str)
    return f"{version}:{hashlib.sha256(payload.encode()).hexdigest()[:16]}"


def intents() -> discord.Intents:
    """Guilds, members (to seat players and check roles) and message content (typed moves)."""
    out = discord.Intents.default()
    out.members = True
    out.message_content = True
    return out


class UmpireTree(app_commands.CommandTree[Any]):
    """Every slash command is acknowledged first (a private "thinking..." answer), before
    any check or database work: Discord fails an interaction not acknowledged within three
    seconds. Every answer of the bot's slash commands is private to whoever used them."""

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        if interaction.type == discord.InteractionType.application_command and \
                not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)
        return True


@dataclass(frozen=True)
class Place:
    """Where a channel sits in a match: the room (seat None) or a seat's table."""

    match_id: int
    seat: int | None


class UmpireBot(commands.Bot):
    def __init__(self, service: MatchService, settings: Settings, transport: DiscordTransport,
                 **kwargs: Any) -> None:
        kwargs.setdefault("intents", intents())
        # Nobody is pinged unless a send lists their user id explicitly: a player nicknamed
        # "@everyone" or echoed text with "@here" must never ping a server.
        kwargs.setdefault("allowed_mentions", discord.AllowedMentions.none())
        kwargs.setdefault("tree_cls", UmpireTree)
        super().__init__(command_prefix=commands.when_mentioned_or(settings.discord.command_prefix),
                         help_command=None, **kwargs)
        self.service = service
        self.settings = settings
        self.transport = transport
        self.places: dict[int, Place] = {}
        self.guild_store = GuildStore(service.repo)
        transport.attach(self, service)
        if settings.shards.enabled:  # answer only the servers of the shards owned
            answer_only_owned(self, self.owns_guild)

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process umpires the server now (always, unless sharded)."""
        repo = self.service.repo
        return repo.shards is None or repo.shard_for({"guild": guild_id}) in repo.shards

    async def guild_config(self, guild_id: int) -> GuildConfig:
        """The server's effective settings (its own, else config.toml's defaults)."""
        return GuildConfig(await self.guild_store.get(guild_id), self.settings.discord)

    # --- start --------------------------------------------------------------------------
    async def setup_hook(self) -> None:
        from bot.discord.admin import SettingsCog
        from bot.discord.challenge import DYNAMIC_ITEMS as CHALLENGE_ITEMS
        from bot.discord.challenge import ChallengeCog
        from bot.discord.community import CommunityCog
        from bot.discord.help import HelpCog
        from bot.discord.host import HostCog
        from bot.discord.lifecycle import LifecycleCog
        from bot.discord.play import PlayCog
        from bot.discord.rules import RulesCog
        from bot.discord.tournament import TournamentCog
        from bot.discord.watch import WatchCog

        self.add_dynamic_items(*DYNAMIC_ITEMS)  # clicks on any earlier message
        await self.add_cog(HostCog(self))
        await self.add_cog(PlayCog(self))
        await self.add_cog(RulesCog(self))
        await self.add_cog(SettingsCog(self))
        await self.add_cog(HelpCog(self))
        await self.add_cog(CommunityCog(self))
        await self.add_cog(ChallengeCog(self))
        await self.add_cog(LifecycleCog(self))
        await self.add_cog(WatchCog(self))
        await self.add_cog(TournamentCog(self))
        self.add_dynamic_items(*CHALLENGE_ITEMS)
        self.index_matches()
        await self.sync_commands()

    async def sync_commands(self) -> None:
        """Slash commands: synced to each development server (`dev_guilds`) on every start
        (they update at once there), and globally only when this version's command set has
        not been synced yet (recorded in the database), never on every start."""
        try:
            for guild_id in self.settings.discord.dev_guilds:
                guild = discord.Object(id=guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
            if not self.settings.discord.sync_commands:
                return
            version = commands_version(self.tree)
            if await self.guild_store.fact(SYNCED_KEY) == version:
                log.info("slash commands already synced for %s", version)
                return
            await self.tree.sync()
            await self.guild_store.set_fact(SYNCED_KEY, version)
        except discord.HTTPException:
            log.exception("could not sync slash commands (prefix commands still work)")

    async def on_ready(self) -> None:
        self.index_matches()
        self.transport.ready.set()
        log.info("umpire ready as %s in %d guild(s)", self.user, len(self.guilds))
        closed = await self.transport.close_ended()
        if closed:
            log.info("closed the channels of %d match(es) that ended while they were open", closed)

    async def on_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        if isinstance(error, commands.CommandNotFound):
            return
        if ctx.cog is not None and ctx.cog.has_error_handler():
            return
        log.error("command error: %s", error)

    async def shards_adopted(self, shards: set[int]) -> None:
        """This process took shards (over): route their matches' channels here, and close
        the channels of their ended matches left open."""
        self.index_matches()
        if self.transport.ready.is_set():
            await self.transport.close_ended()

    # --- which match a channel belongs to ------------------------------------------------
    def index_matches(self) -> None:
        for match in self.service.matches.values():
            self.index_match(match.id, match.transport)

    def index_match(self, match_id: int, transport: dict[str, Any]) -> None:
        if transport.get("room"):
            self.places[int(transport["room"])] = Place(match_id, None)
        for seat in (0, 1):
            table = transport.get(f"table{seat}")
            if table:
                self.places[int(table)] = Place(match_id, seat)

    def place_of(self, channel_id: int | None) -> Place | None:
        return self.places.get(channel_id) if channel_id is not None else None

    # --- a click on a choice --------------------------------------------------------------
    def click_refusal(self, user_id: int, match_id: int, key: str,
                      guild_id: int | None = None, channel_id: int | None = None) -> str | None:
        """Why a click on decision `key` cannot be taken now, or None. A component's custom id
        can be forged: a match of another server, or a component outside the match's room and
        tables, gets the same answer as an unknown match."""
        match = self.service.matches.get(match_id)
        if match is None or not self.in_place(match, guild_id, channel_id):
            return NO_SUCH_MATCH
        prompt = next((p for p in match.prompts if p.key == key), None)
        if prompt is None or match.status not in ("active", "paused"):
            return ("That choice is no longer open: the decision was already made or its "
                    "time ran out.")
        seat = match.seat_of(f"discord:{user_id}")
        if seat is None:
            return "Only the players of this match can choose here."
        if seat != prompt.seat:
            return f"This choice is for {match.players[prompt.seat].name}, not for you."
        return None

    def in_place(self, match: Any, guild_id: int | None, channel_id: int | None) -> bool:
        """Whether a component used in `channel_id` of `guild_id` belongs to `match`: same
        server, and the match's room or one of its tables."""
        if guild_id is None or match.transport.get("guild") != guild_id:
            return False
        place = self.place_of(channel_id)
        return place is not None and place.match_id == match.id

    async def submit_choice(self, user_id: int, channel_id: int | None, match_id: int, key: str,
                            index: int, guild_id: int | None = None) -> tuple[str, bool]:
        """(refusal, accepted) for a click on choice `index` of prompt `key`."""
        refusal = self.click_refusal(user_id, match_id, key, guild_id, channel_id)
        if refusal:
            return refusal, False
        prompt = next(p for p in self.service.matches[match_id].prompts if p.key == key)
        if index not in range(len(prompt.choices)):
            return "That option is no longer offered; type your move instead.", False
        return await self.submit_text(user_id, channel_id, match_id, key, prompt.choices[index],
                                      guild_id)

    async def submit_text(self, user_id: int, channel_id: int | None, match_id: int, key: str,
                          text: str, guild_id: int | None = None) -> tuple[str, bool]:
        """(refusal, accepted) for a component's text answering decision `key`, submitted as
        if typed in the channel of the component."""
        refusal = self.click_refusal(user_id, match_id, key, guild_id, channel_id)
        if refusal:
            return refusal, False
        place = self.place_of(channel_id)
        table_of = place.seat if place is not None and place.match_id == match_id else None
        reply = await self.service.submit(match_id, f"discord:{user_id}", text,
                                          table_of=table_of, prompt_key=key)
        if reply.ignored:
            return "Only the players of this match can choose here.", False
        return reply.message, reply.accepted
