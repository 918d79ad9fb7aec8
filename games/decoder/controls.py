"""How Decoder's decisions are presented with buttons and menus (`contract.Controls`).

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
- Both time banks go under every message of the play (`Game.status`).
"""

from __future__ import annotations

from games.core.contract import Controls
from games.core.controls import Asked, Button, Control, Menu, Option, Private, Several, Tone
from games.decoder.letters import HAND_SIZE
from games.decoder.views import DecoderView

LABELS = {"ready": "Ready", "no swap": "No swap", "pass": "Pass", "insurance": "Insurance",
          "unexpected sabotage": "Unexpected Sabotage", "keep all": "Keep all six",
          "none": "No extra tiles: go on"}


def label(choice: str) -> str:
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


def tone(choice: str) -> Tone:
    if choice == "ready":
        return Tone.SUCCESS
    if choice in ("no swap", "pass"):
        return Tone.SECONDARY
    if "unexpected sabotage" in choice or choice.startswith("sabotage"):
        return Tone.DANGER
    return Tone.PRIMARY


def rows(asked: Asked) -> list[list[Control]] | None:
    choices = asked.choices
    if asked.kind == "turn":
        if len(choices) == 1:
            return [[Button(choices[0], label(choices[0]), Tone.SECONDARY)]]
        return [[Menu(tuple(label(c) for c in choices), placeholder="Or restore with a tank…")]]
    if asked.kind == "give_up":
        return [[Private("give up", "Give up a letter…"),
                 *(Button(c, label(c), Tone.SUCCESS) for c in choices)]]
    if asked.kind == "hand" and not choices and isinstance(asked.view, DecoderView):
        tiles = [*asked.view.initial_tiles, *asked.view.extra_tiles]  # (the seat's own view)
        if HAND_SIZE < len(tiles) <= 25:
            return [[Several("keep", tuple((t, t) for t in tiles), count=HAND_SIZE,
                             placeholder=f"Keep {HAND_SIZE} letters…")]]
    return None


def private_options(asked: Asked) -> list[Option]:
    """The clicker's own letters, to give one up."""
    if asked.kind == "give_up" and isinstance(asked.view, DecoderView):
        return [(letter, letter) for letter in asked.view.hand]
    return []


def note(asked: Asked) -> str | None:
    if asked.kind == "turn" and isinstance(asked.view, DecoderView):
        unused = [t.name for t in asked.view.players[asked.seat].tanks if not t.used]
        if len(unused) == 1:
            return f"Type `use {unused[0]} restore` (or `restore`), or press the button."
        tank = unused[0]
        short = tank.split()[0].lower()
        return ("Type one of these in this room (tank names may be shortened, e.g. "
                f"`{short}`):\n`use {tank} ask <WORD> not <ANY|ODD|TWO>` (e.g. "
                f"`use {tank} ask DECODER not ANY`)\n`use {tank} guess <LETTER>` (e.g. "
                f"`use {tank} guess Q`)\n`use {tank} restore`")
    if asked.kind == "guess_total":
        return "Type `guess <number>` (the total recharge units of the restored tanks)."
    if asked.kind == "tune":
        return ("Type `set <puzzle> to <seconds>` (e.g. `set Cipher Wheel to 150`; from the official "
                "time up to 300 s, as often as you like until the hosts lock setup). Ready tells "
                "the hosts you are done; it locks nothing.")
    return None


CONTROLS = Controls(
    summary=(
        "**Decoder** in one breath: earn letter tiles from your puzzle times, then take turns "
        "asking for words; guess and sabotage to empty the opponent's tanks. Setup choices go "
        "in your table channel; hosts lock setup with `/match lock`."
    ),
    label=label,
    tone=tone,
    max_buttons=10,
    short_label=32,
    rows=rows,
    note=note,
    private_options=private_options,
)
