"""Every slash command and component is acknowledged within Discord's three seconds, even
when the store takes three seconds to answer: the bot defers first, then works."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.discord.conftest import World, bot_posts, channel_of, start_rps, umpire
from tests.support.driver import drive

DELAY = 3.2  # longer than Discord's limit (the fake refuses a late first answer)


def slow(monkeypatch: pytest.MonkeyPatch, target: Any, name: str) -> None:
    real = getattr(target, name)

    async def delayed(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(DELAY)
        return await real(*args, **kwargs)

    monkeypatch.setattr(target, name, delayed)


async def test_a_click_and_slash_commands_are_acknowledged_in_time_with_a_slow_store(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        table0 = channel_of(world, match, "seat0")
        prompt = next(p for p in match.prompts if p.seat == 0)
        message = next(m for m in reversed(bot_posts(world, table0))
                       if any(c["custom_id"].endswith(f":{prompt.key}")
                              for c in m.iter_components()))
        button = next(c["custom_id"] for c in message.iter_components()
                      if c["custom_id"].startswith(f"ump:b:{match.id}:0:"))
        slow(monkeypatch, up.service.repo, "commit")
        click = await fake.click_button(world.alice, message, button, timeout=10)
        assert click.acked_after is not None and click.acked_after < 3.0
        assert click.response.type == 6  # acknowledged without a visible change
        await fake.wait_for(lambda: match.seq == 1, 10)

        pause = await fake.slash_command(world.host, world.general, "match pause", timeout=10)
        assert pause.acked_after is not None and pause.acked_after < 3.0
        await fake.wait_for(lambda: pause.finished, 10)
        assert pause.response.ephemeral and "paused" in pause.response.content
        await fake.slash_command(world.host, world.general, "match resume", timeout=10)

        slow(monkeypatch, up.bot.guild_store, "update")
        owner = fake.users[world.guild.owner_id]
        settings = await fake.slash_command(owner, world.general, "umpire settings",
                                            archive_delay=5, timeout=10)
        assert settings.acked_after is not None and settings.acked_after < 3.0
        await fake.wait_for(lambda: settings.finished, 10)
        assert "archive delay: 5 min" in settings.response.content
        monkeypatch.undo()
        await up.idle(fake)


async def test_challenge_and_rematch_buttons_are_acknowledged_in_time_with_a_slow_store(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Accept and Rematch buttons start a match (settings read, match stored): the click
    is acknowledged first."""
    fake = world.fake
    async with umpire(world, friendly_matches=True) as up:
        challenge = await fake.slash_command(world.alice, world.general, "challenge",
                                             member=world.bob, game="rps-poker")
        assert challenge.answer is not None
        message = bot_posts(world, world.general)[-1]
        accept = next(str(c["custom_id"]) for c in message.iter_components()
                      if str(c["custom_id"]).endswith(":a"))
        slow(monkeypatch, up.bot.guild_store, "get")
        slow(monkeypatch, up.service.repo, "commit")
        click = await fake.click_button(world.bob, message, accept, timeout=15)
        assert click.acked_after is not None and click.acked_after < 3.0
        await fake.wait_for(lambda: up.service.matches, 15)
        [match] = drive(up.service).matches()
        monkeypatch.undo()
        await up.service.award(match.id, 0, "test")
        await up.idle(fake)
        room = channel_of(world, match, "public")
        offer = next(m for m in fake.messages(room) if any(
            str(c.get("custom_id")) == f"ump:rm:{match.id}" for c in m.iter_components()))
        slow(monkeypatch, up.bot.guild_store, "get")
        slow(monkeypatch, up.service.repo, "merge_transport")
        press = await fake.click_button(world.alice, offer, f"ump:rm:{match.id}", timeout=15)
        assert press.acked_after is not None and press.acked_after < 3.0
        await fake.wait_for(lambda: press.finished, 15)
        monkeypatch.undo()
        await up.idle(fake)
