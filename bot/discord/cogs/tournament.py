"""Extension: the Tournament cog (bot/discord/tournament.py)."""

from bot.discord.tournament import setup

__all__ = ["setup"]
