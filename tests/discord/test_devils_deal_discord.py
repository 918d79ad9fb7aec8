"""Devil's Deal on Discord with its own components: alice (seat 0) against the built-in
`dealer` seat, played with buttons and menus only: starter and refill buttons, the sum helper
under a division, the private-card menus in her table channel, betting buttons."""

from __future__ import annotations

from typing import Any

from games.devils_deal.cards import number, render
from games.devils_deal.controls import sum_helper
from games.devils_deal.partition import best_division, best_takes
from games.devils_deal.rules import pair_options
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

DANGER, SUCCESS = 4, 3


async def test_devils_deal_played_with_buttons_and_menus(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, "devils-deal", "dealer", seed="dd-buttons",
                                   settings="starting_chips=12 break_seconds=0")
        room, table = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        seen: dict[str, int] = {}
        stale: tuple[Any, str, str] | None = None
        while (prompt := await next_decision(world, up, match, 0)) is not None:
            seen[prompt.kind] = seen.get(prompt.kind, 0) + 1
            state = match.state
            if prompt.kind == "private_cards":
                message = with_key(world, table, prompt.key)
                [menu] = message.iter_components()
                legal = sorted({a for a, _ in pair_options(state.pools[0], state.community)},
                               key=lambda c: (number(c), c))
                # Only her legal cards: distinct pool cards other than the community card.
                assert [o["value"] for o in menu["options"]] == legal
                assert [o["label"] for o in menu["options"]] == [render(c) for c in legal]
                assert state.community not in [o["value"] for o in menu["options"]]
                first, second = legal[-1], legal[0]
                step = await fake.select(world.alice, message, menu["custom_id"], [first])
                private = step.answer
                assert step.answer.ephemeral and private is not None
                [menu2] = private.iter_components()
                assert [o["value"] for o in menu2["options"]] == [c for c in legal if c != first]
                assert match.state.private[0] is None  # nothing submitted after one pick
                done = await fake.select(world.alice, private, menu2["custom_id"], [second])
                assert done.response.type == 6 and "Submitted" in done.original.content
                await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
                assert match.state.private[0] == [first, second] or match.status != "active"
                if stale is None:  # the same menu again, the decision made: refused
                    seq = match.seq
                    again = await fake.select(world.alice, message, menu["custom_id"], [second])
                    assert again.answer.ephemeral and "no longer open" in again.answer.content
                    assert match.seq == seq
                stale = (message, menu["custom_id"], first)
                continue
            where = room
            message = with_key(world, where, prompt.key)
            buttons = {c["label"]: c for c in message.iter_components() if c["type"] == 2}
            if prompt.kind == "choose_starter":
                label = "I start"
            elif prompt.kind == "refill_offer":
                assert buttons["Yes, refill"]["style"] == SUCCESS
                label = "Yes, refill" if seen[prompt.kind] == 1 else "No"
            elif prompt.kind == "division":
                offered = state.refill.offered
                helper = embed_text(message)
                assert helper == sum_helper(offered)
                assert f"total {sum(number(c) for c in offered)}" in helper
                # The best listed figure is what the bots' exhaustive search can take.
                top = max(t for t, _ in best_takes([number(c) for c in offered]).values())
                assert top == best_division(offered, [1.0] * len(offered))[2]
                label = "Take nothing"
            elif prompt.kind == "take":
                label = next(iter(buttons)) if buttons else None
                if label is None:  # many set-aside cards: a menu
                    [menu] = message.iter_components()
                    await fake.select(world.alice, message, menu["custom_id"], ["0"])
                    await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
                    continue
            else:
                assert prompt.kind == "bet"
                assert buttons["Fold"]["style"] == DANGER
                calls = [x for x in buttons if x.startswith("Call")]
                raises = [x for x in buttons if x.startswith("Raise")]
                assert raises or calls
                assert "raise N" in embed_text(message)
                label = calls[0] if calls else raises[0]
                if calls:
                    assert buttons[label]["style"] == SUCCESS
            inter = await fake.click_button(world.alice, message, buttons[label]["custom_id"])
            assert accepted(inter), inter.responses
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
        await up.idle(fake)
        assert match.status == "finished"
        assert {"refill_offer", "division", "private_cards", "bet"} <= set(seen), seen
        await assert_channels_match_outbox(world, up, match)

        # A click on the first private-card menu of an earlier round is refused, privately.
        assert stale is not None
        message, custom_id, first = stale
        refused = await fake.select(world.alice, message, custom_id, [first])
        assert refused.answer.ephemeral and "no longer open" in refused.answer.content

        # Nothing secret in the room: no private-card menu, no "your private cards" line.
        for m in bot_posts(world, room):
            assert not any(c["custom_id"].startswith("ump:o:") for c in m.iter_components())
            assert "Your private cards" not in m.content + embed_text(m)
        assert any("Your private cards" in m.content for m in bot_posts(world, table))


