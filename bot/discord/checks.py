"""Who may run host commands, as small reusable checks (in the style of RoboDanny's
`cogs/utils/checks.py`): a host is a member with the server's host role or Manage Server,
and a host who plays a match never referees it, while it runs or after it has ended (no
pause, award, abort, unrated, export, ...): another host does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from discord.ext import commands

from bot.discord.errors import Refusal
from bot.discord.render import player_id
from bot.live import LiveMatch
from bot.status import RUNNING

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot


async def host_check(bot: UmpireBot, ctx: commands.Context[Any]) -> bool:
    """True for a host in a server; else CheckFailure saying what is needed."""
    if ctx.guild is None:
        raise commands.CheckFailure("Match commands work in a server, not in direct messages.")
    config = await bot.guild_config(ctx.guild.id)
    if not config.is_host(ctx.author):
        raise commands.CheckFailure(
            f"Only hosts can run matches: you need the {config.host_role_label(ctx.guild)} "
            "role or the Manage Server permission.")
    return True


def not_a_player(live: LiveMatch, user_id: int) -> LiveMatch:
    """`live`, unless `user_id` plays it: a player (a host or not) cannot referee their own
    match, ever; it would let them erase a loss or read the opponent's secrets."""
    if live.seat_of(player_id(user_id)) is not None:
        when = "while it is on" if live.status in RUNNING else "even now it is over"
        raise Refusal(f"You play in match #{live.id}, so you cannot run host commands on it "
                      f"{when}: another host must.")
    return live
