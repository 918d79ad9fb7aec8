"""Extension: the Settings cog (bot/discord/admin.py)."""

from bot.discord.admin import setup

__all__ = ["setup"]
