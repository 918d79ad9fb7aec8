"""The environment of an `umpire` child process on the fake Discord
(tests/discord/run_under_fake.py), for the tests that run the bot as a real process."""

from __future__ import annotations

import os
from pathlib import Path

from testbed.fake_discord.server import FakeDiscord

#: The checkout: the child process imports `tests.discord.run_under_fake` from it, whatever
#: folder it runs in.
REPO = Path(__file__).resolve().parents[2]


def run_env(fake: FakeDiscord, db: str, status: Path, **more: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "DISCORD_TOKEN": fake.token,
            "UMPIRE_DATABASE__URL": db,
            "UMPIRE_HEALTH__STATUS_FILE": str(status), "FAKE_DISCORD_BASE": fake.base_url,
            "FAKE_DISCORD_GATEWAY": fake.gateway_url, "UMPIRE_DISCORD__SYNC_COMMANDS": "false",
            **more}
