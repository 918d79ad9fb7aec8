"""`/match start` on a store that cannot take the match (a full disk): the host is told in
one sentence, privately, and whatever the start made on Discord is removed."""

from __future__ import annotations

import sqlite3
from typing import Any

from bot.umpire import NOT_STARTED
from tests.discord.conftest import World, channel_ids, umpire
from tests.support.driver import drive


def _disk_full(*_: Any) -> Any:
    raise sqlite3.OperationalError("database or disk is full")


async def test_a_start_the_store_cannot_take_is_one_sentence_to_the_host(world: World) -> None:
    fake = world.fake
    before = channel_ids(world)
    async with umpire(world) as up:
        writer = drive(up.service).writer
        bulk, writer.bulk = writer.bulk, _disk_full
        inter = await fake.slash_command(world.host, world.general, "match start",
                                         game="rps-poker", player1=world.alice, player2=world.bob)
        await fake.settle()
        writer.bulk = bulk
        answer = inter.original if inter.original is not None else inter.response
        assert answer.content == NOT_STARTED
        assert answer.ephemeral
        assert up.service.matches == {} and channel_ids(world) == before
