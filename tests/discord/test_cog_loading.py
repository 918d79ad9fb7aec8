"""The cogs load by name as discord.py extensions (bot/discord/cogs), and the bot has the
same commands, cogs and listeners as when it added each cog by hand."""

from __future__ import annotations

from typing import Any

from bot.discord import lifecycle
from bot.discord.cogs import EXTENSIONS
from tests.discord.conftest import World, umpire

#: The slash commands and groups, in the tree's order, as before the cogs were extensions.
SLASH = [
    "match", "match start", "match pause", "match resume", "match extend", "match lock",
    "match abort", "match award", "match status", "match list", "match export",
    "match unrated", "match delete", "mine", "rules", "umpire", "umpire settings", "help",
    "history", "leaderboard", "board", "challenge", "tournament", "tournament create",
    "tournament open", "tournament close", "tournament seed", "tournament start",
    "tournament pause", "tournament resume", "tournament end", "tournament replace",
    "tournament award", "tournament export", "tournament join", "tournament leave",
    "tournament show", "tournament history"]
#: The prefix commands: every slash command but the `/umpire` group (slash only).
PREFIX = sorted(n for n in SLASH if not n.startswith("umpire"))
COGS = ["Host", "Play", "Rules", "Settings", "Help", "Community", "Challenge", "Lifecycle",
        "Watch", "Tournament"]


def walk(commands: Any, prefix: str = "") -> list[str]:
    out = []
    for command in commands:
        out.append(f"{prefix}{command.name}")
        out += walk(getattr(command, "commands", ()), f"{prefix}{command.name} ")
    return out


async def test_the_cogs_load_by_name_with_the_same_commands(world: World) -> None:
    async with umpire(world) as up:
        bot = up.bot
        assert sorted(bot.extensions) == sorted(EXTENSIONS)
        assert list(bot.cogs) == COGS
        assert walk(bot.tree.get_commands()) == SLASH
        assert sorted(c.qualified_name for c in bot.walk_commands()) == PREFIX
        # The challenge's and the rematch's buttons answer clicks on earlier messages.
        assert {"ChallengeButton", "RematchButton"} <= \
            {item.__name__ for item in bot._connection._view_store._dynamic_items.values()}


async def test_each_cog_module_exists_once(world: World) -> None:
    """The bot's cog is the class of the module everyone else imported (this test at its
    top, and its monkeypatches): loading the extension did not execute a second copy."""
    async with umpire(world) as up:
        assert type(up.bot.get_cog("Lifecycle")) is lifecycle.LifecycleCog
        for name in EXTENSIONS:
            module = name.replace(".cogs", "")
            cog = next(c for c in up.bot.cogs.values() if type(c).__module__ == module)
            assert up.bot.extensions[name].setup.__module__ == type(cog).__module__
