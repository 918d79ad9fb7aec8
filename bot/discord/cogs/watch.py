"""Extension: the Watch cog (bot/discord/watch.py)."""

from bot.discord.watch import setup

__all__ = ["setup"]
