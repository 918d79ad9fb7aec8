"""Decoder on Discord.

- Setup (table channels): `Ready` button; rarity choices as buttons (a menu when many; one
  `No extra tiles` button for a player who earned none: every player makes both steps);
  the hand as `Drop X` buttons for seven tiles, a menu of six to keep for more, `Keep all
  six` for six; setting a time is typed (`set Cipher Wheel to 150`).
- Turns (game room) are typed; under each turn prompt a note gives the exact forms with one
  of the player's unused tanks, and a menu (a button with one tank left) restores.
- Responses: clue buttons (`ODD` / `TWO` / `ANY`, with Unexpected Sabotage variants),
  `Unexpected Sabotage` / `Pass`, the tank to sabotage, `No swap` / `Swap X` in the table
  channel; after a wrong guess, `Give up a letter…` answers privately with a menu of the
  clicker's own letters (the hand never shows in the room), and `Insurance` when held.
- Both time banks under every message of the play (public figures, as of the message:
  `Game.status`, stored with the message).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.discord.components import MultiSelect, PrivateButton, PromptContext, Style
from bot.discord.games import GameHooks
from games.core import Prompt
from games.decoder.letters import HAND_SIZE

LABELS = {"ready": "Ready", "no swap": "No swap", "pass": "Pass", "insurance": "Insurance",
          "unexpected sabotage": "Unexpected Sabotage", "keep all": "Keep all six",
          "none": "No extra tiles: go on"}


def _label(choice: str) -> str:
    if choice in LABELS:
        return LABELS[choice]
    verb, _, rest = choice.partition(" ")
    if verb == "sabotage":
        return f"Sabotage {rest}"
    if verb in ("swap", "drop"):
        return f"{verb.capitalize()} {rest}"
    if verb == "use" and choice.endswith(" restore"):
        return f"Restore with {rest[:-len(' restore')]}"
    if choice.endswith(" unexpected sabotage"):
        return f"{verb} + Unexpected Sabotage"
    return choice


def _style(choice: str) -> discord.ButtonStyle:
    if choice == "ready":
        return Style.success
    if choice in ("no swap", "pass"):
        return Style.secondary
    if "unexpected sabotage" in choice or choice.startswith("sabotage"):
        return Style.danger
    return Style.primary


def components(ctx: PromptContext) -> list[list[Any]] | None:
    kind = ctx.prompt.get("kind")
    choices = ctx.choices
    if kind == "turn":
        if len(choices) == 1:
            return [[ctx.button(choices[0], _label(choices[0]), Style.secondary)]]
        from bot.discord.components import ChoiceSelect

        return [[ChoiceSelect(ctx.match_id, ctx.key, [_label(c) for c in choices],
                              placeholder="Or restore with a tank…")]]
    if kind == "give_up":
        row: list[Any] = [PrivateButton(ctx.match_id, ctx.key, "give up", "Give up a letter…")]
        row += [ctx.button(c, _label(c), Style.success) for c in choices]
        return [row]
    if kind == "hand" and not choices and ctx.live is not None:
        seat = int(ctx.prompt["seat"])
        tiles = list(ctx.live.state.seats[seat].setup_letters)  # type: ignore[attr-defined]  # (this game's state; typed BaseModel)
        if HAND_SIZE < len(tiles) <= 25:
            return [[MultiSelect(ctx.match_id, ctx.key, "keep", [(t, t) for t in tiles],
                                 count=HAND_SIZE, placeholder=f"Keep {HAND_SIZE} letters…")]]
    return None


def private_options(live: Any, prompt: Prompt, seat: int) -> list[tuple[str, str]]:
    if prompt.kind == "give_up":
        return [(letter, letter) for letter in live.state.seats[seat].hand]
    return []


def note(ctx: PromptContext) -> str | None:
    kind = ctx.prompt.get("kind")
    live = ctx.live
    if kind == "turn" and live is not None:
        seat = int(ctx.prompt["seat"])
        unused = live.state.seats[seat].unused()  # type: ignore[attr-defined]  # (this game's state; typed BaseModel)
        if len(unused) == 1:
            return f"Type `use {unused[0].name} restore` (or `restore`), or press the button."
        tank = unused[0].name
        short = tank.split()[0].lower()
        return ("Type one of these in this room (tank names may be shortened, e.g. "
                f"`{short}`):\n`use {tank} ask <WORD> not <ANY|ODD|TWO>` (e.g. "
                f"`use {tank} ask DECODER not ANY`)\n`use {tank} guess <LETTER>` (e.g. "
                f"`use {tank} guess Q`)\n`use {tank} restore`")
    if kind == "guess_total":
        return "Type `guess <number>` (the total recharge units of the restored tanks)."
    if kind == "tune":
        return ("Type `set <puzzle> to <seconds>` (e.g. `set Cipher Wheel to 150`; from the official "
                "time up to 300 s, as often as you like until the hosts lock setup). Ready tells "
                "the hosts you are done; it locks nothing.")
    return None


HOOKS = GameHooks(
    slug="decoder",
    summary=(
        "**Decoder** in one breath: earn letter tiles from your puzzle times, then take turns "
        "asking for words; guess and sabotage to empty the opponent's tanks. Setup choices go "
        "in your table channel; hosts lock setup with `/match lock`."
    ),
    label=_label,
    style=_style,
    max_buttons=10,
    short_label=32,
    components=components,
    note=note,
    private_options=private_options,
)
