"""Legality: whether a seat may make a command now, with the reason in a player's words.

`KIND_COMMANDS` says which command answers which decision; the contract matches the kind
before the command's check here runs. A host's bout award answers no decision.
"""

from __future__ import annotations

from games.core.contract import CheckHandler, Command, IllegalMove
from games.double_or_nothing import flow, grammar, rules
from games.double_or_nothing.commands import (
    Answer,
    AwardBout,
    ChooseStarter,
    Double,
    Draw,
    DrawJoker,
    Pass,
    Place,
    Play,
    PlayAt,
)
from games.double_or_nothing.rules import JOKER, render_set
from games.double_or_nothing.state import DoubleOrNothingState
from games.double_or_nothing.text import plural, table_text

KIND_COMMANDS: dict[str, tuple[type[Command], ...]] = {
    "choose_starter": (ChooseStarter,),
    "move": (Play, Draw, DrawJoker, Double, Pass),
    "place": (Place,),
    "position": (PlayAt,),
    "double_answer": (Answer,),
}

_WAITING = {"choose_starter": "the choice of the first player", "move": "a move",
            "place": "a card to be placed", "position": "a choice of position",
            "double_answer": "an answer to a double"}


def waiting_text(state: DoubleOrNothingState) -> str:
    """The refusal of a move by a seat with no decision pending: what is awaited."""
    now = flow.pending(state)
    what = _WAITING[now[1]] if now is not None else "nothing"
    return f"It is not your turn (waiting for {what})."


def check_choose_starter(state: DoubleOrNothingState, seat: int, c: ChooseStarter) -> None:
    if c.starter not in (0, 1):
        raise IllegalMove("The first player must be you or your opponent.")


def check_play(state: DoubleOrNothingState, seat: int, c: Play) -> None:
    cards = list(c.cards)
    hand = state.hands[seat]
    if not cards:
        raise IllegalMove("Name the cards you play, in hand order: e.g. 'play 5 6 7'.")
    if any(x != JOKER and not (x.isascii() and x.isdigit() and 1 <= int(x) <= 10)
           for x in cards):
        raise IllegalMove("Cards are 1 to 10 and J (joker).")
    shown = render_set(cards)
    if len(cards) > len(hand):
        raise IllegalMove(f"You have only {plural(len(hand), 'card')}.")
    found = rules.windows(hand, cards)
    if not found:
        raise IllegalMove(f"You do not hold {shown} side by side in your hand. Name adjacent "
                          f"cards in hand order (jokers as J); your hand is in your table "
                          f"channel.")
    value = rules.evaluate(cards)
    if value is None:
        raise IllegalMove(f"{shown} is not a set: a set is equal cards (5-5-5) or consecutive "
                          f"numbers going up or down in hand order (1-2-3 or 3-2-1, not "
                          f"2-3-1).")
    if not rules.beats(value, state.table_values):
        raise IllegalMove(
            f"{shown} does not beat the table's {render_set(state.table, state.table_values)}:"
            f" play more cards, or as many equal cards against a run, or the same kind with "
            f"higher numbers.")


def check_play_at(state: DoubleOrNothingState, seat: int, c: PlayAt) -> None:
    if c.start not in state.options:
        n = len(state.option_cards)
        listed = " or ".join(f"{a + 1}..{a + n}" for a in state.options)
        raise IllegalMove(f"{render_set(state.option_cards)} is at positions {listed} of "
                          f"your hand: choose one of those.")


def check_draw(state: DoubleOrNothingState, seat: int, c: Draw) -> None:
    if not state.table:
        raise IllegalMove("The table is empty: there is nothing to draw. Play any set.")
    numbers = rules.drawable_numbers(state.table, state.table_values)
    if c.number not in numbers:
        allowed = " or ".join(str(n) for n in numbers)
        raise IllegalMove(
            f"You cannot draw a {c.number} from "
            f"{table_text(state.table, state.table_values)}: "
            + (f"you may draw {allowed} (what is left must still be a set, and played "
               f"jokers stay)." if numbers else "no card can be drawn from it (played "
               "jokers stay, and what is left must still be a set)."))


def check_draw_joker(state: DoubleOrNothingState, seat: int, c: DrawJoker) -> None:
    if state.jokers[seat] <= 0:
        raise IllegalMove("You have no joker left in front of you this bout.")


def check_place(state: DoubleOrNothingState, seat: int, c: Place) -> None:
    size = len(state.hands[seat])
    if not 0 <= c.position <= size:
        raise IllegalMove(f"Choose a position from 1 (front) to {size + 1} (end).")


def check_double(state: DoubleOrNothingState, seat: int, c: Double) -> None:
    if state.crawford:
        raise IllegalMove("This is a Crawford bout: the doubling die cannot be used.")
    if state.last_doubler == seat:
        raise IllegalMove("You made the last accepted double: only your opponent may propose "
                          "the next one.")
    if state.stake * 2 > state.settings.max_stake:
        raise IllegalMove(f"The stake is {state.stake}: it cannot go over "
                          f"{state.settings.max_stake}.")


def check_answer(state: DoubleOrNothingState, seat: int, c: Answer) -> None:
    """Accept or forfeit: both are open to the player asked."""


def check_pass(state: DoubleOrNothingState, seat: int, c: Pass) -> None:
    raise IllegalMove("There is no pass to choose: the bot passes for a player only when "
                      "they can neither play, draw a card, draw a joker nor double. "
                      + grammar.usage(flow.pending_kinds(state, seat), state))


def check_award_bout(state: DoubleOrNothingState, seat: int, c: AwardBout) -> None:
    if not flow.bout_running(state):
        raise IllegalMove("No bout is running: award the match instead.")


CHECKS: dict[str, CheckHandler] = {
    "choose_starter": check_choose_starter,
    "play": check_play,
    "play_at": check_play_at,
    "draw": check_draw,
    "draw_joker": check_draw_joker,
    "place": check_place,
    "double": check_double,
    "answer": check_answer,
    "pass": check_pass,
    "award_bout": check_award_bout,
}
