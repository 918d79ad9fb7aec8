"""Legality: whether a seat may make a command now, with the reason in a player's words.

`KIND_COMMANDS` says which command answers which decision; the contract matches the kind
before the command's check here runs. `REFUSALS` holds a command's own words when it comes
out of its decision.
"""

from __future__ import annotations

from games.core.contract import CheckHandler, Command, IllegalMove, RefusalHandler
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


def play_in_draft(state: RpsState, seat: int, c: Play) -> str | None:
    """The refusal of a card played during the draft."""
    if state.phase != Phase.DRAFT:
        return None
    return f"It is the draft: keep one of your two cards ({text.cards_phrase(state.offers[seat])})."


def keep_after_draft(state: RpsState, seat: int, c: Keep) -> str | None:
    """The refusal of a card kept once the draft is over."""
    return "The draft is over: play a card from your hand." if state.phase == Phase.MAIN else None


def refusal(state: RpsState, seat: int) -> str:
    """Why a choice of this phase is refused: a second one (the other phase's choice has its
    own words in `REFUSALS`)."""
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
REFUSALS: dict[str, RefusalHandler] = {"play": play_in_draft, "keep": keep_after_draft}
