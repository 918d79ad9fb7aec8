"""`/board` in a match's room: one embed with the public state (the game's spectator view),
nothing a spectator may not see."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace
from typing import Any

import pytest

from bot.discord.community_views import board_embed
from bot.discord.render import render_plain
from bot.transport import PlayerRef
from games.registry import all_games
from games.rps_poker.cards import render
from tests.discord.conftest import World, bot_posts, channel_of, start_match, start_rps, umpire

BOARD_MATCHES = 4  # seeded matches per game for the two-world check of the board


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


def _embed_text(embed: dict) -> str:  # type: ignore[type-arg]
    return "\n".join([embed.get("title", ""), embed.get("description", ""),
                      *(f["value"] for f in embed.get("fields", [])),
                      embed.get("footer", {}).get("text", "")])


async def test_board_of_every_game_is_its_spectator_view_and_no_seats_own_lines(
        world: World) -> None:
    """All five games: the embed is the game's spectator description and status line, and
    no line of a seat's own description that the spectator's lacks (its hand, its picks)."""
    fake = world.fake
    secret_lines = 0
    async with umpire(world) as up:
        for slug in all_games():
            match = await start_match(world, up, slug)
            rng = random.Random(slug)
            for _ in range(6):  # a few random moves, so that hands and choices exist
                if match.status != "active" or not match.prompts:
                    break
                prompt = rng.choice(match.prompts)
                command = match.game.random_command(match.state, prompt, rng)
                await up.service.submit_command(match.id, prompt.seat, command)
            await up.idle(fake)
            if match.status != "active":
                continue
            room = channel_of(world, match, "public")
            inter = await fake.slash_command(world.eve, room, "board")
            assert inter.answer is not None and inter.answer.ephemeral, slug
            [embed] = bot_posts(world, room)[-1].embeds
            game, state = match.game, match.state
            public = render_plain(game.describe(state, None), match.players)
            assert embed["description"] == public, slug
            status = game.status(state)
            fields = {f["name"]: f["value"] for f in embed.get("fields", [])}
            assert fields.get("Status") == (render_plain(status, match.players)
                                            if status else None), slug
            text = _embed_text(embed)
            for seat in (0, 1):
                own = render_plain(game.describe(state, seat), match.players)
                for line in set(own.splitlines()) - set(public.splitlines()):
                    if line.strip():
                        secret_lines += 1
                        assert line not in text, (slug, seat, line)
            await up.service.abort(match.id, "next game")
            await up.idle(fake)
    assert secret_lines > 0, "some seat's description had lines of its own to look for"


@pytest.mark.parametrize("slug", sorted(all_games()))
def test_board_text_is_the_same_in_two_worlds_differing_only_in_a_seats_secret(
        slug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The two-world information check (games.core.information) with the /board embed added
    to what a spectator observes: at every compared step it must be identical in both worlds."""
    from games.core import information

    game = all_games()[slug]
    players = (PlayerRef(id="discord:1", name="alice"), PlayerRef(id="discord:2", name="bob"))
    compared = 0

    def board(state: Any) -> dict[str, Any]:
        live = SimpleNamespace(id=7, game=game, state=state, players=players, status="active")
        return board_embed(live).to_dict()

    real = information._differences

    def with_board(game_: Any, a: Any, b: Any, *rest: Any, **named: Any) -> str | None:
        nonlocal compared
        found = real(game_, a, b, *rest, **named)
        if found:
            return found
        compared += 1
        a = getattr(a, "state", a)  # (world A may come already observed: its state)
        if board(a) != board(b):
            return f"the /board embed differs: {board(a)} vs {board(b)}"
        return None

    monkeypatch.setattr(information, "_differences", with_board)
    information.run_information(game, BOARD_MATCHES)
    assert compared > 0
