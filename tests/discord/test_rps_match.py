"""A whole RPS Poker match on Discord: a host starts it, both players play it to the end."""

from __future__ import annotations

from games.rps_poker.cards import render as render_card
from testbed.fake_discord import permissions as P
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_rps,
    umpire,
)


def card_of(choice: str) -> str:
    """"play 🪨7" -> "🪨7"."""
    return choice.split(" ", 1)[1]


async def test_host_starts_rps_and_both_play_it_to_the_end(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        tables = [channel_of(world, match, "seat0"), channel_of(world, match, "seat1")]
        log = channel_of(world, match, "umpire")
        users = [world.alice, world.bob]
        assert [p.name for p in match.players] == ["alice", "bob"]

        # Channels: the room is public, each table only for its player, the hosts and the bot.
        for u in (world.alice, world.bob, world.eve, world.host):
            assert fake.can_view(u, room)
        for seat, table in enumerate(tables):
            assert fake.can_view(users[seat], table) and fake.can_view(world.host, table)
            assert fake.can_view(fake.bot_user, table)
            assert not fake.can_view(users[1 - seat], table)
            assert not fake.can_view(world.eve, table)
        assert fake.can_view(world.host, log) and fake.can_view(fake.bot_user, log)
        assert not any(fake.can_view(u, log) for u in (world.alice, world.bob, world.eve))

        # The opening: commitment in the room, a draft pick with card buttons in each table.
        [opening] = bot_posts(world, room)
        assert match.commitment in opening.content and match.seed not in opening.content
        covering = (await up.service.export(match.id))["match_commitment"]["sha256"]
        assert f"Match commitment (SHA-256 of the players, settings, start time and seed " \
            f"commitment): `{covering}`" in opening.content  # what verify compares
        assert f"<@{world.alice.id}>" in opening.content and "<t:" in opening.content
        first = bot_posts(world, tables[0])[-1]
        labels = [c["label"] for c in first.iter_components()]
        assert labels == [card_of(c) for c in match.prompts[0].choices]

        # Play every decision by typing it in the table channel.
        while match.status == "active":
            for prompt in list(match.prompts):
                choice = prompt.choices[0]
                other = [p for p in match.prompts if p.seat != prompt.seat]
                await fake.send_user_message(users[prompt.seat], tables[prompt.seat], choice)
                await fake.wait_for(lambda p=prompt: p.key not in {q.key for q in match.prompts}
                                    or match.status != "active")
                await up.idle(fake)
                if other:  # the other player has not chosen: nothing of this choice in the room
                    card = card_of(choice)
                    assert all(card not in m.content for m in fake.messages(room)), \
                        f"{card} leaked to the room before the reveal"
        assert match.status == "finished"
        await up.idle(fake)
        counts = await assert_channels_match_outbox(world, up, match)
        assert counts["public"] > 10 and counts["seat0"] > 10 and counts["umpire"] > 10
        final = bot_posts(world, room)[-1].content
        assert "Match over" in final and match.seed in final

        # Read-only once ended: the players can still see their channels but not write.
        for seat, table in enumerate(tables):
            assert fake.can_view(users[seat], table)
            assert not fake.permissions_for(users[seat], table) & P.SEND_MESSAGES
        assert fake.can_view(world.eve, room)
        assert not fake.permissions_for(world.alice, room) & P.SEND_MESSAGES
        assert not fake.permissions_for(world.eve, room) & P.SEND_MESSAGES


def test_card_rendering_is_emoji_and_number() -> None:
    assert render_card("R7") == "🪨7"
