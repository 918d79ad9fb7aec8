"""`/umpire settings`: a server's own settings (Manage Server only), shown and changed.

Every option is optional: none shows the settings; each given one is validated and stored;
`reset` puts one setting back to the default of config.toml."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.channels import log_problem
from bot.discord.errors import Refusal, error_text
from bot.discord.gate import Who, requires
from bot.discord.options import SettingsError, validate_settings
from games.registry import all_games, get_game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)

GameName = Literal[tuple(all_games())]  # type: ignore[valid-type]  # (built from the registry: discord.py reads its choices)
Resettable = Literal["host_role", "log_channel", "friendly_matches", "channel_mode",
                     "archive_delay", "game_settings", "challenge_cooldown"]
RESET_COLUMNS = {"host_role": "host_role_id", "log_channel": "log_channel_id",
                 "friendly_matches": "friendly_matches", "channel_mode": "channel_mode",
                 "archive_delay": "archive_delay_minutes", "game_settings": "game_settings",
                 "challenge_cooldown": "challenge_cooldown_seconds"}


class SettingsCog(commands.Cog, name="Settings"):
    """Per-server settings, for members with Manage Server."""

    umpire = app_commands.Group(name="umpire", description="Umpire settings for this server",
                                default_permissions=discord.Permissions(manage_guild=True),
                                guild_only=True)

    def __init__(self, bot: UmpireBot) -> None:
        self.bot = bot

    @umpire.command(name="settings", description="Show or change this server's umpire settings")
    @app_commands.describe(
        host_role="the role whose members run matches (and read the host log)",
        log_channel="the host log: gets every secret, so only hosts may read it",
        friendly_matches="whether players may start friendly matches without a host",
        channel_mode="tables as private threads in the game room, or as channels",
        archive_delay="minutes after a match ends before its channels are archived",
        game="the game whose default settings (timers) `game_settings` sets",
        game_settings="default settings for `game`, e.g. decision_seconds=60 (\"clear\": none)",
        challenge_cooldown="seconds a member waits between two /challenge (0: none)",
        reset="put one setting back to the bot's default")
    @requires(Who.MANAGER)
    async def settings(self, interaction: discord.Interaction,
                       host_role: discord.Role | None = None,
                       log_channel: discord.TextChannel | None = None,
                       friendly_matches: bool | None = None,
                       channel_mode: Literal["threads", "channels"] | None = None,
                       archive_delay: app_commands.Range[int, 0, 10080] | None = None,
                       game: GameName | None = None,  # type: ignore[valid-type]  # (GameName: a Literal built at import)
                       game_settings: str | None = None,
                       reset: Resettable | None = None,
                       challenge_cooldown: app_commands.Range[int, 0, 86400] | None = None,
                       ) -> None:
        if not interaction.response.is_done():  # the tree acknowledges first (client.py)
            await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            text = await self._settings(interaction, host_role, log_channel, friendly_matches,
                                        channel_mode, archive_delay, game, game_settings, reset,
                                        challenge_cooldown)
        except Exception as exc:  # a user's mistake is a sentence, never a traceback
            text = error_text(exc) or ""
            if not text:
                log.exception("/umpire settings failed")
                text = ("Something went wrong on the umpire's side; nothing was changed. The "
                        "hosts can check the bot's log.")
        await interaction.followup.send(text[:2000], ephemeral=True,
                                        allowed_mentions=discord.AllowedMentions.none())

    async def _settings(self, interaction: discord.Interaction, host_role: discord.Role | None,
                        log_channel: discord.TextChannel | None, friendly_matches: bool | None,
                        channel_mode: str | None, archive_delay: int | None, game: str | None,
                        game_settings: str | None, reset: str | None,
                        challenge_cooldown: int | None = None) -> str:
        guild = interaction.guild
        member = interaction.user
        if guild is None or not isinstance(member, discord.Member):  # (the gate refused it)
            raise Refusal("Settings are per server: use this command in a server.")
        store = self.bot.guild_store
        current = await self.bot.guild_config(guild.id)
        changes: dict[str, object] = {}
        problems: list[str] = []
        if host_role is not None:
            if host_role.is_default():
                problems.append("host_role cannot be @everyone: everyone would see every table "
                                "and the host log.")
            elif host_role.managed:
                problems.append(f"host_role {host_role.name} is managed by an integration (a "
                                "bot's own role); pick a role you give to people.")
            else:
                changes["host_role_id"] = host_role.id
        if log_channel is not None:
            hosts = host_role if "host_role_id" in changes else current.host_role(guild)
            why = log_problem(log_channel, hosts)
            mine = log_channel.permissions_for(guild.me)
            if why:
                problems.append(why)
            elif not (mine.view_channel and mine.send_messages):
                problems.append(f"I cannot post in {log_channel.mention}: give me View Channel "
                                "and Send Messages there.")
            else:
                changes["log_channel_id"] = log_channel.id
        if friendly_matches is not None:
            changes["friendly_matches"] = friendly_matches
        if channel_mode is not None:
            changes["channel_mode"] = channel_mode
        if archive_delay is not None:
            changes["archive_delay_minutes"] = archive_delay
        if challenge_cooldown is not None:
            changes["challenge_cooldown_seconds"] = challenge_cooldown
        if game_settings is not None and game is None:
            problems.append("game_settings needs `game`: the game they are for.")
        elif game is not None and game_settings is None:
            problems.append(f"Give `game_settings` for {game} (e.g. decision_seconds=60), or "
                            "\"clear\" to drop the server's own.")
        elif game is not None and game_settings is not None:
            found = get_game(str(game))
            per_game = dict(current.stored.game_settings)
            if game_settings.strip().lower() in ("clear", "default", "none", "reset"):
                per_game.pop(found.slug, None)
            else:
                try:
                    per_game[found.slug] = validate_settings(found, game_settings)
                except SettingsError as exc:
                    problems.append(str(exc))
            changes["game_settings"] = per_game
        if reset is not None:
            column = RESET_COLUMNS[reset]
            if column in changes:
                problems.append(f"You both set and reset {reset}; do one of the two.")
            changes[column] = {} if column == "game_settings" else None
        if problems:
            return "Nothing was changed:\n- " + "\n- ".join(problems)
        if changes:
            await store.update(guild.id, **changes)
            current = await self.bot.guild_config(guild.id)
            watch = self.bot.get_cog("Watch")
            if "host_role_id" in changes and watch is not None:  # who may read changed:
                watch.wake(guild.id)  # type: ignore[attr-defined]  # (the keeper looks too)
            head = "Saved. "
        else:
            head = ""
        return head + current.summary(guild)


async def setup(bot: UmpireBot) -> None:
    """Entry point of the extension: add the cog."""
    await bot.add_cog(SettingsCog(bot))
