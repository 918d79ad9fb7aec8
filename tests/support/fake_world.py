"""A plain discord.py bot in a small server on the fake Discord, for the fake's own tests
(testbed/fake_discord/) and the tests of discord.py's behaviour against it (rate limits)."""

from __future__ import annotations

from dataclasses import dataclass

import discord
import pytest
from discord.ext import commands

from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import Channel, Guild, Role, User
from testbed.fake_discord.server import FakeDiscord


@dataclass
class World:
    guild: Guild
    general: Channel
    host_role: Role
    host: User
    alice: User
    bob: User


@pytest.fixture
def world(fake_discord: FakeDiscord) -> World:
    fake = fake_discord
    guild = fake.add_guild("Card Club")
    host_role = fake.add_role(guild, "Host", permissions=P.MANAGE_GUILD)
    return World(
        guild=guild,
        general=fake.get_channel(guild, "general"),
        host_role=host_role,
        host=fake.add_member(guild, "hannah", roles=[host_role]),
        alice=fake.add_member(guild, "alice"),
        bob=fake.add_member(guild, "bob"),
    )


def make_bot(**kwargs) -> commands.Bot:
    intents = discord.Intents.default()
    intents.message_content = True
    intents.members = True
    return commands.Bot(command_prefix="!", intents=intents, **kwargs)
