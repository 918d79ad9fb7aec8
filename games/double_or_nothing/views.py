"""What each seat (or a spectator) may know: the input of the bots and the console."""

from __future__ import annotations

from pydantic import BaseModel

from games.double_or_nothing import rules
from games.double_or_nothing.state import DoubleOrNothingState, Phase
from games.double_or_nothing.text import hand_token


class DoubleOrNothingView(BaseModel):
    """Everything public, plus the seat's own hand (and its pending private choice)."""

    seat: int | None
    phase: str
    bout: int
    target: int
    score: list[int]
    starter: int
    turn: int
    stake: int
    max_stake: int
    may_double: list[bool]  # whether each player may propose a double (on their turn)
    crawford: bool
    hand_sizes: list[int]
    jokers: list[int]  # jokers still in front of each player
    table: list[str]
    table_values: list[int]
    table_kind: str  # "equal", "run" or "" (empty)
    drawable: list[int]  # numbers that may be drawn from the table
    discard: list[str]
    proposer: int | None = None  # while a double is being answered
    placing: str | None = None  # public: the card or joker being placed
    choosing: list[str] = []  # own: the set held twice whose copy the seat is asked about
    log: list[str] = []
    winner: int | None = None
    reason: str = ""
    # The seat's own secrets.
    my_hand: list[str] | None = None
    my_hand_token: str | None = None
    my_options: list[int] = []  # starts of the identical sets to choose from
    my_hand_before: list[str] = []  # the hand before that play (the options' positions)


def build_view(state: DoubleOrNothingState, seat: int | None) -> DoubleOrNothingView:
    s = state.settings
    view = DoubleOrNothingView(
        seat=seat, phase=state.phase.value, bout=state.bout, target=s.target,
        score=list(state.score), starter=state.starter, turn=state.turn, stake=state.stake,
        max_stake=s.max_stake,
        may_double=[rules.may_double(seat=x, stake=state.stake, max_stake=s.max_stake,
                                     last_doubler=state.last_doubler, crawford=state.crawford)
                    for x in (0, 1)],
        crawford=state.crawford, hand_sizes=[len(h) for h in state.hands],
        jokers=list(state.jokers), table=list(state.table),
        table_values=list(state.table_values),
        table_kind=rules.kind_of(state.table_values) if state.table else "",
        drawable=rules.drawable_numbers(state.table, state.table_values),
        discard=list(state.discard),
        proposer=state.turn if state.phase == Phase.DOUBLE else None,
        placing=state.placing, log=list(state.log), winner=state.winner, reason=state.reason,
    )
    if seat is not None and state.phase != Phase.OVER:
        view.my_hand = list(state.hands[seat])
        view.my_hand_token = hand_token(seat, state.hands[seat])
        if state.which == seat:
            view.my_options = list(state.options)
            view.choosing = list(state.option_cards)
            view.my_hand_before = list(state.which_hand)  # what the options' positions refer to
    return view
