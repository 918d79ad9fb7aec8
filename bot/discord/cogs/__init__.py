"""The bot's cogs as discord.py extensions, loaded by name (`UmpireBot.setup_hook`).

Each cog module (bot/discord/host.py, ...) has its `async def setup(bot)`; the extension
named here is a small module that hands that `setup` on. The indirection is deliberate:
`commands.Bot.load_extension` executes the named module anew, as a second copy. Named
directly, a cog module would exist twice (its classes, its locks, the archive tasks it
keeps), and whoever had imported it before the bot started (another module, a test's
monkeypatch) would hold the copy the bot does not use. Executing these small modules again
is harmless.

The order is the order of the command tree (and of `/help`).
"""

EXTENSIONS = tuple(f"{__name__}.{name}" for name in (
    "host", "play", "rules", "admin", "help", "community", "challenge", "lifecycle", "watch",
    "tournament"))
