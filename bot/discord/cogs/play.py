"""Extension: the Play cog (bot/discord/play.py)."""

from bot.discord.play import setup

__all__ = ["setup"]
