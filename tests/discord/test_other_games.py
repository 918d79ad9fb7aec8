"""Devil's Deal and Decoder end to end on Discord: a member against a built-in bot seat.

The member plays by typing in the room (public decisions) and in the table channel (private
ones); the bot seat plays through the service. Decisions offered as choices are typed as
their text; the rest are typed from what the prompt asks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from games.core import Prompt
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    next_decision,
    start_vs_bot,
    umpire,
)

Chooser = Callable[[Prompt, dict[str, Any]], str | None]


async def drive(world: World, up: Any, match: Any, choose: Chooser, max_steps: int = 600) -> int:
    """Alice (seat 0) answers her prompts until the match ends; returns how many she made."""
    fake = world.fake
    for made in range(max_steps):
        prompt = await next_decision(world, up, match, 0)
        if prompt is None:
            return made
        text = choose(prompt, up.service.view(match.id, 0))
        if text is None:  # nothing to type: the host locks the decision (its default applies)
            await fake.slash_command(world.host, world.general, "match lock", match=match.id)
        else:
            where = channel_of(world, match, "seat0" if prompt.private else "public")
            await fake.send_user_message(world.alice, where, text)
        await fake.wait_for(lambda p=prompt: p.key not in {q.key for q in match.prompts}
                            or match.status != "active", 10)
    raise AssertionError("the match did not end")


def devils_deal_choice(prompt: Prompt, view: dict[str, Any]) -> str | None:
    if prompt.kind == "refill_offer":
        return "no"
    if prompt.kind == "private_cards":
        return re.search(r"e\.g\. '([^']+)'", prompt.text).group(1)  # type: ignore[union-attr]
    if prompt.kind == "bet":
        return next((c for c in prompt.choices if c.startswith("call")), "fold")
    return prompt.choices[0] if prompt.choices else None


def decoder_choice(prompt: Prompt, view: dict[str, Any]) -> str | None:
    if prompt.choices:
        return prompt.choices[0]
    if prompt.kind == "give_up":
        return f"give up {view['you']['hand'][0]}"
    if prompt.kind == "guess_total":
        return "guess 100"
    return None  # the hand selection: the host locks setup


async def test_devils_deal_against_a_bot_seat(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, "devils-deal", "dealer", seed="dd-1",
                                   settings="starting_chips=8 break_seconds=0")
        assert match.players[1].bot == "dealer" and match.transport.get("table1") is None
        room = channel_of(world, match, "public")
        made = await drive(world, up, match, devils_deal_choice)
        await up.idle(fake)
        assert match.status == "finished" and made > 3
        await assert_channels_match_outbox(world, up, match)
        assert "Match over" in bot_posts(world, room)[-1].content
        # Public choices carry buttons in the room.
        assert any(m.components for m in bot_posts(world, room))


async def test_decoder_against_a_bot_seat(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, "decoder", "deducer", seed="dec-1",
                                   settings="time_bank=60 lock_when_ready=true fix_seconds=0")
        made = await drive(world, up, match, decoder_choice)
        await up.idle(fake)
        assert match.status == "finished" and made > 3
        await assert_channels_match_outbox(world, up, match)
