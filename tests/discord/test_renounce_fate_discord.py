"""Renounce Fate end to end on Discord, played by two members with the components only:
alice (seat 0) and bob (seat 1) bet with the buttons in the game room and renounce with the
select menu in their own table channels. Checks: the menu lists exactly the legal picks, a
pick stays out of the room and the other table until both are in, every deal's private hand
reaches only its table channel, and every channel got exactly its outbox messages."""

from __future__ import annotations

from typing import Any

from games.renounce_fate.cards import render, render_all
from games.renounce_fate.rules import legal_picks
from tests.discord.clicks import accepted
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    embed_text,
    start_match,
    umpire,
    with_key,
)

DANGER, SUCCESS = 4, 3


def buttons_of(message: Any) -> dict[str, dict[str, Any]]:
    return {c["label"]: c for c in message.iter_components() if c["type"] == 2}


def texts(world: World, channel: Any) -> str:
    return "\n".join(m.content + "\n" + embed_text(m) for m in bot_posts(world, channel))


async def test_renounce_fate_played_with_buttons_and_select_menus(world: World) -> None:
    fake = world.fake
    users = (world.alice, world.bob)
    async with umpire(world) as up:
        match = await start_match(world, up, "renounce-fate", seed="rf-discord",
                                  settings="starting_chips=8 break_seconds=0")
        room = channel_of(world, match, "public")
        tables = [channel_of(world, match, f"seat{s}") for s in (0, 1)]
        seen = {"bet": 0, "renounce": 0, "choose_starter": 0}
        hands_seen: set[int] = set()
        for _ in range(400):
            await fake.wait_for(lambda: match.status != "active" or match.prompts, 10)
            if match.status != "active":
                break
            await up.idle(fake)
            if match.state.round and match.state.round not in hands_seen:
                hands_seen.add(match.state.round)
                for seat in (0, 1):  # the private hand, in its own table channel only
                    mine = f"your private cards are {render_all(match.state.hands[seat])}"
                    assert mine in texts(world, tables[seat])
                    assert f"Round {match.state.round}: {mine}" not in texts(world, room)
            prompt = match.prompts[0]
            seen[prompt.kind] += 1
            user = users[prompt.seat]
            if prompt.kind == "renounce":
                for pr in list(match.prompts):  # both players, one after the other
                    table = tables[pr.seat]
                    message = with_key(world, table, pr.key)
                    [menu] = message.iter_components()
                    legal = legal_picks([s.remaining for s in match.state.sets])
                    assert [o["label"] for o in menu["options"]] == \
                        [f"{render(c)} from set {n}" for n, c in legal]
                    index = (seen["renounce"] + pr.seat) % len(legal)
                    before_room = len(bot_posts(world, room))
                    inter = await fake.select(users[pr.seat], message, menu["custom_id"],
                                              [str(index)])
                    assert accepted(inter) or inter.response.type == 7, inter.response.content
                    await fake.wait_for(lambda p=pr: not match.prompt_pending(p.key), 10)
                    await up.idle(fake)
                    if match.state.picks[pr.seat] is not None:  # the other has not picked
                        n, c = legal[index]
                        said = "\n".join(m.content for m in bot_posts(world, room)[before_room:])
                        assert "has picked a fate card" in said
                        assert f"{render(c)} from set {n}" not in said
                        assert f"{render(c)} from set {n}" not in texts(world, tables[1 - pr.seat])
                continue
            message = with_key(world, room, prompt.key)
            buttons = buttons_of(message)
            if prompt.kind == "choose_starter":
                label = "Opponent starts"
            else:
                assert buttons["Fold"]["style"] == DANGER
                calls = [b for b in buttons if b.startswith("Call")]
                raises = [b for b in buttons if b.startswith("Raise")]
                label = calls[0] if calls and seen["bet"] % 3 else (raises or calls)[0]
                if calls:
                    assert buttons[calls[0]]["style"] == SUCCESS
            inter = await fake.click_button(user, message, buttons[label]["custom_id"])
            assert accepted(inter), inter.response.content
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
        await up.idle(fake)
        assert match.status == "finished"
        assert seen["bet"] > 0 and seen["renounce"] > 0 and seen["choose_starter"] == 1
        room_text = texts(world, room)
        assert "Renounce step 1:" in room_text and "Set 1:" in room_text
        assert "Showdown" in room_text or "folds" in room_text
        await assert_channels_match_outbox(world, up, match)
        # The renounce menus were only ever in the table channels.
        for m in bot_posts(world, room):
            assert not any(c["custom_id"].startswith("ump:s:") for c in m.iter_components())
