"""A server's effective settings: what its hosts set with `/umpire settings` (stored per
server, bot/store/guilds.py), else the defaults of config.toml.

The host role is matched by id where a server set one; a server that set none falls back to
the role *named* like `[discord] host_role` (the one global default)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot.config import DiscordSettings
from bot.facade import StoredGuild

CHANNEL_MODES = ("threads", "channels")


@dataclass(frozen=True)
class GuildConfig:
    stored: StoredGuild
    defaults: DiscordSettings

    @property
    def friendly_matches(self) -> bool:
        value = self.stored.friendly_matches
        return self.defaults.friendly_matches if value is None else value

    @property
    def channel_mode(self) -> str:
        return self.stored.channel_mode or self.defaults.channel_mode

    @property
    def archive_delay_minutes(self) -> int:
        value = self.stored.archive_delay_minutes
        return self.defaults.archive_delay_minutes if value is None else value

    @property
    def challenge_cooldown_seconds(self) -> int:
        value = self.stored.challenge_cooldown_seconds
        return self.defaults.challenge_cooldown_seconds if value is None else value

    def game_settings(self, slug: str) -> dict[str, Any]:
        """The server's default match settings for a game (config defaults, then the server's
        own), which a host's `settings` option on /match start overrides key by key."""
        return {**self.defaults.game_settings.get(slug, {}),
                **self.stored.game_settings.get(slug, {})}

    def host_role(self, guild: discord.Guild) -> discord.Role | None:
        """The server's host role: by id where set, else by the default name."""
        if self.stored.host_role_id is not None:
            return guild.get_role(self.stored.host_role_id)
        wanted = self.defaults.host_role.lower()
        return discord.utils.find(lambda r: r.name.lower() == wanted, guild.roles)

    def host_role_label(self, guild: discord.Guild) -> str:
        role = self.host_role(guild)
        if role is not None:
            return f"“{role.name}”"
        if self.stored.host_role_id is not None:
            return "host (the role set for this server no longer exists)"
        return f"“{self.defaults.host_role}”"

    def is_host(self, member: discord.abc.User) -> bool:
        """Manage Server, Administrator, or the server's host role."""
        if not isinstance(member, discord.Member):
            return False
        perms = member.guild_permissions
        if perms.manage_guild or perms.administrator:
            return True
        role = self.host_role(member.guild)
        return role is not None and role in member.roles

    def log_channel_name(self) -> str:
        """The name of the host log looked for (or created) when no channel id is set."""
        return self.defaults.log_channel

    def log_channel(self, guild: discord.Guild) -> discord.TextChannel | None:
        """The host log channel set for this server, if it still exists."""
        if self.stored.log_channel_id is None:
            return None
        found = guild.get_channel(self.stored.log_channel_id)
        return found if isinstance(found, discord.TextChannel) else None

    def summary(self, guild: discord.Guild) -> str:
        """The settings as a host reads them, saying which are this server's own."""

        def mark(is_set: bool) -> str:
            return "" if is_set else " *(default)*"

        s = self.stored
        role = self.host_role(guild)
        role_text = role.mention if role else self.host_role_label(guild)
        if s.host_role_id is None:
            role_text += (f" (the role named “{self.defaults.host_role}”)" if role else
                          " (no role of that name here: only Manage Server can host)")
        log = self.log_channel(guild)
        if log is not None:
            log_text = log.mention
        elif s.log_channel_id is not None:
            log_text = "a channel that no longer exists (set another)"
        else:
            log_text = f"#{self.defaults.log_channel.lower().replace(' ', '-')}"
        games = {**self.defaults.game_settings, **s.game_settings}
        game_lines = [f"  - {slug}: {' '.join(f'{k}={v}' for k, v in self.game_settings(slug).items())}"
                      f"{mark(slug in s.game_settings)}" for slug in sorted(games)]
        lines = [
            "**Umpire settings for this server**",
            f"- host role: {role_text}{mark(s.host_role_id is not None)}",
            f"- host log: {log_text}{mark(s.log_channel_id is not None)}",
            f"- friendly matches (players start without a host): "
            f"{'allowed' if self.friendly_matches else 'not allowed'}"
            f"{mark(s.friendly_matches is not None)}",
            f"- channel mode: {self.channel_mode}{mark(s.channel_mode is not None)}",
            f"- archive delay: {self.archive_delay_minutes} min"
            f"{mark(s.archive_delay_minutes is not None)}",
            f"- challenge cooldown: {self.challenge_cooldown_seconds} s between two "
            f"/challenge of a member{mark(s.challenge_cooldown_seconds is not None)}",
            "- default game settings:" + ("" if game_lines else " none"),
            *game_lines,
        ]
        return "\n".join(lines)
