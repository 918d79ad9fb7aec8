"""Double or Nothing on Discord.

- Move (game room): buttons for the public actions (Draw N, Draw a joker, Double) and
  a "Play a set…" button that answers the clicker privately with a menu of the sets of
  their own hand that beat the table (labelled with their positions, which only they see);
  picking one plays it exactly as if `play 5 6 7` had been typed in the room.
- Placement (table channel): a menu of every place in the hand ("3: between 5 and 7"), or
  type `at 3`.
- Which of several identical sets (table channel, asked only when the copies leave different
  hands, never announced in the room): one button per place ("Positions 4-5").
- A proposed double: Accept (green) and Forfeit (red) buttons in the room.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.discord.components import ChoiceSelect, PrivateButton, PromptContext, Style
from bot.discord.games import GameHooks
from games.core import Prompt
from games.double_or_nothing.rules import plays, render_set
from games.double_or_nothing.text import where


def _label(choice: str) -> str:
    labels = {"me": "I start", "opponent": "Opponent starts", "joker": "Draw a joker",
              "double": "Double", "accept": "Accept", "forfeit": "Forfeit"}
    if choice in labels:
        return labels[choice]
    verb, _, rest = choice.partition(" ")
    if verb == "draw":
        return f"Draw {rest}"
    if verb == "play":
        return f"Positions {rest.replace('..', '-')}" if ".." in rest else f"Position {rest}"
    if verb == "at":
        return f"Position {rest}"
    return choice


def _style(choice: str) -> discord.ButtonStyle:
    if choice in ("accept", "me"):
        return Style.success
    if choice == "forfeit":
        return Style.danger
    if choice in ("double",):
        return Style.primary
    return Style.secondary


def _move_rows(ctx: PromptContext) -> list[list[Any]]:
    actions = [ctx.button(c, _label(c), _style(c)) for c in ctx.choices]
    play = PrivateButton(ctx.match_id, ctx.key, "play", "Play a set…", style=Style.success)
    rows: list[list[Any]] = [[play, *actions[:4]]]
    if actions[4:]:
        rows.append(actions[4:9])
    return rows


def _place_rows(ctx: PromptContext) -> list[list[Any]] | None:
    live = ctx.live
    if live is None or not ctx.choices:
        return None
    hand = live.state.hands[int(ctx.prompt["seat"])]  # type: ignore[attr-defined]  # (this game's state; typed BaseModel)
    labels = [f"{i + 1}: {where(hand, i)}" for i in range(len(ctx.choices))]
    return [[ChoiceSelect(ctx.match_id, ctx.key, labels, placeholder="Where does it go?")]]


def components(ctx: PromptContext) -> list[list[Any]] | None:
    kind = ctx.prompt.get("kind")
    if kind == "move":
        return _move_rows(ctx)
    if kind == "place":
        return _place_rows(ctx)
    return None


def private_options(live: Any, prompt: Prompt, seat: int) -> list[tuple[str, str]]:
    """The distinct sets of the seat's hand that beat the table, strongest first."""
    if prompt.kind != "move":
        return []
    state = live.state
    hand = state.hands[seat]
    found: dict[str, tuple[tuple[int, int, int], list[str]]] = {}
    for start, length, value in plays(hand, state.table_values):
        cards = hand[start:start + length]
        key = " ".join(cards)
        place = f"{start + 1}" if length == 1 else f"{start + 1}-{start + length}"
        if key in found:
            found[key][1].append(place)
        else:
            found[key] = (value.key, [place])
    ranked = sorted(found.items(), key=lambda kv: kv[1][0], reverse=True)
    return [(f"{render_set(k.split())} (position{'s' if '-' in ps[0] or len(ps) > 1 else ''} "
             f"{', '.join(ps)})", k) for k, (_, ps) in ranked[:25]]


def note(ctx: PromptContext) -> str | None:
    kind = ctx.prompt.get("kind")
    if kind == "move":
        return ("Or type it here: `play 5 6 7` (cards in hand order, jokers as `J`), `draw 6`, "
                "`joker`, `double`. Where a drawn card goes is asked in your table channel.")
    if kind == "place":
        return "Or type `at N` (1 = front of your hand)."
    if kind == "position":
        return "Or type the positions, e.g. `play 4..6`."
    return None


HOOKS = GameHooks(
    slug="double-or-nothing",
    summary=(
        "**Double or Nothing** in one breath: empty a hand you may never reorder by playing "
        "sets of adjacent cards, each stronger than the last; draw from the table or take a "
        "joker when stuck, and raise the stakes with the doubling die. First to 9 bout wins. "
        "Actions in the game room; where a drawn card goes, in your table channel."
    ),
    label=_label,
    style=_style,
    max_buttons=5,
    components=components,
    note=note,
    private_options=private_options,
)
