"""The cogs load by name as discord.py extensions (bot/discord/cogs), and the bot has the
same commands, cogs and listeners as when it added each cog by hand."""

from __future__ import annotations

import sys
from typing import Any

from bot.discord import channel_lifecycle
from bot.discord.cogs import EXTENSIONS
from bot.discord.cogs import lifecycle as lifecycle_cog
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


async def test_a_second_execution_of_a_cog_module_is_harmless(world: World) -> None:
    """`load_extension` executes each cog module anew (this test imported one at its top):
    the bot's cog is the class of the extension's own module, and the library code it calls
    is the one module everyone imported (its monkeypatches reach the running bot)."""
    async with umpire(world) as up:
        assert type(up.bot.get_cog("Lifecycle")) is not lifecycle_cog.LifecycleCog  # a copy
        for name in EXTENSIONS:
            module = up.bot.extensions[name]
            assert module is sys.modules[name]
            assert module.setup.__module__ == name
            assert [c for c in up.bot.cogs.values() if type(c).__module__ == name]
        assert sys.modules["bot.discord.channel_lifecycle"] is channel_lifecycle
        running = up.bot.extensions["bot.discord.cogs.lifecycle"]
        assert running.recreate is channel_lifecycle.recreate  # the library's one copy
