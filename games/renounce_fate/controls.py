"""How Renounce Fate's decisions are presented with buttons and menus (`contract.Controls`).

- Starter (game room): `I start` / `Opponent starts` buttons.
- Bets (game room): Call N (green), Raise N for the game's few amounts (the largest marked
  max), Fold (red); any other amount is typed (`raise 4`).
- Renouncing (each player's table channel): a menu listing only the legal picks (`🟨3 from
  set 2`), under the prompt that shows the three sets; typing works too (`renounce Y3 set
  2`, `Y3 2`, `🟨3 in set 2`).
"""

from __future__ import annotations

from games.core.contract import Controls
from games.core.controls import Asked, Control, Menu, Tone, bet_rows
from games.renounce_fate.cards import render

LABELS = {"me": "I start", "opponent": "Opponent starts", "fold": "Fold"}


def label(choice: str) -> str:
    verb, _, rest = choice.partition(" ")
    if choice in LABELS:
        return LABELS[choice]
    if verb == "renounce":  # "renounce Y3 set 2"
        card, _, set_no = rest.partition(" set ")
        return f"{render(card)} from set {set_no}"
    if verb in ("call", "raise") and rest:
        return f"{verb.capitalize()} {rest}"
    return choice


def tone(choice: str) -> Tone:
    if choice == "me" or choice.startswith("call"):
        return Tone.SUCCESS
    if choice == "fold":
        return Tone.DANGER
    if choice == "opponent":
        return Tone.SECONDARY
    return Tone.PRIMARY


def rows(asked: Asked) -> list[list[Control]] | None:
    if asked.kind == "bet":
        return bet_rows(asked.choices, label, tone)
    if asked.kind == "renounce" and asked.choices:
        return [[Menu(tuple(label(c) for c in asked.choices),
                      placeholder="Renounce a fate card…")]]
    return None


def note(asked: Asked) -> str | None:
    if asked.kind == "bet":
        return "Other raises: type `raise N` (N chips on top of the call)."
    if asked.kind == "renounce":
        return ("Pick the fate card to renounce in the menu (only you see your pick until both "
                "are in), or type it with its set: `renounce Y3 set 2`.")
    return None


CONTROLS = Controls(
    summary=(
        "**Renounce Fate** in one breath: two private cards each, three public sets of fate "
        "cards; both players secretly renounce fate cards until each set holds at most one, "
        "and those become the community cards. Two capped betting rounds, then the best hand "
        "wins the pot. Bets go in the game room, renounce picks in your table channel."
    ),
    label=label,
    tone=tone,
    rows=rows,
    note=note,
)
