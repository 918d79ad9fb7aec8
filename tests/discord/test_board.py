"""`/board` in a match's room: one embed with the public state (the game's spectator view),
nothing a spectator may not see."""

from __future__ import annotations

import re

from bot.discord.render import render_plain
from games.rps_poker.cards import render
from tests.discord.conftest import World, bot_posts, channel_of, start_rps, umpire


async def test_board_shows_the_spectator_view_and_no_seats_secret(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        before = len(bot_posts(world, room))
        inter = await fake.slash_command(world.eve, room, "board")
        assert inter.answer is not None and inter.answer.ephemeral
        posts = bot_posts(world, room)
        assert len(posts) == before + 1
        [embed] = posts[-1].embeds
        text = " ".join([embed.get("title", ""), embed.get("description", ""),
                         *(f["value"] for f in embed.get("fields", [])),
                         embed.get("footer", {}).get("text", "")])
        game, state = match.game, match.state
        assert embed["description"] == render_plain(game.describe(state, None), match.players)
        for seat in (0, 1):
            private = game.view(state, seat).model_dump(mode="json")
            offer = private["offer"]
            assert offer, "each seat has a private offer to choose from"
            for card in offer:  # neither the code ("R3") nor the emoji form ("🪨3")
                assert not re.search(rf"(?<![A-Za-z0-9]){card}(?![0-9])", text), card
                assert render(card) not in text, card
            assert all(render(c) in game.describe(state, seat) for c in offer)  # its own text has them
            assert game.view(state, None).model_dump(mode="json").get("offer") in (None, [])

        elsewhere = await fake.slash_command(world.eve, world.general, "board")
        assert "game room of a match" in elsewhere.answer.content
        table = await fake.slash_command(world.alice, channel_of(world, match, "seat0"), "board")
        assert "game room of a match" in table.answer.content
        assert len(bot_posts(world, room)) == before + 1
