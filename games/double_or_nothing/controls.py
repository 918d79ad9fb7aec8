"""How Double or Nothing's decisions are presented with buttons and menus
(`contract.Controls`).

- Move (game room): buttons for the public actions (Draw N, Draw a joker, Double) and a
  "Play a set…" button that answers the clicker privately with a menu of the sets of their
  own hand that beat the table (labelled with their positions, which only they see);
  picking one plays it exactly as if `play 5 6 7` had been typed in the room.
- Placement (table channel): a menu of every place in the hand ("3: between 5 and 7"), or
  type `at 3`.
- Which of several identical sets (table channel, asked only when the copies leave different
  hands, never announced in the room): one button per place ("Positions 4-5").
- A proposed double: Accept (green) and Forfeit (red) buttons in the room.
"""

from __future__ import annotations

from games.core.contract import Controls
from games.core.controls import Asked, Button, Control, Menu, Option, Private, Tone
from games.double_or_nothing.rules import plays, render_set
from games.double_or_nothing.text import where
from games.double_or_nothing.views import DoubleOrNothingView

LABELS = {"me": "I start", "opponent": "Opponent starts", "joker": "Draw a joker",
          "double": "Double", "accept": "Accept", "forfeit": "Forfeit"}


def label(choice: str) -> str:
    if choice in LABELS:
        return LABELS[choice]
    verb, _, rest = choice.partition(" ")
    if verb == "draw":
        return f"Draw {rest}"
    if verb == "play":
        return f"Positions {rest.replace('..', '-')}" if ".." in rest else f"Position {rest}"
    if verb == "at":
        return f"Position {rest}"
    return choice


def tone(choice: str) -> Tone:
    if choice in ("accept", "me"):
        return Tone.SUCCESS
    if choice == "forfeit":
        return Tone.DANGER
    if choice == "double":
        return Tone.PRIMARY
    return Tone.SECONDARY


def _move_rows(asked: Asked) -> list[list[Control]]:
    actions: list[Control] = [Button(c, label(c), tone(c)) for c in asked.choices]
    rows: list[list[Control]] = [[Private("play", "Play a set…", Tone.SUCCESS), *actions[:4]]]
    if actions[4:]:
        rows.append(actions[4:9])
    return rows


def _place_rows(asked: Asked) -> list[list[Control]] | None:
    view = asked.view
    if not isinstance(view, DoubleOrNothingView) or view.my_hand is None or not asked.choices:
        return None
    hand = view.my_hand  # (the seat's own view: a placement is asked in its table channel)
    labels = tuple(f"{i + 1}: {where(hand, i)}" for i in range(len(asked.choices)))
    return [[Menu(labels, placeholder="Where does it go?")]]


def rows(asked: Asked) -> list[list[Control]] | None:
    if asked.kind == "move":
        return _move_rows(asked)
    if asked.kind == "place":
        return _place_rows(asked)
    return None


def private_options(asked: Asked) -> list[Option]:
    """The distinct sets of the clicker's hand that beat the table, strongest first."""
    view = asked.view
    if asked.kind != "move" or not isinstance(view, DoubleOrNothingView) or view.my_hand is None:
        return []
    hand = view.my_hand
    found: dict[str, tuple[tuple[int, int, int], list[str]]] = {}
    for start, length, value in plays(hand, view.table_values):
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


def note(asked: Asked) -> str | None:
    if asked.kind == "move":
        return ("Or type it here: `play 5 6 7` (cards in hand order, jokers as `J`), `draw 6`, "
                "`joker`, `double`. Where a drawn card goes is asked in your table channel.")
    if asked.kind == "place":
        return "Or type `at N` (1 = front of your hand)."
    if asked.kind == "position":
        return "Or type the positions, e.g. `play 4..6`."
    return None


CONTROLS = Controls(
    summary=(
        "**Double or Nothing** in one breath: empty a hand you may never reorder by playing "
        "sets of adjacent cards, each stronger than the last; draw from the table or take a "
        "joker when stuck, and raise the stakes with the doubling die. First to 9 bout wins. "
        "Actions in the game room; where a drawn card goes, in your table channel."
    ),
    label=label,
    tone=tone,
    max_buttons=5,
    rows=rows,
    note=note,
    private_options=private_options,
)
