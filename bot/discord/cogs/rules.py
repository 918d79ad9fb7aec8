"""Extension: the Rules cog (bot/discord/rules.py)."""

from bot.discord.rules import setup

__all__ = ["setup"]
