"""pytest fixtures; import ``fake_discord`` into a conftest.py to use them elsewhere."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from .conformance import default_checker
from .limits import TEST_SCALE, RateLimits
from .server import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A started FakeDiscord with discord.py patched to use it; fails on unknown routes.
    Discord's rate limits are on, every window `TEST_SCALE` times as long (a test sets
    `fake.limits` to change that): discord.py paces itself by the headers as on Discord.
    Every request and answer is checked against Discord's OpenAPI spec (conformance.py): a
    difference fails the test at teardown."""
    fake = FakeDiscord()
    fake.limits = RateLimits(scale=TEST_SCALE)
    fake.spec = default_checker()
    await fake.start()
    try:
        with fake.patch_discord():
            yield fake
    finally:
        await fake.stop()
    fake.assert_clean()
