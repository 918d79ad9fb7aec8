"""How an event shows on Discord (bot/discord/cogs/tournament.py): its status in words, and
its standings and bracket as one embed, kept up to date by editing its show message."""

from __future__ import annotations

import discord

from bot.tournament import event as ev
from bot.tournament.event import Event, named_state
from bot.tournament.formats import format_named
from bot.tournament.render import bracket_text, needs_picture, standings_text
from games.registry import get_game

STATUS_WORDS = {"signup": "sign-ups", "running": "running", "paused": "paused",
                "ended": "ended"}


def show_embed(event: Event) -> discord.Embed:
    """The standings and the bracket (or the rounds) of an event, as one embed."""
    embed = discord.Embed(title=f"{event.name} (#{event.id})",
                          description=f"{get_game(event.game).title} · {event.format} · "
                                      f"{STATUS_WORDS[event.status]}")
    if event.state is None:
        names = "\n".join(f"{i}. {e.name}" for i, e in enumerate(event.entrants, 1))
        embed.add_field(name=f"Players ({len(event.entrants)})", value=names[:1000] or "None yet")
        return embed
    fmt = format_named(event.format)
    named = named_state(event, fmt)
    winner = ev.champion(event, fmt)
    if winner:
        embed.add_field(name="Champion", value=event.name_of(winner), inline=False)
    table, _, legend = standings_text(named).partition("\n\n")
    embed.add_field(name="Standings", value=f"```\n{table[:1000]}\n```", inline=False)
    if len(legend) <= 1024:  # what the columns mean (render's legend), when it fits
        embed.add_field(name="Columns", value=legend, inline=False)
    if not needs_picture(named):
        embed.add_field(name="Bracket" if event.format in ("single", "double") else "Rounds",
                        value=f"```\n{bracket_text(named)[-1000:]}\n```", inline=False)
    return embed
