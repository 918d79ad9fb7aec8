"""Devil's Deal on Discord.

- Refill offer, starter, take: the game's choices as buttons (yes green, no grey).
- Division: a sum helper under the prompt: the 12 cards grouped by number with their total,
  and for each pile sum the most cards a division can take (every pile but the set-aside
  one), best first; the division itself is typed.
- Private cards (table channel): a select menu of the player's legal cards (distinct pool
  cards other than the community card) for the card revealed first; picking one answers with
  a private menu for the card revealed second; the pair is submitted as `R7 B3` (R7 first).
- Bets: Call N (green), Raise N for the game's few amounts (the largest marked max), Fold
  (red); any other amount is typed (`raise 4`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.discord.components import OrderedSelect, PromptContext, Style
from bot.discord.games import GameHooks
from games.devils_deal.cards import number, render
from games.devils_deal.partition import best_takes
from games.devils_deal.rules import private_card_options

TOP_SUMS = 6


def _label(choice: str) -> str:
    verb, _, rest = choice.partition(" ")
    labels = {"yes": "Yes, refill", "no": "No", "me": "I start", "opponent": "Opponent starts",
              "nothing": "Take nothing", "done": "Lock in (done)", "fold": "Fold"}
    if choice in labels:
        return labels[choice]
    if verb == "take" and rest:
        return f"Take {render(rest)}"
    if verb in ("call", "raise") and rest:
        return f"{verb.capitalize()} {rest}"
    return choice


def _style(choice: str) -> discord.ButtonStyle:
    if choice in ("yes", "me") or choice.startswith(("call", "take")):
        return Style.success
    if choice == "fold":
        return Style.danger
    if choice in ("no", "nothing", "opponent"):
        return Style.secondary
    return Style.primary


def _bet_rows(ctx: PromptContext) -> list[list[Any]]:
    choices = ctx.choices
    raises = [c for c in choices if c.startswith("raise ")]
    buttons = []
    for c in choices:
        label = _label(c)
        if raises and c == raises[-1] and len(raises) > 1:
            label += " (max)"
        buttons.append(ctx.button(c, label, _style(c)))
    calls_folds = [b for b, c in zip(buttons, choices, strict=True) if not c.startswith("raise")]
    raise_buttons = [b for b, c in zip(buttons, choices, strict=True) if c.startswith("raise")]
    return [row for row in (calls_folds, raise_buttons[:5]) if row]


def _private_rows(ctx: PromptContext) -> list[list[Any]]:
    live = ctx.live
    if live is None:  # a stale decision: no menu
        return []
    state = live.state
    seat = int(ctx.prompt["seat"])
    cards = private_card_options(state.pools[seat], state.community or "")  # type: ignore[attr-defined]  # (this game's state; typed BaseModel)
    if len(cards) < 2:
        return []
    options = [(render(c), c) for c in cards]
    return [[OrderedSelect(ctx.match_id, ctx.key, 2, options,
                           placeholder="Card 1 (revealed first)…")]]


def components(ctx: PromptContext) -> list[list[Any]] | None:
    kind = ctx.prompt.get("kind")
    if kind == "bet":
        return _bet_rows(ctx)
    if kind == "private_cards":
        return _private_rows(ctx)
    return None


# --- the sum helper ----------------------------------------------------------------------------
def sum_helper(offered: Sequence[str]) -> str:
    nums = [number(c) for c in offered]
    groups = []
    for n in sorted(set(nums), reverse=True):
        cards = " ".join(render(c) for c in offered if number(c) == n)
        groups.append(f"**{n}**: {cards}")
    lines = [f"🧮 **Sum helper**: {len(offered)} cards, total {sum(nums)}.",
             " · ".join(groups)]
    takes = best_takes(nums)
    if not takes:
        lines.append("No two piles of equal sum exist: only `nothing` is possible.")
        return "\n".join(lines)
    ranked = sorted(takes.items(), key=lambda kv: (-kv[1][0], kv[0]))[:TOP_SUMS]
    lines.append("Best pile sums (most cards you can take, every pile but the set-aside one): "
                 + " · ".join(f"sum {s} → {t} cards ({k} piles)" for s, (t, k) in ranked) + ".")
    sums = sorted(takes)
    lines.append(f"Every pile sum that allows a division: {_ranges(sums)}.")
    return "\n".join(lines)


def _ranges(values: Sequence[int]) -> str:
    parts: list[str] = []
    start = prev = values[0]
    for v in [*values[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ", ".join(parts)


def note(ctx: PromptContext) -> str | None:
    kind = ctx.prompt.get("kind")
    live = ctx.live
    if kind == "division" and live is not None and live.state.refill is not None:  # type: ignore[attr-defined]  # (this game's state; typed BaseModel)
        return sum_helper(live.state.refill.offered)  # type: ignore[attr-defined]  # (this game's state)
    if kind == "private_cards" and live is not None:
        return ("Pick the card revealed first in the menu, then the second in the menu that "
                "only you see; or type both, first card first (e.g. `R7 B3`).")
    if kind == "bet":
        return "Other raises: type `raise N` (N chips on top of the call)."
    return None


HOOKS = GameHooks(
    slug="devils-deal",
    summary=(
        "**Devil's Deal** in one breath: refill your pool by dividing random cards into piles "
        "of equal sum, then play 3-card poker with two betting phases; the first player who "
        "cannot go on loses. Public decisions (refills, takes, bets) go in the game room, your "
        "private cards in your table channel."
    ),
    label=_label,
    style=_style,
    components=components,
    note=note,
)
