"""Renounce Fate on Discord.

- Starter (game room): `I start` / `Opponent starts` buttons.
- Bets (game room): Call N (green), Raise N for the game's few amounts (the largest marked
  max), Fold (red); any other amount is typed (`raise 4`).
- Renouncing (each player's table channel): a select menu listing only the legal picks
  (`🟨3 from set 2`), under the prompt that shows the three sets; typing works too
  (`renounce Y3 set 2`, `Y3 2`, `🟨3 in set 2`).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.discord.components import ChoiceSelect, PromptContext, Style
from bot.discord.games import GameHooks
from games.renounce_fate.cards import render


def _label(choice: str) -> str:
    verb, _, rest = choice.partition(" ")
    labels = {"me": "I start", "opponent": "Opponent starts", "fold": "Fold"}
    if choice in labels:
        return labels[choice]
    if verb == "renounce":  # "renounce Y3 set 2"
        card, _, set_no = rest.partition(" set ")
        return f"{render(card)} from set {set_no}"
    if verb in ("call", "raise") and rest:
        return f"{verb.capitalize()} {rest}"
    return choice


def _style(choice: str) -> discord.ButtonStyle:
    if choice == "me" or choice.startswith("call"):
        return Style.success
    if choice == "fold":
        return Style.danger
    if choice == "opponent":
        return Style.secondary
    return Style.primary


def _bet_rows(ctx: PromptContext) -> list[list[Any]]:
    choices = ctx.choices
    raises = [c for c in choices if c.startswith("raise ")]
    row1: list[Any] = []
    row2: list[Any] = []
    for c in choices:
        label = _label(c)
        if raises and c == raises[-1] and len(raises) > 1:
            label += " (max)"
        (row2 if c.startswith("raise") else row1).append(ctx.button(c, label, _style(c)))
    return [row for row in (row1, row2[:5]) if row]


def components(ctx: PromptContext) -> list[list[Any]] | None:
    kind = ctx.prompt.get("kind")
    if kind == "bet":
        return _bet_rows(ctx)
    if kind == "renounce" and ctx.choices:
        return [[ChoiceSelect(ctx.match_id, ctx.key, [_label(c) for c in ctx.choices],
                              placeholder="Renounce a fate card…")]]
    return None


def note(ctx: PromptContext) -> str | None:
    kind = ctx.prompt.get("kind")
    if kind == "bet":
        return "Other raises: type `raise N` (N chips on top of the call)."
    if kind == "renounce":
        return ("Pick the fate card to renounce in the menu (only you see your pick until both "
                "are in), or type it with its set: `renounce Y3 set 2`.")
    return None


HOOKS = GameHooks(
    slug="renounce-fate",
    summary=(
        "**Renounce Fate** in one breath: two private cards each, three public sets of fate "
        "cards; both players secretly renounce fate cards until each set holds at most one, "
        "and those become the community cards. Two capped betting rounds, then the best hand "
        "wins the pot. Bets go in the game room, renounce picks in your table channel."
    ),
    label=_label,
    style=_style,
    components=components,
    note=note,
)
