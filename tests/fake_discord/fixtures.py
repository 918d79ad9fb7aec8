"""pytest fixtures; import ``fake_discord`` into a conftest.py to use them elsewhere."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from .server import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A started FakeDiscord with discord.py patched to use it; fails on unknown routes."""
    fake = FakeDiscord()
    await fake.start()
    try:
        with fake.patch_discord():
            yield fake
    finally:
        await fake.stop()
    fake.assert_clean()
