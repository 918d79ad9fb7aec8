"""How Devil's Deal's decisions are presented with buttons and menus (`contract.Controls`).

- Refill offer, starter, take: the game's choices as buttons (yes green, no grey).
- Division: a sum helper under the prompt: the 12 cards grouped by number with their total,
  and for each pile sum the most cards a division can take (every pile but the set-aside
  one), best first; the division itself is typed.
- Private cards (table channel): a menu of the player's legal cards (distinct pool cards
  other than the community card) for the card revealed first; picking one answers with a
  private menu for the card revealed second; the pair is submitted as `R7 B3` (R7 first).
- Bets: Call N (green), Raise N for the game's few amounts (the largest marked max), Fold
  (red); any other amount is typed (`raise 4`).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.core.contract import Controls
from games.core.controls import Asked, Control, InOrder, Tone, bet_rows
from games.devils_deal.cards import number, render
from games.devils_deal.partition import best_takes
from games.devils_deal.rules import private_card_options
from games.devils_deal.views import DevilsDealView

TOP_SUMS = 6
LABELS = {"yes": "Yes, refill", "no": "No", "me": "I start", "opponent": "Opponent starts",
          "nothing": "Take nothing", "done": "Lock in (done)", "fold": "Fold"}


def label(choice: str) -> str:
    verb, _, rest = choice.partition(" ")
    if choice in LABELS:
        return LABELS[choice]
    if verb == "take" and rest:
        return f"Take {render(rest)}"
    if verb in ("call", "raise") and rest:
        return f"{verb.capitalize()} {rest}"
    return choice


def tone(choice: str) -> Tone:
    if choice in ("yes", "me") or choice.startswith(("call", "take")):
        return Tone.SUCCESS
    if choice == "fold":
        return Tone.DANGER
    if choice in ("no", "nothing", "opponent"):
        return Tone.SECONDARY
    return Tone.PRIMARY


def _private_rows(asked: Asked) -> list[list[Control]]:
    view = asked.view
    if not isinstance(view, DevilsDealView) or view.my_pool is None:  # stale: no menu
        return []
    cards = private_card_options(view.my_pool, view.community or "")
    if len(cards) < 2:
        return []
    return [[InOrder(2, tuple((render(c), c) for c in cards),
                     placeholder="Card 1 (revealed first)…")]]


def rows(asked: Asked) -> list[list[Control]] | None:
    if asked.kind == "bet":
        return bet_rows(asked.choices, label, tone)
    if asked.kind == "private_cards":
        return _private_rows(asked)
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


def note(asked: Asked) -> str | None:
    view = asked.view
    if asked.kind == "division" and isinstance(view, DevilsDealView) and view.offered:
        return sum_helper(view.offered)
    if asked.kind == "private_cards" and view is not None:
        return ("Pick the card revealed first in the menu, then the second in the menu that "
                "only you see; or type both, first card first (e.g. `R7 B3`).")
    if asked.kind == "bet":
        return "Other raises: type `raise N` (N chips on top of the call)."
    return None


CONTROLS = Controls(
    summary=(
        "**Devil's Deal** in one breath: refill your pool by dividing random cards into piles "
        "of equal sum, then play 3-card poker with two betting phases; the first player who "
        "cannot go on loses. Public decisions (refills, takes, bets) go in the game room, your "
        "private cards in your table channel."
    ),
    label=label,
    tone=tone,
    rows=rows,
    note=note,
)
