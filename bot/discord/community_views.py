"""What `/history` and `/board` show (bot/discord/cogs/community.py): a member's matches and
ratings, and a match as a spectator may know it."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord.render import render_plain
from bot.ratings import ordinal
from bot.status import RUNNING
from games.registry import get_game

OUTCOMES = {"win": "won", "loss": "lost", "draw": "draw", "aborted": "aborted"}


def history_text(name: str, lines: list[Any], ratings: list[Any]) -> str:
    head = [f"**{name}**: " + (", ".join(
        f"{get_game(s_game).title} {ordinal(s.mu, s.sigma):.1f} "
        f"({s.wins}W {s.losses}L {s.draws}D)" for s_game, s in ratings) or "no rated match yet")]
    body = []
    for h in lines:
        opponent = h.names[1 - h.seat]
        change = f", {h.change:+.1f}" if h.change is not None else \
            ("" if h.rated or h.outcome == "aborted" else ", unrated")
        body.append(f"#{h.match_id} {h.game} vs {opponent}: {OUTCOMES[h.outcome]}{change}"
                    f"{f' ({h.reason})' if h.reason else ''} · <t:{int(h.ended_at.timestamp())}:d>")
    return "\n".join(head + (body or ["No ended match in this server yet."]))


def board_embed(live: Any) -> discord.Embed:
    """The match as a spectator may know it: the game's spectator description (seat None)
    and its public status line."""
    game = live.game
    text = render_plain(game.describe(live.state, None), live.players)
    embed = discord.Embed(title=f"Match #{live.id}: {game.title}, "
                                f"{live.players[0].name} vs {live.players[1].name}",
                          description=text[:4096], colour=discord.Colour.blurple())
    status = game.status(live.state) if live.status in RUNNING else None
    if status:
        embed.add_field(name="Status", value=render_plain(status, live.players)[:1024],
                        inline=False)
    # Not whose decision is pending nor how many actions were taken: private decisions (and
    # resubmitted private choices) are secrets a spectator must not count.
    state = {"active": "running", "paused": "paused by the hosts"}.get(live.status, "ended")
    embed.set_footer(text=f"Spectator view · {state}")
    return embed
