"""A batched host log post is idempotent like a single message: each entry ends with the
invisible marker of its outbox id and each post carries a nonce derived from its entries,
so a batch posted but not marked delivered (a crash, a lost answer) is not posted twice:
within Discord's nonce window the same batch returns the first post, and a resend that may
come later (after a restart, after a failed try) first looks for its entries' markers."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from bot.discord.host_log import HostLog
from bot.discord.marker import tags_in
from tests.discord import conftest
from tests.discord.conftest import (
    WINDOW,
    World,
    assert_log_has,
    bot_posts,
    channel_of,
    play_prompt,
    start_rps,
    umpire,
)
from tests.discord.conftest import undelivered as _undelivered
from tests.discord.conftest import unmark as _unmark
from tests.support.driver import drive


@pytest.fixture(autouse=True)
def batched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "LOG_BATCH_SECONDS", 0.3)  # the log batched, quickly


async def log_of(up: Any, match_id: int) -> list[Any]:
    return [m for m in await drive(up.service).messages(match_id) if m.audience == "umpire"]


def entries_posted(world: World, match: Any) -> list[str]:
    """Every outbox id whose marker is in the log, once per time it was posted."""
    return [t for m in bot_posts(world, channel_of(world, match, "umpire"))
            for t in tags_in("\n".join([m.content, *(e["description"] for e in m.embeds)]))]


async def test_a_batch_posted_but_not_marked_is_not_posted_again_after_a_restart(
        world: World, short_nonce_window: None) -> None:  # noqa: F811
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        await play_prompt(world, up, match, 0)
        await up.idle(fake)
        sent = [m.id for m in await log_of(up, match.id)]
    assert len(sent) >= 2
    await _unmark(world, sent)  # stopped between posting their batches and marking them
    await asyncio.sleep(3 * WINDOW)  # ...and down for longer than Discord keeps a nonce
    async with umpire(world) as up:
        await up.idle(fake)
        assert await _undelivered(world) == []
        assert up.transport.skipped == len(sent)
        match = up.service.matches[match.id]
        assert_log_has(world, match, await log_of(up, match.id))  # each entry once
        assert sorted(entries_posted(world, match)) == sorted(map(str, sent))


async def with_a_lost_answer(world: World, up: Any,
                             monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[Any]]:
    """A match whose next host log post reaches Discord but has its answer lost (a reset
    connection), played one move on: (the match, the lost post's nonce)."""
    match = await start_rps(world, up)
    http = up.transport.client.http
    real = http.send_message
    lost: list[Any] = []

    async def answer_lost(channel_id: int, *, params: Any) -> Any:
        result = await real(channel_id, params=params)
        if channel_id == int(match.transport["log"]) and not lost:
            lost.append(params.payload.get("nonce"))
            raise aiohttp.ClientOSError("connection reset after Discord accepted")
        return result
    monkeypatch.setattr(http, "send_message", answer_lost)
    await play_prompt(world, up, match, 0)
    await up.idle(world.fake)
    return match, lost


async def test_a_batch_whose_answer_was_lost_is_not_posted_again(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    async with umpire(world) as up:
        match, lost = await with_a_lost_answer(world, up, monkeypatch)
        assert len(lost) == 1 and str(lost[0]).startswith("L") and up.transport.skipped >= 1
        assert_log_has(world, match, await log_of(up, match.id))
        assert sorted(entries_posted(world, match)) == \
            sorted(str(m.id) for m in await log_of(up, match.id))


async def test_without_the_look_back_the_nonce_still_keeps_a_retried_batch_once(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same batch tried again within Discord's nonce window: its posts carry the same
    nonces, so Discord returns the first (the look-back switched off to see it)."""
    async def nothing_found(self: Any, channel_id: int, entries: list[Any]) -> set[int]:
        return set()
    monkeypatch.setattr(HostLog, "_logged_already", nothing_found)
    async with umpire(world) as up:
        match, lost = await with_a_lost_answer(world, up, monkeypatch)
        assert len(lost) == 1 and up.transport.skipped == 0
        assert_log_has(world, match, await log_of(up, match.id))


async def test_entries_of_a_batch_that_never_got_through_are_forgotten_with_their_match(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch whose every try fails on its way leaves its entries doubtful (to be looked
    for before they are posted again); once the match is closed and forgotten, nothing of
    them is kept, so a bot running for months keeps nothing per finished match."""
    async with umpire(world, drain=False) as up:
        match = await start_rps(world, up)
        await up.idle(world.fake)
        http = up.transport.client.http
        real = http.send_message

        async def reset(channel_id: int, *, params: Any) -> Any:
            if channel_id == int(match.transport["log"]):
                raise aiohttp.ClientOSError("connection reset")
            return await real(channel_id, params=params)
        monkeypatch.setattr(http, "send_message", reset)
        before = up.transport.memory()
        await play_prompt(world, up, match, 0)
        await world.fake.wait_for(lambda: up.transport.memory() > before, 10)
        up.transport.forget(match.info)
        assert up.transport.memory() == 0
