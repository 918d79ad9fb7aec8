"""A player who clicks what the umpire offers: the bench's `--play click` and the click budget
test (tests/discord/test_click_budget.py) press a prompt's buttons and menus through the fake
Discord's real interaction path (a private menu opened by a button, picks in order)."""

from __future__ import annotations

import random
from typing import Any

from testbed.fake_discord.server import FakeDiscord


def component_message(fake: FakeDiscord, channel: Any, key: str) -> Any | None:
    """The bot's latest message in `channel` with a component for decision `key`."""
    bot_id = fake.bot_user.id
    return next((m for m in reversed(fake.messages(channel)) if m.author.id == bot_id
                 and any(str(c.get("custom_id", "")).endswith(f":{key}")
                         for c in m.iter_components())), None)


async def click_move(fake: FakeDiscord, user: Any, message: Any, key: str,
                     rng: random.Random) -> bool:
    """Make the decision with one of the message's components (a random one, a random
    option): whether the umpire took it."""
    items = [c for c in message.iter_components()
             if str(c.get("custom_id", "")).endswith(f":{key}") and not c.get("disabled")]
    if not items:  # (a private menu with nothing to choose: "type your move")
        return False
    item = rng.choice(items)
    custom_id = str(item["custom_id"])
    if item["type"] == 2:  # a button
        inter = await fake.click_button(user, message, custom_id)
        if custom_id.startswith("ump:p:"):  # a private menu of the player's own options
            await fake.wait_for(lambda: inter.answer is not None, 10)
            return await click_move(fake, user, inter.answer, key, rng)
        return not refused(inter)
    options = [o["value"] for o in item["options"]]
    if custom_id.startswith("ump:o:"):  # picks in order, each next menu private
        inter = await fake.select(user, message, custom_id, [options[0]])
        if inter.answer is not None and inter.answer.ephemeral and \
                inter.answer.iter_components():
            return await click_move(fake, user, inter.answer, key, rng)
        return not refused(inter)
    count = int(item.get("min_values") or 1)
    inter = await fake.select(user, message, custom_id, rng.sample(options, count))
    return not refused(inter)


def refused(inter: Any) -> bool:
    """Whether the umpire refused the click (a private note to the clicker alone)."""
    return any(m.ephemeral and "Submitted" not in m.content for m in inter.followups)
