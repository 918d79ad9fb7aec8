"""How a click the umpire took looks from Discord's side."""

from __future__ import annotations

from typing import Any

from testbed.fake_discord.models import FLAG_EPHEMERAL


def accepted(inter: Any) -> bool:
    """The click was taken: acknowledged without a visible change (type 6), or answered with
    its channel's next post (type 4, not ephemeral: bot/discord/answer.py), its follow-ups
    the channel's posts after it. A refusal is an ephemeral answer to the clicker alone."""
    response = inter.response
    if response is None or any(m.flags & FLAG_EPHEMERAL for m in inter.followups):
        return False
    return response.type == 6 or (response.type == 4 and
                                  not int(response.data.get("flags") or 0) & FLAG_EPHEMERAL)
