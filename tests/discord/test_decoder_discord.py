"""Decoder on Discord with its own components: alice (seat 0) against the built-in
`deducer` seat. Setup with the Ready / rarity / hand components in her table channel, turns
typed in the room (the note shows the exact forms), responses with buttons, the give-up
letter from a menu only she sees, both time banks under the play's messages."""

from __future__ import annotations

from games.decoder.letters import ALPHABET
from tests.discord.clicks import accepted
from tests.discord.conftest import (
    World,
    assert_channels_match_outbox,
    bot_posts,
    channel_of,
    embed_text,
    next_decision,
    start_vs_bot,
    umpire,
    with_key,
)
from tests.support.driver import drive


async def test_decoder_played_with_buttons_and_menus(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, "decoder", "deducer", seed="dec-buttons",
                                   settings="time_bank=60 lock_when_ready=true fix_seconds=0")
        room, table = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        seen: dict[str, int] = {}
        clue_checked = False
        while (prompt := await next_decision(world, up, match, 0)) is not None:
            seen[prompt.kind] = seen.get(prompt.kind, 0) + 1
            me, other = match.state.seats
            where = table if prompt.private else room
            if prompt.kind == "turn":
                message = next(m for m in reversed(bot_posts(world, room))
                               if "your turn" in m.content)
                tank = me.unused()[0].name
                if len(me.unused()) > 1:
                    assert f"`use {tank} ask DECODER not ANY`" in embed_text(message)
                    assert f"`use {tank} guess Q`" in embed_text(message)
                    # A letter she knows is wrong (not in the bot's hand): she must give one up.
                    wrong = next(ch for ch in ALPHABET if ch not in other.hand
                                 and ch not in match.state.revealed)
                    text = (f"use {tank} ask DECODER not ANY" if seen["turn"] == 1
                            else f"use {tank} guess {wrong}")
                else:
                    text = f"use {tank} restore"
                await fake.send_user_message(world.alice, room, text)
                await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
                continue
            if prompt.kind == "guess_total":
                await fake.send_user_message(world.alice, room, "guess 100")
                await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
                continue
            message = with_key(world, where, prompt.key)
            comps = message.iter_components()
            buttons = {c["label"]: c for c in comps if c["type"] == 2}
            if prompt.kind == "give_up":
                hand = list(me.hand)
                opened = await fake.click_button(world.alice, message,
                                                 buttons["Give up a letter…"]["custom_id"])
                menu_message = opened.answer
                assert opened.answer.ephemeral and menu_message.visible_to == world.alice.id
                [menu] = menu_message.iter_components()
                assert [o["value"] for o in menu["options"]] == hand  # her letters, privately
                picked = await fake.select(world.alice, menu_message, menu["custom_id"], [hand[0]])
                assert picked.response.type == 6 and "Submitted" in picked.original.content
                await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
                assert hand[0] in match.state.revealed
                continue
            if prompt.kind == "hand" and not buttons:
                [menu] = comps
                assert menu["min_values"] == menu["max_values"] == 6
                values = [o["value"] for o in menu["options"]][:6]
                await fake.select(world.alice, message, menu["custom_id"], values)
                await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
                continue
            if not buttons:  # many choices: a menu
                [menu] = comps
                await fake.select(world.alice, message, menu["custom_id"], ["0"])
                await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
                continue
            label = {"tune": "Ready", "swap": "No swap", "sabotage_option": "Pass"}.get(
                prompt.kind, next(iter(buttons)))
            if prompt.kind == "clue":
                assert set(buttons) <= {"ANY", "ODD", "TWO"} and len(buttons) == 2
            clicked = await fake.click_button(world.alice, message, buttons[label]["custom_id"])
            assert accepted(clicked), clicked.responses
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
            if prompt.kind == "clue" and not clue_checked:
                clue_checked = True
                other_label = next(x for x in buttons if x != label)
                mine = [a.seq for a in await drive(up.service).actions(match.id) if a.seat == 0]
                stale = await fake.click_button(world.alice, message,
                                                buttons[other_label]["custom_id"])
                assert stale.answer.ephemeral and "no longer open" in stale.answer.content
                await up.idle(fake)
                after = [a.seq for a in await drive(up.service).actions(match.id) if a.seat == 0]
                assert after == mine  # the bot seat may have moved; she did not
        await up.idle(fake)
        assert match.status == "finished"
        assert {"tune", "turn", "give_up", "clue"} <= set(seen), seen
        await assert_channels_match_outbox(world, up, match)

        # Both time banks under the play's room messages; her hand never in the room.
        banks = [embed_text(m) for m in bot_posts(world, room) if "Time banks" in embed_text(m)]
        assert len(banks) > 3 and all(f"<@{world.alice.id}> 1:00" in b for b in banks)
        assert all("**deducer" in b or "deducer" in b for b in banks)
        for m in bot_posts(world, room):
            assert "Your tiles" not in m.content and "hand" not in embed_text(m).lower()
            assert not any(c["custom_id"].startswith(("ump:m:", "ump:o:"))
                           for c in m.iter_components())
