"""Extension: the Lifecycle cog (bot/discord/lifecycle.py)."""

from bot.discord.lifecycle import setup

__all__ = ["setup"]
