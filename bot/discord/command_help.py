"""The text of `/help` (every command and game; bot/discord/cogs/help.py posts it) and the
autocomplete helpers of the slash commands:
match ids of this server (from memory, with older ones read from the database:
bot/discord/match_index.py) and built-in bots of the chosen game. Members are picked with Discord's own member picker; games are a fixed
list of choices."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from games.registry import all_games

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

MAX_CHOICES = 25


#: A group with more subcommands than this is one line (its subcommands, then what the
#: group is for), so that the whole help fits in one message.
LONG_GROUP = 13


def command_lines(tree: app_commands.CommandTree[Any]) -> list[str]:
    """`/name sub — description` for every slash command, subcommands included."""
    out: list[str] = []

    def walk(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> None:
        if isinstance(command, app_commands.Group):
            if len(command.commands) > LONG_GROUP:
                names = " ".join(f"`/{c.qualified_name}`" for c in command.commands)
                out.append(f"{names} — {command.description}")
                return
            for child in command.commands:
                walk(child)
            return
        out.append(f"`/{command.qualified_name}` — {command.description}")

    for command in tree.get_commands(type=discord.AppCommandType.chat_input):
        walk(command)
    return out


def help_text(tree: app_commands.CommandTree[Any], prefix: str) -> str:
    games = [f"`{slug}` — {game.title}" + (f" (bots: {', '.join(game.bots())})"
                                            if game.bots() else "")
             for slug, game in all_games().items()]
    return "\n".join([
        "**Umpire: commands**", *command_lines(tree),
        f"Host commands also work with the prefix: `{prefix}match start ...`. "
        "`/match` and `/umpire` show only to members allowed to use them.",
        "", "**Games**", *games,
        "", "Play by typing your move in the game room (moves start with one of the game's "
        "move words, see `/rules`; anything else is chat) or in your table channel, or by "
        "pressing the buttons under a decision."])


async def match_choices(interaction: discord.Interaction, current: str
                        ) -> list[app_commands.Choice[int]]:
    """This server's matches (newest first) whose number starts with what was typed."""
    bot: UmpireBot = interaction.client  # type: ignore[assignment]  # (the client is the UmpireBot)
    if interaction.guild_id is None:
        return []
    # From memory: an autocomplete answer cannot wait on the store (3 s, no deferring).
    found = await bot.match_index.find(interaction.guild_id, current, MAX_CHOICES)
    return [app_commands.Choice(name=f"#{m.id} {m.game}: {' vs '.join(m.names)} "
                                f"({m.status})"[:100], value=m.id) for m in found]


async def bot_choices(interaction: discord.Interaction, current: str
                      ) -> list[app_commands.Choice[str]]:
    """The built-in bots of the game chosen in the same command (every game's if none)."""
    chosen = getattr(interaction.namespace, "game", None)
    games = [all_games()[chosen]] if chosen in all_games() else list(all_games().values())
    names = sorted({name for game in games for name in game.bots()})
    want = current.lower().removeprefix("bot:")
    return [app_commands.Choice(name=n, value=n) for n in names if want in n.lower()][:MAX_CHOICES]
