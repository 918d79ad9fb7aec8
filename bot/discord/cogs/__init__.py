"""The bot's cogs as discord.py extensions, loaded by name (`UmpireBot.setup_hook`).

Each module here holds one cog class and its `async def setup(bot)`, nothing else: the
library code the cogs share lives beside this package, in bot/discord/ (the gate, the
renderer, channel keeping, friendly matches, ...), and never imports a cog module.

`commands.Bot.load_extension` executes the named module anew, as a second copy of any
import made before the bot started. That is harmless here: a cog module keeps no state (what
a cog keeps lives on its instance, which the bot owns), and a library module is imported
once, so a test patches a library function there. (A cog that names a function its tests
replace while the bot runs calls it through its module: `command_help.help_text`.)

The order is the order of the command tree (and of `/help`).
"""

EXTENSIONS = tuple(f"{__name__}.{name}" for name in (
    "host", "play", "rules", "admin", "help", "community", "challenge", "lifecycle", "watch",
    "tournament"))
