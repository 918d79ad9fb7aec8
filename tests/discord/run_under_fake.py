"""`python -m tests.discord.run_under_fake ARGS...`: the `umpire` command with discord.py
pointed at a FakeDiscord (FAKE_DISCORD_BASE, FAKE_DISCORD_GATEWAY), for process tests."""

from __future__ import annotations

import os
import sys

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.cli import main

if __name__ == "__main__":
    Route.BASE = os.environ["FAKE_DISCORD_BASE"]
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["FAKE_DISCORD_GATEWAY"])
    raise SystemExit(main(sys.argv[1:]))
