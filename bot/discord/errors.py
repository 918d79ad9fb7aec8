"""Errors answered with a short sentence to whoever caused them (ephemeral where possible),
logged for the operator, never shown as a stack trace."""

from __future__ import annotations

import logging
import math
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.options import SettingsError
from bot.umpire import UmpireError

log = logging.getLogger(__name__)


#: The one answer for a match id that is unknown or belongs to another server.
NO_SUCH_MATCH = "No such match here."


class Refusal(Exception):
    """A request of a user that the bot refuses; the message is for them."""


USER_FACING = (Refusal, UmpireError, SettingsError)


class Silenced(commands.CheckFailure):
    """A use within its cooldown whose user was already told the wait: no answer at all
    (bot/discord/gate.py)."""


def chain(error: BaseException) -> list[BaseException]:
    """The error and what it wraps (`original` of command errors, then `__cause__`)."""
    out: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not e for e in out):
        out.append(current)
        current = getattr(current, "original", None) or current.__cause__
    return out


def root_cause(error: BaseException) -> BaseException:
    return chain(error)[-1]


def error_text(error: BaseException, param: str | None = None) -> str | None:
    """The sentence for the user, or None for an unexpected error (to be logged); `param`:
    the name of the argument being converted, if any."""
    for link in chain(error):
        if isinstance(link, USER_FACING):
            return str(link)
    root = root_cause(error)
    if isinstance(root, commands.CommandOnCooldown):
        return (f"You used this command a moment ago; each member may use it once every "
                f"{root.cooldown.per:.0f} s: try again in {math.ceil(root.retry_after)} s.")
    if isinstance(error, commands.CheckFailure | app_commands.CheckFailure):
        return str(error) or "You may not use this command."
    if isinstance(root, commands.RangeError):  # a typed number out of its range
        name = param or "the number"
        low = "" if root.minimum is None else f" at least {root.minimum}"
        high = "" if root.maximum is None else f" at most {root.maximum}"
        return f"{name} must be{low}{',' if low and high else ''}{high}; {root.value} is not."
    if isinstance(root, commands.UserInputError | app_commands.TransformerError):
        return str(root)
    return None


async def answer_error(ctx: commands.Context[Any], error: BaseException) -> None:
    if any(isinstance(e, Silenced) for e in chain(error)):  # told once: no answer now
        if ctx.interaction is not None and ctx.interaction.response.is_done():
            try:
                await ctx.interaction.delete_original_response()
            except discord.HTTPException as exc:
                log.warning("could not remove a silenced command's answer: %s", exc)
        return
    text = error_text(error, getattr(ctx.current_parameter, "name", None))
    if text is None:
        log.error("command %s failed", ctx.command, exc_info=root_cause(error))
        text = "Something went wrong on the umpire's side; nothing was changed. The hosts can check the bot's log."
    try:
        await ctx.send(text[:2000], ephemeral=True)
    except discord.HTTPException:
        log.warning("could not answer a failed command: %s", text)


async def defer(ctx: commands.Context[Any], *, ephemeral: bool) -> None:
    """Acknowledge a slash command at once (Discord's 3-second limit), then work."""
    if ctx.interaction is not None and not ctx.interaction.response.is_done():
        await ctx.defer(ephemeral=ephemeral)
