"""UmpireBot: the discord.py client that puts the match service on Discord."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.config import Settings
from bot.discord.archives import Archives
from bot.discord.closing import MatchClosing
from bot.discord.cogs import EXTENSIONS
from bot.discord.components import DYNAMIC_ITEMS
from bot.discord.errors import answer_error
from bot.discord.gate import Gate
from bot.discord.guild import GuildConfig
from bot.discord.keeper import Keeper
from bot.discord.match_index import MatchIndex
from bot.discord.routing import Routing
from bot.discord.sharding import ShardContext, answer_only_owned
from bot.discord.transport import DiscordTransport
from bot.facade import UmpireApi
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
    seconds. Every answer of the bot's slash commands is private to whoever used them. A
    slash command that is not hybrid is then decided by the gate (bot/discord/gate.py;
    hybrid ones are decided with their context, in the bot's before-invoke hook)."""

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        if interaction.type != discord.InteractionType.application_command:
            return True
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)
        return await interaction.client.gate.app_command(interaction)

    async def on_error(self, interaction: discord.Interaction[Any],
                       error: app_commands.AppCommandError) -> None:
        if isinstance(error, app_commands.CheckFailure):
            return  # the gate refused it and answered (bot/discord/gate.py)
        await super().on_error(interaction, error)


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
        #: What the cogs ask of the service (they never reach into its matches or store).
        self.api = UmpireApi(service)
        self.settings = settings
        self.transport = transport
        #: Which match a channel belongs to, and where a click goes.
        self.routing = Routing(self.api, service)
        self.guild_store = self.api.guild_settings
        #: This server's matches in memory, for `/match` autocomplete (never waits on the store).
        self.match_index = MatchIndex(self.api)
        #: Who may act, how often, in what order: every command, component and typed
        #: message is decided there.
        self.gate = Gate(self)
        self.before_invoke(self.gate.command)
        self.after_invoke(self._released)
        transport.attach(self, self.api)
        #: Each match's channel work under way: its lock, scheduled archives, starts.
        self.archives = Archives()
        #: The end of a match's channels: read-only, the Rematch offer, the archive.
        self.closing = MatchClosing(self, transport, self.api)
        transport.closing = self.closing
        #: Puts back the channels the bot made when someone changes them (keeper.py).
        self.keeper = Keeper(self)
        transport.keeper = self.keeper
        if settings.shards.enabled:  # answer only the servers of the shards owned
            answer_only_owned(self, self.owns_guild)

    async def get_context(self, origin: Any, /, *, cls: Any = ShardContext) -> Any:
        """Commands' contexts: their replies are posted only while this process umpires
        the server (bot/discord/sharding.py)."""
        return await super().get_context(origin, cls=cls)

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process umpires the server now (always, unless sharded)."""
        return self.api.owns_guild(guild_id)

    async def guild_config(self, guild_id: int) -> GuildConfig:
        """The server's effective settings (its own, else config.toml's defaults)."""
        return GuildConfig(await self.guild_store.get(guild_id), self.settings.discord)

    # --- start --------------------------------------------------------------------------
    async def setup_hook(self) -> None:
        self.add_dynamic_items(*DYNAMIC_ITEMS)  # clicks on any earlier message
        for name in EXTENSIONS:  # each adds its cog (and its own dynamic items)
            await self.load_extension(name)
        self.routing.index_matches()
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
        self.routing.index_matches()
        self.transport.ready.set()
        log.info("umpire ready as %s in %d guild(s)", self.user, len(self.guilds))
        for guild in self.guilds:  # (what changed while the bot was away)
            self.keeper.keep(guild.id)
        closed = await self.closing.close_ended()
        if closed:
            log.info("closed the channels of %d match(es) that ended while they were open", closed)

    async def _released(self, ctx: commands.Context[Any]) -> None:
        self.gate.release(ctx)  # (the command is done)

    async def close(self) -> None:
        self.keeper.stop()
        await super().close()

    async def on_command_error(self, ctx: commands.Context[Any], error: Exception) -> None:
        self.gate.release(ctx)  # (the command failed)
        if isinstance(error, commands.CommandNotFound):
            return
        if ctx.cog is not None and ctx.cog.has_error_handler():
            return
        await answer_error(ctx, error)

    async def shards_adopted(self, shards: set[int]) -> None:
        """This process took shards (over): route their matches' channels here, and close
        the channels of their ended matches left open."""
        self.routing.index_matches()
        if self.transport.ready.is_set():
            await self.closing.close_ended()
