"""Legality: whether a seat may make a command now, with the reason in a player's words.

`KIND_COMMANDS` says which command answers which decision; the contract matches the kind
before the command's check here runs. `REFUSALS` holds a command's own words when it comes
out of its decision.
"""

from __future__ import annotations

from games.core import betting
from games.core.contract import CheckHandler, Command, IllegalMove, RefusalHandler
from games.renounce_fate import flow, rules, text
from games.renounce_fate.cards import render, render_all
from games.renounce_fate.commands import Bet, ChooseStarter, Renounce
from games.renounce_fate.state import Phase, RenounceFateState

KIND_COMMANDS: dict[str, tuple[type[Command], ...]] = {
    "choose_starter": (ChooseStarter,),
    "bet": (Bet,),
    "renounce": (Renounce,),
}


def already_picked(state: RenounceFateState, seat: int, c: Renounce) -> str | None:
    """The refusal of a second pick in one renounce step (the first pick is final)."""
    mine = state.picks[seat] if state.phase == Phase.RENOUNCE else None
    if mine is None:
        return None
    return (f"You already picked {text.pick_text(mine.set_no, mine.card)} in this step; the "
            f"first pick is final.")


def check_choose_starter(state: RenounceFateState, seat: int, c: ChooseStarter) -> None:
    if c.starter not in (0, 1):
        raise IllegalMove("The starter must be you or your opponent.")


def check_bet(state: RenounceFateState, seat: int, c: Bet) -> None:
    assert state.betting is not None
    betting.check_action(state.betting, state.chips, rules.limits(state.settings), seat,
                         c.action, c.amount)


def check_renounce(state: RenounceFateState, seat: int, c: Renounce) -> None:
    check_pick(state, c.set_no, c.card)


def check_pick(state: RenounceFateState, set_no: int, card: str) -> None:
    """Raise IllegalMove unless `card` of set `set_no` may be renounced now."""
    remaining = flow.remaining(state)
    open_sets = [i + 1 for i, s in enumerate(remaining) if len(s) > 1]
    where = f"open sets: {', '.join(str(n) for n in open_sets)}"
    if not 1 <= set_no <= len(remaining):
        raise IllegalMove(f"There is no set {set_no}: the sets are 1, 2 and 3 ({where}).")
    cards = remaining[set_no - 1]
    if len(cards) <= 1:
        raise IllegalMove(f"Set {set_no} is locked ({len(cards)} card{'s' if not cards else ''} "
                          f"left): renounce from a set with more than one card ({where}).")
    if card not in cards:
        raise IllegalMove(f"{render(card)} is not in set {set_no}, which holds "
                          f"{render_all(cards)}.")


CHECKS: dict[str, CheckHandler] = {
    "choose_starter": check_choose_starter,
    "bet": check_bet,
    "renounce": check_renounce,
}

REFUSALS: dict[str, RefusalHandler] = {"renounce": already_picked}
