"""The toy game kit (tests/support/toy_game: a sixth game) on Discord, through what its
package declares alone: its buttons' labels and colours, a note from the seat's own view,
its /rules summary and page. Nothing under bot/ names it (tests/games/test_game_contract.py).
"""

from __future__ import annotations

from tests.discord.clicks import accepted
from tests.discord.conftest import (
    World,
    bot_posts,
    channel_of,
    embed_text,
    next_decision,
    start_vs_bot,
    umpire,
    with_key,
)
from tests.support.toy_game import DUEL_KIT

PRIMARY, SUCCESS = 1, 3


async def test_the_toy_game_kit_plays_on_discord_as_its_package_declares(world: World) -> None:
    fake = world.fake
    async with umpire(world) as up:
        match = await start_vs_bot(world, up, DUEL_KIT.slug, "highest", settings="rounds=2")
        room, table = channel_of(world, match, "public"), channel_of(world, match, "seat0")
        picked: list[int] = []
        while (prompt := await next_decision(world, up, match, 0)) is not None:
            message = with_key(world, table, prompt.key)
            buttons = {c["label"]: c for c in message.iter_components() if c["type"] == 2}
            free = [n for n in range(1, 10) if n not in picked]
            # Its labels ("pick 7" shows as "7") and colours (8 and 9 green), all nine as
            # buttons (its max_buttons), under a note from alice's own view.
            assert list(buttons) == [str(n) for n in free]
            assert {label: b["style"] for label, b in buttons.items()} == {
                str(n): SUCCESS if n >= 8 else PRIMARY for n in free}
            assert embed_text(message) == f"Still yours to pick: {' '.join(map(str, free))}."
            inter = await fake.click_button(world.alice, message, buttons[str(free[0])]["custom_id"])
            assert accepted(inter)
            picked.append(free[0])
            await fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
        assert match.status != "active" and picked == [1, 2]
        assert match.outcome() is not None and match.outcome().winner == 1  # "highest" picks 9, 8
        # The note went to her table only: the room shows no seat's free numbers.
        assert not any("Still yours" in embed_text(m) for m in bot_posts(world, room))
        rules = await fake.slash_command(world.eve, world.general, "rules", game=DUEL_KIT.slug)
        assert rules.response.ephemeral
        assert rules.response.content.startswith("**Duel Kit** in one breath")
        assert "# Duel Kit (test game)" in rules.response.content  # its page, from its package
