"""A match with a spectator feed on the fake Discord (bot/feed.py, bot/discord/feed.py).

A Renounce Fate match played to its end by alice and bob, with `/match start feed:#feed`:
while it runs the feed reads exactly as the game room does (no hand of a round a fold ended:
the player who folded never learns whether the other bluffed); the message of its end adds
one reveal, both hands of every round a fold ended. Only the bot writes there: a feed
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
from testbed.fake_discord import permissions as P
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
from tests.support.driver import drive


def assert_feed_is_the_room(world: World, room: Any, feed: Any) -> None:
    """While the match runs: the room's lines, nothing more."""
    shown = lines(world, feed)
    assert not any(REVEAL in t for t in shown), shown
    assert shown == lines(world, room)


def assert_feed_is_room_then_folds(world: World, room: Any, feed: Any, folded: list[int],
                                   hands: dict[int, list[str]]) -> None:
    """Once the match is over: the room's lines, then one reveal of the folded rounds."""
    shown = lines(world, feed)
    start = next(i for i, t in enumerate(shown) if t.startswith(REVEAL))
    assert not any(REVEAL in t for t in shown[start + 1:])
    reveal = shown[start + 1:]
    assert shown[:start] == lines(world, room)
    assert [int(re.match(r"Round (\d+) \(a fold\)", t)[1]) for t in reveal] == folded  # type: ignore[index]
    for number, text in zip(folded, reveal, strict=True):
        for hand in hands[number]:
            assert all(card in text for card in hand.split()), (number, text)


@pytest.mark.parametrize("fold", [False, True], ids=["one-by-one", "folded"])
async def test_feed_shows_the_room_and_each_round_once_it_is_over(world: World,
                                                                 fold: bool) -> None:
    """With folding, the feed's announcements fold as the room's do: the same lines."""
    fake = world.fake
    feed = fake.add_text_channel(world.guild, "feed")
    everyone = world.guild.everyone
    async with umpire(world, coalesce=fold) as up:
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
            assert len(lines(world, feed)) < len(lines(world, room))
            fake.set_overwrite(feed, everyone, deny=P.SEND_MESSAGES |
                               P.SEND_MESSAGES_IN_THREADS | P.CREATE_PUBLIC_THREADS)
            await fake.wait_for(lambda: len(lines(world, feed)) >= len(lines(world, room))
                                or match.status != "active", 20)

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
                assert_feed_is_the_room(world, room, feed)
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
        rows = [m for m in await drive(up.service).messages(match.id) if m.audience == "feed"]
        posts = len(bot_posts(world, feed))  # one post per feed message, or fewer if folded
        assert posts == len(rows) if not fold else posts <= len(rows)
        assert match.status == "finished" and match.state.round >= opened_at
        folded = sorted({int(token.split("-", 1)[0][len("hand"):])
                         for _, token in match.state.hidden_hands})
        assert folded, "no round of the match ended with a fold: the test shows nothing"
        assert_feed_is_room_then_folds(world, room, feed, folded, hands)
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
        said = await start()
        assert "Spectator feed" in said and len(up.service.matches) == 1
        # what the feed shows, as the game declares it (contract.Reveals)
        declared = type(next(iter(drive(up.service).matches())).game).reveals
        assert "the game room's lines while the match runs" in said and declared.at_end in said