async def test_private_card_menus_work_after_a_restart(world: World) -> None:
    """The first menu posted before a restart, and its private second step, after it."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, "devils-deal", "dealer", seed="dd-restart")
        room = channel_of(world, match, "public")
        while not any(p.kind == "private_cards" and p.seat == 0 for p in match.prompts):
            await fake.wait_for(lambda: any(p.seat == 0 for p in match.prompts), 10)
            prompt = next(p for p in match.prompts if p.seat == 0)
            if prompt.kind == "private_cards":
                break
            text = {"choose_starter": "me", "refill_offer": "no"}.get(prompt.kind, "nothing")
            await fake.send_user_message(world.alice, room, text)
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
        key = next(p.key for p in match.prompts if p.seat == 0)
        match_id = match.id
    async with umpire(world) as up:
        match = up.service.matches[match_id]
        table = channel_of(world, match, "seat0")
        message = with_key(world, table, key)
        [menu] = message.iter_components()
        first, second = menu["options"][0]["value"], menu["options"][1]["value"]
        step = await fake.select(world.alice, message, menu["custom_id"], [first])
        [menu2] = step.answer.iter_components()
        done = await fake.select(world.alice, step.answer, menu2["custom_id"], [second])
        assert done.response.type == 6 and "Submitted" in done.original.content
        await fake.wait_for(lambda: not match.prompt_pending(key), 10)
        assert (await drive(up.service).actions(match.id))[-1].command["first"] == first


async def test_round_break_holds_the_next_decision_back_on_discord(world: World) -> None:
    """Seed, Timing: "After every round, there is a break of at least 20 seconds" (here a
    1.5 s break setting, on the wall clock): the round-end message is posted at once, the next
    round's first decision only when the break is over, with its buttons and its full clock."""
    fake = world.fake
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, "devils-deal", "dealer", seed="dd-break",
                                   settings="break_seconds=1.5")
        room = channel_of(world, match, "public")
        while match.state.round < 2 and match.status == "active":
            prompt = await next_decision(world, up, match, 0)
            if prompt is None or match.state.round >= 2:
                break
            if prompt.kind == "private_cards":
                pair = pair_options(match.state.pools[0], match.state.community)[0]
                where = channel_of(world, match, "seat0")
                await fake.send_user_message(world.alice, where, " ".join(pair))
            else:
                text = {"choose_starter": "me", "refill_offer": "no", "take": "nothing",
                        "bet": "fold"}.get(prompt.kind, "nothing")
                await fake.send_user_message(world.alice, room, text)
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key)
                                or match.state.round >= 2, 10)
        assert match.status == "active" and match.state.round == 2
        [first] = match.prompts
        await up.idle(fake)
        posts = bot_posts(world, room)
        assert "after a 1.5-second break" in posts[-1].content
        assert not any(c["custom_id"].endswith(f":{first.key}")
                       for m in posts for c in m.iter_components())
        clock = up.service.matches[match.id].clocks[first.key]
        assert clock.status == "break"
        await fake.wait_for(lambda: clock.status == "armed" or not match.prompt_pending(first.key),
                            10)
        await up.idle(fake)
        if first.seat == 0:  # Alice's offer: posted now, with its buttons
            message = with_key(world, room, first.key)
            assert "Refill?" in message.content
        else:  # the bot's offer: it decides only once the break is over
            assert any("Refill?" in m.content for m in bot_posts(world, room)[len(posts):])
