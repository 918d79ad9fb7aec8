"""Extension: the Help cog (bot/discord/help.py)."""

from bot.discord.help import setup

__all__ = ["setup"]
