"""Extension: the Challenge cog (bot/discord/challenge.py)."""

from bot.discord.challenge import setup

__all__ = ["setup"]
