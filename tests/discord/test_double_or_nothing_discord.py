"""Double or Nothing end to end on Discord, two members (alice, seat 0, and bob, seat 1):
the starter button, a double proposed and accepted by button, a set played from the private
"Play a set…" menu, a draw by button followed by the private placement menu in the drawer's
table channel; then the match is typed to its end. Where a card was placed never reaches the
room or the opponent's table."""

from __future__ import annotations

import re
from typing import Any

from bot.live import LiveMatch
from games.core import Prompt
from games.double_or_nothing.rules import plays
from tests.discord.clicks import accepted
from tests.discord.conftest import (
    Umpire,
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    start_match,
    umpire,
    with_key,
)

DANGER, SUCCESS = 4, 3


def pending(match: LiveMatch, seat: int, kind: str) -> Prompt:
    prompt = next((p for p in match.prompts if p.seat == seat), None)
    assert prompt is not None and prompt.kind == kind, (seat, kind, match.prompts)
    return prompt


def buttons(message: Any) -> dict[str, dict[str, Any]]:
    return {c["label"]: c for c in message.iter_components() if c["type"] == 2}


async def decided(world: World, up: Umpire, match: LiveMatch, prompt: Prompt) -> None:
    await world.fake.wait_for(lambda: not match.prompt_pending(prompt.key), 10)
    await up.idle(world.fake)


async def click(world: World, up: Umpire, match: LiveMatch, user: Any, channel: Any,
                prompt: Prompt, label: str) -> Any:
    message = with_key(world, channel, prompt.key)
    inter = await world.fake.click_button(user, message, buttons(message)[label]["custom_id"])
    assert accepted(inter), inter.responses
    await decided(world, up, match, prompt)
    return message


def typed_move(match: LiveMatch, prompt: Prompt) -> str:
    """What a player types to finish the match quickly: the longest play, else a public
    choice; placements at the front; doubles forfeited."""
    state = match.state
    if prompt.kind == "double_answer":
        return "forfeit"
    if prompt.kind in ("place", "position"):
        return prompt.choices[0] if prompt.choices else "at 1"
    hand = state.hands[prompt.seat]
    found = plays(hand, state.table_values)
    if found:
        start, length, _ = max(found, key=lambda p: (p[1], -p[0]))
        return "play " + " ".join(hand[start:start + length])
    return next(c for c in prompt.choices if c != "double")


async def test_double_or_nothing_with_buttons_menus_and_a_private_placement(world: World) -> None:
    fake = world.fake
    users = (world.alice, world.bob)
    async with umpire(world) as up:
        match = await start_match(world, up, "double-or-nothing", seed="don-discord",
                                  settings="target=2 hand_size=6")
        room = channel_of(world, match, "public")
        tables = (channel_of(world, match, "seat0"), channel_of(world, match, "seat1"))
        # Each player's hand, with positions, in their own table channel only.
        for seat in (0, 1):
            line = " ".join(f"{i + 1}:{c}" for i, c in enumerate(match.state.hands[seat]))
            assert any(line in m.content for m in bot_posts(world, tables[seat]))
            assert not any(line in m.content for m in bot_posts(world, room))

        starter = pending(match, 0, "choose_starter")
        await click(world, up, match, world.alice, room, starter, "I start")

        # Alice doubles by button, bob accepts by button: stake 2, bob's move.
        move = pending(match, 0, "move")
        message = with_key(world, room, move.key)
        assert {"Play a set…", "Draw a joker", "Double"} <= set(buttons(message))
        await click(world, up, match, world.alice, room, move, "Double")
        answer = pending(match, 1, "double_answer")
        message = with_key(world, room, answer.key)
        assert buttons(message)["Accept"]["style"] == SUCCESS
        assert buttons(message)["Forfeit"]["style"] == DANGER
        await click(world, up, match, world.bob, room, answer, "Accept")
        assert match.state.stake == 2 and match.state.last_doubler == 0
        assert any("accepts: the bout is now worth 2" in m.content for m in bot_posts(world, room))

        # Bob plays his strongest set from the private menu of the "Play a set…" button.
        move = pending(match, 1, "move")
        message = with_key(world, room, move.key)
        step = await fake.click_button(world.bob, message,
                                       buttons(message)["Play a set…"]["custom_id"])
        assert step.answer is not None and step.answer.ephemeral
        [menu] = step.answer.iter_components()
        first = menu["options"][0]["value"]
        hand_before = list(match.state.hands[1])
        done = await fake.select(world.bob, step.answer, menu["custom_id"], [first])
        assert done.response.type == 6 and "Submitted" in done.original.content
        await decided(world, up, match, move)
        if match.state.phase.value == "position":  # the same set twice: say which, privately
            which = pending(match, 1, "position")
            label = which.choices[0].split()[1]
            label = f"Positions {label.replace('..', '-')}" if ".." in label else f"Position {label}"
            await click(world, up, match, world.bob, tables[1], which, label)
        assert match.state.table == first.split()
        assert len(match.state.hands[1]) == len(hand_before) - len(first.split())
        # Alice's click on bob's private button is refused, privately.
        wrong = await fake.click_button(world.alice, message,
                                        buttons(message)["Play a set…"]["custom_id"])
        assert wrong.answer.ephemeral

        # Alice draws by button; the placement menu is in her table channel only.
        move = pending(match, 0, "move")
        message = with_key(world, room, move.key)
        draw = next(label for label in buttons(message) if label.startswith("Draw ")
                    and label != "Draw a joker")
        card = draw.split()[1]
        await click(world, up, match, world.alice, room, move, draw)
        place = pending(match, 0, "place")
        assert place.private
        hand = list(match.state.hands[0])
        menu_message = with_key(world, tables[0], place.key)
        [menu] = menu_message.iter_components()
        labels = [o["label"] for o in menu["options"]]
        assert len(labels) == len(hand) + 1
        assert labels[1] == f"2: between {hand[0]} and {hand[1]}"
        assert not any(place.key in c["custom_id"] for m in bot_posts(world, room)
                       for c in m.iter_components())
        await fake.select(world.alice, menu_message, menu["custom_id"], ["1"])
        await decided(world, up, match, place)
        assert match.state.hands[0] == [hand[0], card, *hand[1:]]
        placed = [m.content for m in bot_posts(world, room) if "has placed the" in m.content]
        assert placed and "position" not in placed[-1].lower()
        assert any("You placed the" in m.content and "position 2" in m.content
                   for m in bot_posts(world, tables[0]))
        assert not any("position 2" in m.content for m in bot_posts(world, tables[1]))

        # The rest is typed: public moves in the room, private ones in the table channel.
        for _ in range(400):
            if match.status != "active":
                break
            await fake.wait_for(lambda: match.status != "active" or match.prompts, 10)
            if match.status != "active":
                break
            prompt = match.prompts[0]
            where = tables[prompt.seat] if prompt.private else room
            await fake.send_user_message(users[prompt.seat], where, typed_move(match, prompt))
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key)
                                or match.status != "active", 10)
        await up.idle(fake)
        assert match.status == "finished"
        assert max(match.state.score) >= 2
        await assert_channels_match_outbox(world, up, match)
        # No hand line of either player ever reached the room.
        assert not any(re.search(r"\b1:\d+ 2:", m.content) for m in bot_posts(world, room))
