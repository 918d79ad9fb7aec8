"""Extension: the Community cog (bot/discord/community.py)."""

from bot.discord.community import setup

__all__ = ["setup"]
