"""Discord's rate limits in the fake (opt-in, `fake.limits`): per-route buckets with
Discord's headers, the per-channel message limit, the global limit, 429 as Discord sends it;
discord.py paces itself by the headers and gets no 429 for one channel's burst."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import discord

from testbed.fake_discord.harness import running_client
from testbed.fake_discord.limits import TEST_SCALE, RateLimits
from testbed.fake_discord.server import FakeDiscord
from tests.support.fake_world import World, make_bot, world  # noqa: F401


async def _post(session: aiohttp.ClientSession, fake: FakeDiscord, channel_id: int,
                text: str) -> aiohttp.ClientResponse:
    async with session.post(f"{fake.base_url}/channels/{channel_id}/messages",
                            json={"content": text},
                            headers={"Authorization": f"Bot {fake.token}"}) as response:
        await response.read()
        return response


async def test_a_channels_sixth_message_in_five_seconds_gets_discords_429(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    fake.limits = RateLimits()  # Discord's real numbers
    async with aiohttp.ClientSession() as session:
        answers = [await _post(session, fake, world.general.id, f"m{i}") for i in range(6)]
        assert [a.status for a in answers] == [200] * 5 + [429]
        assert [a.headers["X-RateLimit-Remaining"] for a in answers[:5]] == \
            ["4", "3", "2", "1", "0"]
        assert all(a.headers["X-RateLimit-Limit"] == "5" for a in answers[:5])
        assert 4 < float(answers[0].headers["X-RateLimit-Reset-After"]) <= 5
        limited = answers[5]
        body = await limited.json()
        assert body["message"] == "You are being rate limited." and body["global"] is False
        assert 0 < body["retry_after"] <= 5 and limited.headers["Via"]
        assert limited.headers["X-RateLimit-Scope"] == "user"
        # another channel is another bucket
        other = fake.add_text_channel(world.guild, "other")
        assert (await _post(session, fake, other.id, "x")).status == 200


async def test_the_global_limit(fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    fake.limits = RateLimits(global_per_second=8)
    channels = [fake.add_text_channel(world.guild, f"c{i}") for i in range(3)]
    async with aiohttp.ClientSession() as session:
        answers = [await _post(session, fake, channels[i % 3].id, "x") for i in range(9)]
    assert [a.status for a in answers] == [200] * 8 + [429]
    assert answers[8].headers["X-RateLimit-Global"] == "true"
    assert (await answers[8].json())["global"] is True


async def test_discord_py_paces_a_burst_in_one_channel_by_the_headers(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    fake = fake_discord
    fake.limits = RateLimits()  # real numbers: 5 messages per 5 s in a channel
    bot = make_bot()
    async with running_client(bot, fake):
        channel = bot.get_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel)
        began = time.monotonic()
        await asyncio.gather(*(channel.send(f"m{i}") for i in range(7)))
        took = time.monotonic() - began
    assert len(fake.messages(world.general)) == 7
    assert took >= 4.5  # the 6th waited for the bucket's reset
    assert fake.limits.limited == 0  # waited ahead, as on Discord: no 429


def test_an_interactions_webhook_is_a_bucket_per_token_outside_the_global_limit() -> None:
    limits = RateLimits(global_per_second=3)
    route = "/webhooks/{application_id}/{token}"

    def follow_up(token: str) -> int:
        refused, _ = limits.check("POST", route, {"application_id": "1", "token": token},
                                  f"/webhooks/1/{token}")
        return 200 if refused is None else refused.status

    assert [follow_up("a") for _ in range(6)] == [200] * 5 + [429]
    assert follow_up("b") == 200  # another interaction: its own bucket
    assert limits.refused == {"POST " + route: 1} and not limits.recent


async def test_the_suite_runs_with_the_limits_on_a_scaled_clock(
        fake_discord: FakeDiscord, world: World) -> None:  # noqa: F811
    """The fixture's fake applies the limits at TEST_SCALE: a burst of 7 messages in a channel
    waits for its bucket's reset (5 s x 0.02) and gets no 429."""
    fake = fake_discord
    assert isinstance(fake.limits, RateLimits) and fake.limits.scale == TEST_SCALE
    bot = make_bot()
    async with running_client(bot, fake):
        channel = bot.get_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel)
        await asyncio.gather(*(channel.send(f"m{i}") for i in range(7)))
    stamps = [m.timestamp for m in fake.messages(world.general)]
    assert len(stamps) == 7 and fake.limits.limited == 0
    assert (stamps[5] - stamps[0]).total_seconds() >= 5 * TEST_SCALE * 0.9
