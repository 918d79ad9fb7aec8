"""Legality: whether a seat may make a command now, with the reason in a player's words.

`KIND_COMMANDS` says which command answers which decision; the contract matches the kind
before the command's check here runs. `REFUSALS` holds a command's own words when it comes
out of its decision.
"""

from __future__ import annotations

from games.core import betting
from games.core.contract import CheckHandler, Command, IllegalMove, RefusalHandler
from games.devils_deal import rules, text
from games.devils_deal.commands import (
    Bet,
    ChooseStarter,
    Division,
    LockDivision,
    PrivateCards,
    RefillAnswer,
    Take,
)
from games.devils_deal.state import DevilsDealState

KIND_COMMANDS: dict[str, tuple[type[Command], ...]] = {
    "choose_starter": (ChooseStarter,),
    "refill_offer": (RefillAnswer,),
    "division": (Division, LockDivision),
    "take": (Take,),
    "private_cards": (PrivateCards,),
    "bet": (Bet,),
}


def cannot_afford(state: DevilsDealState, seat: int, c: RefillAnswer) -> str | None:
    """The refusal of a refill asked for out of turn by a player who could not pay for it."""
    cost = state.settings.refill_cost
    if c.refill and state.chips[seat] < cost:
        return (f"You have {state.chips[seat]} chips; a refill costs {cost}, so you cannot "
                f"refill.")
    return None


def check_choose_starter(state: DevilsDealState, seat: int, c: ChooseStarter) -> None:
    if c.starter not in (0, 1):
        raise IllegalMove("The starter must be you or your opponent.")


def check_refill_answer(state: DevilsDealState, seat: int, c: RefillAnswer) -> None:
    """Yes or no: both are open whenever the offer is made."""


def check_division(state: DevilsDealState, seat: int, c: Division) -> None:
    assert state.refill is not None
    res = rules.check_division(state.refill.offered, state.pools[seat], c,
                               state.settings.pool_limit)
    if c.lock and res.missing_discards:
        raise IllegalMove(missing_text(state, seat, res))


def check_lock_division(state: DevilsDealState, seat: int, c: LockDivision) -> None:
    assert state.refill is not None
    if state.refill.division is None:
        raise IllegalMove("You have not posted a valid division yet; post one (or "
                          "'nothing' to take nothing).")
    res = rules.check_division(state.refill.offered, state.pools[seat], state.refill.division,
                               state.settings.pool_limit)
    if res.missing_discards:
        raise IllegalMove(missing_text(state, seat, res))


def missing_text(state: DevilsDealState, seat: int, res: rules.DivisionResult) -> str:
    # Pool sizes are public; the pool itself is not, so no card of it is suggested here.
    total = len(state.pools[seat]) + len(res.taken)
    return (f"You would have {total} cards (limit {state.settings.pool_limit}): discard "
            f"{res.missing_discards} more before locking in: add 'discard' and "
            f"{text.plural(res.missing_discards, 'card')} of your pool or of the cards you "
            f"take (e.g. '| discard R1 G2').")


def check_take(state: DevilsDealState, seat: int, c: Take) -> None:
    rules.check_take(state.set_aside, state.pools[seat], c.card, c.discard,
                     state.settings.pool_limit)


def check_private_cards(state: DevilsDealState, seat: int, c: PrivateCards) -> None:
    rules.check_private(state.pools[seat], state.community or "", c.first, c.second)


def check_bet(state: DevilsDealState, seat: int, c: Bet) -> None:
    assert state.betting is not None
    betting.check_action(state.betting, state.chips, rules.LIMITS, seat, c.action, c.amount)


CHECKS: dict[str, CheckHandler] = {
    "choose_starter": check_choose_starter,
    "refill_answer": check_refill_answer,
    "division": check_division,
    "lock_division": check_lock_division,
    "take": check_take,
    "private_cards": check_private_cards,
    "bet": check_bet,
}

REFUSALS: dict[str, RefusalHandler] = {"refill_answer": cannot_afford}
