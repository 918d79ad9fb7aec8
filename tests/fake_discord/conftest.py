from testbed.fake_discord.fixtures import fake_discord  # noqa: F401
from tests.support.fake_world import world  # noqa: F401
