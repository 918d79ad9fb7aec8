"""Legality: whether a seat may make a command now, with the reason in a player's words.

`KIND_COMMANDS` says which command answers which decision; the contract matches the kind
before the command's check here runs.
"""

from __future__ import annotations

from games.core.contract import CheckHandler, Command, IllegalMove
from games.rps_poker import text
from games.rps_poker.cards import CARDS, render
from games.rps_poker.commands import Keep, Play
from games.rps_poker.flow import options
from games.rps_poker.state import Phase, RpsState

KIND_COMMANDS: dict[str, tuple[type[Command], ...]] = {"draft_pick": (Keep,), "play": (Play,)}
#: The decision kind of each phase.
PHASE_KIND = {Phase.DRAFT: "draft_pick", Phase.MAIN: "play"}


def pending_kinds(state: RpsState, seat: int) -> set[str]:
    """The seat's decision kind this phase, until its (final) choice is made."""
    kind = PHASE_KIND.get(state.phase)
    return {kind} if kind is not None and state.pending[seat] is None else set()


def refusal(state: RpsState, seat: int, command: Command) -> str:
    """Why a choice out of its decision is refused: the other phase's, or a second one."""
    if state.phase == Phase.DRAFT and isinstance(command, Play):
        return ("It is the draft: keep one of your two cards "
                f"({text.cards_phrase(state.offers[seat])}).")
    if state.phase == Phase.MAIN and isinstance(command, Keep):
        return "The draft is over: play a card from your hand."
    chosen = state.pending[seat]
    assert chosen is not None, "a choice of this phase is refused only once one is made"
    return f"You already chose {render(chosen)} this round; the first choice is final."


def check_card(state: RpsState, seat: int, c: Keep | Play) -> None:
    opts = options(state, seat)
    if c.card not in opts:
        name = render(c.card) if c.card in CARDS else c.card
        if state.phase == Phase.DRAFT:
            raise IllegalMove(f"{name} is not one of your two cards: keep "
                              f"{render(opts[0])} or {render(opts[1])}.")
        raise IllegalMove(f"{name} is not in your hand: play one of "
                          f"{', '.join(render(x) for x in opts)}.")


CHECKS: dict[str, CheckHandler] = {"keep": check_card, "play": check_card}
