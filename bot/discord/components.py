"""Buttons and select menus for the decisions a message asks for.

Restart-proof: the items are `DynamicItem`s registered on the bot, their custom ids carry the
match id, the prompt key and the choice, so a click after a restart still finds its match.
A click submits the choice's text through the service exactly as if the player had typed
it where the message is; a click on a decision that is no longer pending is refused.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.games import hooks_for

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot

log = logging.getLogger(__name__)

MAX_ROWS = 5
MAX_OPTIONS = 25


def _button_id(match_id: int, key: str, index: int) -> str:
    return f"ump:b:{match_id}:{index}:{key}"


def _select_id(match_id: int, key: str) -> str:
    return f"ump:s:{match_id}:{key}"


def build_view(match_id: int, game: str, prompts: Sequence[dict[str, Any]]) -> discord.ui.View | None:
    """One row per prompt: buttons for a few short choices, else a select menu (<= 25)."""
    hooks = hooks_for(game)
    view = discord.ui.View(timeout=None)
    rows = 0
    for prompt in prompts:
        choices = list(prompt.get("choices") or [])[:MAX_OPTIONS]
        key = str(prompt["key"])
        if not choices or rows >= MAX_ROWS or len(_select_id(match_id, key)) > 90:
            continue
        labels = [hooks.label(c)[:80] or c[:80] for c in choices]
        if len(choices) <= hooks.max_buttons and all(len(x) <= hooks.short_label for x in labels):
            for i, label in enumerate(labels):
                view.add_item(ChoiceButton(match_id, key, i, label, row=rows))
        else:
            view.add_item(ChoiceSelect(match_id, key, labels, row=rows))
        rows += 1
    return view if rows else None


class ChoiceButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=r"ump:b:(?P<match>\d+):(?P<index>\d+):(?P<key>.+)"):
    def __init__(self, match_id: int, key: str, index: int, label: str = "?", *,
                 row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.primary,
                                           custom_id=_button_id(match_id, key, index), row=row))
        self.match_id, self.key, self.index = match_id, key, index

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Button[Any], match: re.Match[str]) -> ChoiceButton:
        return cls(int(match["match"]), match["key"], int(match["index"]), item.label or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await choose(interaction, self.match_id, self.key, self.index)


class ChoiceSelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                   template=r"ump:s:(?P<match>\d+):(?P<key>.+)"):
    def __init__(self, match_id: int, key: str, labels: Sequence[str] = (), *,
                 row: int | None = None) -> None:
        options = [discord.SelectOption(label=label[:100], value=str(i))
                   for i, label in enumerate(labels)] or [discord.SelectOption(label="?")]
        super().__init__(discord.ui.Select(custom_id=_select_id(match_id, key), options=options,
                                           placeholder="Choose…", row=row))
        self.match_id, self.key = match_id, key

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Select[Any], match: re.Match[str]) -> ChoiceSelect:
        return cls(int(match["match"]), match["key"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        if not values or not values[0].isdigit():
            await interaction.response.send_message("Pick one of the options.", ephemeral=True)
            return
        await choose(interaction, self.match_id, self.key, int(values[0]))


async def choose(interaction: discord.Interaction[Any], match_id: int, key: str,
                 index: int) -> None:
    """A click: refuse it if stale or not the clicker's, else submit the choice's text."""
    bot: UmpireBot = interaction.client  # type: ignore[assignment]
    try:
        refusal, accepted = await bot.submit_choice(interaction.user.id, interaction.channel_id,
                                                    match_id, key, index)
    except Exception:
        log.exception("choice %s/%s/%s failed", match_id, key, index)
        refusal, accepted = "Something went wrong on the umpire's side; type your move instead.", False
    if accepted:
        await interaction.response.defer()
    else:
        await interaction.response.send_message(refusal, ephemeral=True)
