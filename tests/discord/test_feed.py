"""A match with a spectator feed on the fake Discord (bot/feed.py, bot/discord/feed.py).

A Renounce Fate match played to its end by alice and bob, with `/match start feed:#feed`:
at every moment the feed reads as the game room does, plus one reveal per finished round
(both hands of it), never one of the round being played. Only the bot writes there: a feed
anyone may write in is refused at the start, and when a moderator opens it mid-match its
messages are held (the hosts are told; the match goes on) until it is closed again, then
posted in order.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from games.renounce_fate.cards import render_all
from tests.discord.conftest import (
    REVEAL,
    World,
    bot_posts,
    channel_of,
    lines,
    log_text,
    start_match,
    umpire,
)
from tests.fake_discord import permissions as P


def assert_feed_is_room_plus_finished_rounds(world: World, room: Any, feed: Any,
                                             finished: int, hands: dict[int, list[str]]) -> None:
    shown = lines(world, feed)
    assert [t for t in shown if not t.startswith(REVEAL)] == lines(world, room)
    reveals = [t for t in shown if t.startswith(REVEAL)]
    assert [int(re.search(r"Round (\d+) hands", t)[1]) for t in reveals] == \
        list(range(1, finished + 1))  # type: ignore[index]
    for number, text in enumerate(reveals, start=1):
        assert all(hand in text for hand in hands[number]), (number, text)


@pytest.mark.parametrize("fold", [0.0, 0.3], ids=["one-by-one", "folded"])
async def test_feed_shows_the_room_and_each_round_once_it_is_over(world: World,
                                                                 fold: float) -> None:
    """With folding, the feed's announcements fold as the room's do: the same lines."""
    fake = world.fake
    feed = fake.add_text_channel(world.guild, "feed")
    everyone = world.guild.everyone
    async with umpire(world, fold_seconds=fold) as up:
        # A channel anyone may write in cannot be a feed: the start is refused, and says why.
        refused = await fake.slash_command(world.host, world.general, "match start",
                                           game="renounce-fate", player1=world.alice,
                                           player2=world.bob, feed=feed)
        assert refused.response.ephemeral and up.service.matches == {}
        assert "can be written in by everyone" in refused.response.content
        assert "Deny them Send Messages" in refused.response.content

        fake.set_overwrite(feed, everyone, deny=P.SEND_MESSAGES | P.SEND_MESSAGES_IN_THREADS
                           | P.CREATE_PUBLIC_THREADS)
        no_bot = await fake.slash_command(world.host, world.general, "match start",
                                          game="renounce-fate", player1=world.alice,
                                          player2=world.bob, feed=feed)
        assert "I lack Send Messages" in no_bot.response.content  # the bot too is shut out
        fake.set_overwrite(feed, fake.bot_user, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
        match = await start_match(world, up, "renounce-fate", seed="feed-e2e", feed=feed,
                                  settings="starting_chips=6 break_seconds=0")
        room, log = channel_of(world, match, "public"), channel_of(world, match, "umpire")
        kept = sorted((o.id, o.allow, o.deny) for o in feed.overwrites)
        tables = [channel_of(world, match, f"seat{s}") for s in (0, 1)]
        assert channel_of(world, match, "feed") is feed
        for user in (world.eve, world.alice, world.bob):  # everyone reads, only the bot writes
            assert fake.can_view(user, feed)
            assert not fake.permissions_for(user, feed) & P.SEND_MESSAGES

        async def close_again() -> None:
            """Held, not posted: the hosts were told, the match went on without it. Closed
            again, the feed gets what was held, in order."""
            await fake.wait_for(lambda: "spectator feed" in log_text(world, log), 10)
            assert "can be written in by everyone" in log_text(world, log)
            assert "the match goes on" in log_text(world, log)
            assert not any(f"Round {opened_at} hands" in t for t in lines(world, feed))
            fake.set_overwrite(feed, everyone, deny=P.SEND_MESSAGES |
                               P.SEND_MESSAGES_IN_THREADS | P.CREATE_PUBLIC_THREADS)
            await fake.wait_for(lambda: any(f"Round {opened_at} hands" in t
                                            for t in lines(world, feed)), 20)

        rng = random.Random(4)
        users = (world.alice, world.bob)
        hands: dict[int, list[str]] = {}
        opened_at = 2  # the round in which a moderator lets everyone write in the feed
        held = False
        while match.status == "active":
            await fake.wait_for(lambda: match.status != "active" or bool(match.prompts), 10)
            if match.status != "active":
                break
            if held:  # (delivery is not idle while the feed is held)
                await fake.settle()
            else:
                await up.idle(fake)
            current = match.state.round
            hands.setdefault(current, [render_all(h) for h in match.state.hands])
            if not held:
                assert_feed_is_room_plus_finished_rounds(world, room, feed, current - 1, hands)
            if current == opened_at and not held:
                fake.set_overwrite(feed, everyone, allow=P.SEND_MESSAGES)
                held = True
            elif held and current > opened_at:
                await close_again()
                held = False
                continue
            prompt = match.prompts[0]
            where = tables[prompt.seat] if prompt.private else room
            await fake.send_user_message(users[prompt.seat], where, rng.choice(prompt.choices))
            await fake.wait_for(lambda p=prompt: p.key not in {q.key for q in match.prompts}
                                or match.status != "active", 10)
        if held:  # the match ended in the round the feed was opened in
            await close_again()
        await up.idle(fake)
        rows = [m for m in await up.service.repo.messages(match.id) if m.audience == "feed"]
        posts = len(bot_posts(world, feed))  # one post per feed message, or fewer if folded
        assert posts == len(rows) if fold == 0 else posts <= len(rows)
        assert match.status == "finished" and match.state.round >= opened_at
        assert_feed_is_room_plus_finished_rounds(world, room, feed, match.state.round, hands)
        # The match's channels are locked when it ends; its feed, shared with others, is not.
        assert not fake.permissions_for(world.alice, tables[0]) & P.SEND_MESSAGES
        assert sorted((o.id, o.allow, o.deny) for o in feed.overwrites) == kept


async def test_a_feed_a_role_or_a_player_may_write_in_is_refused_naming_them(
        world: World) -> None:
    fake = world.fake
    feed = fake.add_text_channel(world.guild, "feed")
    fake.set_overwrite(feed, world.guild.everyone, deny=P.SEND_MESSAGES |
                       P.SEND_MESSAGES_IN_THREADS | P.CREATE_PUBLIC_THREADS)
    fake.set_overwrite(feed, fake.bot_user, allow=P.VIEW_CHANNEL | P.SEND_MESSAGES)
    fans = fake.add_role(world.guild, "fans")
    fake.set_overwrite(feed, fans, allow=P.SEND_MESSAGES)
    fake.set_overwrite(feed, world.bob, allow=P.SEND_MESSAGES)
    async with umpire(world) as up:
        async def start() -> str:
            inter = await fake.slash_command(world.host, world.general, "match start",
                                             game="double-or-nothing", player1=world.alice,
                                             player2=world.bob, feed=feed)
            return str(inter.response.content)

        said = await start()
        assert "the role “fans”" in said and "bob" in said and up.service.matches == {}
        fake.remove_overwrite(feed, fans)
        said = await start()
        assert "fans" not in said and "bob" in said and up.service.matches == {}
        fake.remove_overwrite(feed, world.bob)
        assert "Spectator feed" in await start() and len(up.service.matches) == 1
