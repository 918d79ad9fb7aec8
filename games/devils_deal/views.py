"""What each seat (or a spectator) may know: the input of the bots and the console."""

from __future__ import annotations

from pydantic import BaseModel

from games.core import betting
from games.devils_deal import rules
from games.devils_deal.state import DevilsDealState, Phase
from games.devils_deal.text import pair_token


class BetView(BaseModel):
    phase: int  # 1 or 2
    to_act: int
    bets: list[int]  # chips each put in during this phase
    to_call: int
    can_call: bool
    min_raise: int | None
    max_raise: int | None
    actions: list[str]  # this phase so far, e.g. ["raise 2", "raise 1"]


class DivisionView(BaseModel):
    piles: list[list[str]]
    aside: int | None
    discards: list[str]


class DevilsDealView(BaseModel):
    """Everything public, plus the seat's own secrets (pool, private cards)."""

    seat: int | None
    phase: str
    round: int
    starter: int
    chips: list[int]
    pool_sizes: list[int]
    pool_limit: int
    refill_cost: int
    ante: int
    fold_penalty: int
    # Public record of each pool: the cards it may hold. It can hold more cards than the pool
    # when a fold left private cards unrevealed (`unseen_gone` of them are no longer there).
    possible_pools: list[list[str]]
    unseen_gone: list[int]
    my_pool: list[str] | None = None
    my_private: list[str] | None = None  # [first, second]
    my_private_pair: str | None = None  # "seat0:R7>B3"
    my_past_pairs: list[str] = []
    offer_seat: int | None = None
    refiller: int | None = None
    offered: list[str] = []
    division: DivisionView | None = None  # the refiller's last valid division (public)
    set_aside: list[str] = []
    community: str | None = None
    revealed: list[list[str]] = [[], []]  # private cards revealed so far this round
    ante_pot: int = 0
    round_bets: list[int] = [0, 0]
    pot: int = 0
    bet: BetView | None = None
    discards: list[list[str]] = [[], []]
    log: list[str] = []
    winner: int | None = None
    reason: str = ""


def build_view(state: DevilsDealState, seat: int | None) -> DevilsDealView:
    s = state.settings
    revealed = [
        list((state.private[x] or [])[: state.revealed[x]]) for x in (0, 1)
    ]
    in_play = [2 if state.private[x] is not None else 0 for x in (0, 1)]
    view = DevilsDealView(
        seat=seat, phase=state.phase.value, round=state.round, starter=state.starter,
        chips=list(state.chips), pool_sizes=[len(x) for x in state.pools],
        pool_limit=s.pool_limit, refill_cost=s.refill_cost, ante=s.ante,
        fold_penalty=s.fold_penalty,
        possible_pools=[sorted(x) for x in state.known_pools],
        unseen_gone=[len(state.known_pools[x]) - len(state.pools[x])
                     - (in_play[x] - len(revealed[x])) for x in (0, 1)],
        offer_seat=state.offer_seat,
        set_aside=list(state.set_aside), community=state.community, revealed=revealed,
        ante_pot=state.ante_pot, round_bets=list(state.round_bets),
        pot=state.ante_pot + sum(state.round_bets),
        discards=[list(x) for x in state.discards], log=list(state.log),
        winner=state.winner, reason=state.reason,
    )
    if state.refill is not None and state.phase in (Phase.DIVISION, Phase.TAKE):
        view.refiller = state.refill.refiller
        view.offered = list(state.refill.offered)
        d = state.refill.division
        if d is not None:
            view.division = DivisionView(piles=[list(x) for x in d.piles], aside=d.aside,
                                         discards=list(d.discards))
    if state.phase == Phase.BETTING and state.betting is not None:
        ph = state.betting
        opts = betting.options(ph, state.chips, rules.LIMITS)
        view.bet = BetView(
            phase=state.betting_no, to_act=ph.to_act, bets=list(ph.bets), to_call=ph.to_call,
            can_call=opts.can_call, min_raise=opts.min_raise, max_raise=opts.max_raise,
            actions=[f"{r.action} {r.amount}" if r.action == "raise" else r.action
                     for r in ph.history])
    if seat is not None:
        view.my_pool = list(state.pools[seat])
        pair = state.private[seat]
        if pair is not None:
            view.my_private = list(pair)
            view.my_private_pair = pair_token(seat, *pair)
        view.my_past_pairs = list(state.past_private[seat])
    return view
