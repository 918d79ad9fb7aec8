"""Extension: the Host cog (bot/discord/host.py)."""

from bot.discord.host import setup

__all__ = ["setup"]
