"""Built-in players: a random legal one and a planner ("planner").

Both decide from the seat's view only (`DoubleOrNothingView`). The planner measures a hand by
the fewest adjacent sets it splits into (`rules.min_sets`: how many plays it needs at best,
since the order can never change) and:
- plays the set that leaves the fewest sets behind (an emptying play first; then the longest,
  then the weakest, keeping strong sets for later);
- when it cannot beat the table, draws the table card or a joker whose best placement leaves
  the fewest sets (a table card before a joker when they are as good);
- places a drawn card or joker where it leaves the fewest sets;
- proposes a double when it needs clearly fewer plays than the opponent's hand size
  suggests, and forfeits a double only when it is far behind.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pydantic import BaseModel

from games.core.contract import BotFactory, Command, Prompt
from games.double_or_nothing import rules
from games.double_or_nothing.commands import (
    Answer,
    ChooseStarter,
    Double,
    Draw,
    DrawJoker,
    Pass,
    Place,
    Play,
    PlayAt,
)
from games.double_or_nothing.rules import JOKER
from games.double_or_nothing.views import DoubleOrNothingView

CARDS_PER_PLAY = 2.5  # what the planner assumes an opponent sheds per play


# --- random legal play -------------------------------------------------------------------
def random_from_view(view: DoubleOrNothingView, prompt: Prompt, rng: random.Random) -> Command:
    """A random legal command for `prompt`: a random kind of action, then a random one."""
    seat = prompt.seat
    return random_move(prompt, list(view.my_hand or []), view.table_values, view.drawable,
                       view.jokers[seat] > 0, view.may_double[seat], view.my_options, rng)


def random_move(prompt: Prompt, hand: Sequence[str], table_values: Sequence[int],
                drawable: Sequence[int], has_joker: bool, may_double: bool,
                options: Sequence[int], rng: random.Random) -> Command:
    """The random player's choice from the few facts it needs (the engine calls this with
    facts read straight from the state, which is quicker than building a view)."""
    if prompt.kind == "choose_starter":
        return ChooseStarter(starter=rng.randrange(2))
    if prompt.kind == "place":
        return Place(position=rng.randint(0, len(hand)))
    if prompt.kind == "position":
        return PlayAt(start=rng.choice(options))
    if prompt.kind == "double_answer":
        return Answer(accept=rng.random() < 0.5)
    plays = rules.plays(hand, table_values)
    kinds: list[str] = []
    if plays:
        kinds.append("play")
    if drawable:
        kinds.append("draw")
    if has_joker:
        kinds.append("joker")
    if may_double:
        kinds.append("double")
    kind = rng.choice(kinds)
    if kind == "play":
        start, length, _ = rng.choice(plays)
        return Play(cards=tuple(hand[start:start + length]))
    if kind == "draw":
        return Draw(number=rng.choice(drawable))
    if kind == "joker":
        return DrawJoker()
    if kind == "double":
        return Double()
    return Pass()


class RandomBot:
    name = "random"

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, DoubleOrNothingView)
        return random_from_view(view, prompt, rng)


# --- the planner -------------------------------------------------------------------------
def best_place(hand: Sequence[str], card: str) -> tuple[int, int]:
    """(sets left, position) of the best place for `card` in `hand`."""
    return min((rules.min_sets([*hand[:i], card, *hand[i:]]), i) for i in range(len(hand) + 1))


def _without(hand: Sequence[str], start: int, length: int) -> list[str]:
    return [*hand[:start], *hand[start + length:]]


def opponent_plays(view: DoubleOrNothingView, seat: int) -> float:
    return view.hand_sizes[1 - seat] / CARDS_PER_PLAY


class PlannerBot:
    name = "planner"

    def choose(self, view: BaseModel, prompt: Prompt, rng: random.Random) -> Command:
        assert isinstance(view, DoubleOrNothingView)
        seat = prompt.seat
        hand = list(view.my_hand or [])
        if prompt.kind == "choose_starter":
            return ChooseStarter(starter=seat)
        if prompt.kind == "place":
            return Place(position=best_place(hand, view.placing or JOKER)[1])
        if prompt.kind == "position":
            size, before = len(view.choosing), list(view.my_hand_before)
            return PlayAt(start=min(view.my_options,
                                    key=lambda s: (rules.min_sets(_without(before, s, size)), s)))
        if prompt.kind == "double_answer":
            behind = rules.min_sets(hand) - opponent_plays(view, seat)
            return Answer(accept=behind <= 2.5)
        return self._move(view, prompt, hand)

    def _move(self, view: DoubleOrNothingView, prompt: Prompt, hand: list[str]) -> Command:
        seat = prompt.seat
        need = rules.min_sets(hand)
        if view.may_double[seat] and need + 1.5 < opponent_plays(view, seat):
            return Double()
        plays = rules.plays(hand, view.table_values)
        if plays:
            def score(play: tuple[int, int, rules.SetValue]) -> tuple[int, int, tuple[int, int, int]]:
                start, length, value = play
                return (rules.min_sets(_without(hand, start, length)), -length, value.key)
            start, length, _ = min(plays, key=score)
            return Play(cards=tuple(hand[start:start + length]))
        options: list[tuple[int, int, Command]] = []
        for number in view.drawable:
            options.append((best_place(hand, str(number))[0], 0, Draw(number=number)))
        if view.jokers[seat]:
            options.append((best_place(hand, JOKER)[0], 1, DrawJoker()))
        if options:
            return min(options, key=lambda o: (o[0], o[1]))[2]
        if view.may_double[seat]:
            return Double()
        return Pass()


BOTS: dict[str, BotFactory] = {"planner": PlannerBot, "random": RandomBot}
