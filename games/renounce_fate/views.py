"""What each seat (or a spectator) may know: the input of the bots and the console."""

from __future__ import annotations

from pydantic import BaseModel

from games.core import betting
from games.renounce_fate import rules
from games.renounce_fate.state import Phase, RenounceFateState


class BetView(BaseModel):
    betting: int  # 1 or 2
    to_act: int
    bets: list[int]  # chips each put in during this betting round
    to_call: int
    can_call: bool
    min_raise: int | None
    max_raise: int | None
    actions: list[str]  # this betting round so far, e.g. ["raise 2", "raise 1"]


class SetView(BaseModel):
    number: int  # 1..3
    dealt: list[str]
    remaining: list[str]
    discarded: list[str]
    locked: bool
    kept: str | None = None


class StepView(BaseModel):
    picks: list[list[str | int]]  # by seat: [set number, card]
    timed_out: list[bool]
    same: bool


class RenounceFateView(BaseModel):
    """Everything public, plus the seat's own secrets (hand, pending pick)."""

    seat: int | None
    phase: str
    round: int
    starter: int
    chips: list[int]
    ante: int  # this round's ante as scheduled
    ante_paid: int  # what each player put in as the ante
    next_ante: int  # the ante of the next round
    all_in_ante: bool
    in_pot: list[int]  # each player's chips in the pot this round (ante included)
    pot: int
    max_raise: int
    max_in_pot: int
    sets: list[SetView]
    legal_picks: list[list[str | int]]  # [set number, card] that may be renounced now
    steps: list[StepView]  # this round's resolved renounce steps
    picked: list[bool]  # who has picked in the current renounce step
    community: list[str] | None
    hand_size: int | None  # once the community cards are known
    removed_ties: int  # chips that left the match with tied pots
    bet: BetView | None = None
    my_hand: list[str] | None = None
    my_pick: list[str | int] | None = None  # [set number, card] while the step is open
    last_result: str = ""
    log: list[str] = []
    winner: int | None = None
    reason: str = ""


def build_view(state: RenounceFateState, seat: int | None) -> RenounceFateView:
    s = state.settings
    remaining = [list(x.remaining) for x in state.sets]
    renouncing = state.phase == Phase.RENOUNCE
    view = RenounceFateView(
        seat=seat, phase=state.phase.value, round=state.round, starter=state.starter,
        chips=list(state.chips), ante=s.ante(max(state.round, 1)), ante_paid=state.ante,
        next_ante=s.ante(state.round + 1), all_in_ante=state.all_in_ante,
        in_pot=list(state.round_bets), pot=state.pot, max_raise=s.max_raise,
        max_in_pot=s.max_in_pot,
        sets=[SetView(number=i + 1, dealt=list(x.dealt), remaining=list(x.remaining),
                      discarded=list(x.discarded), locked=x.locked, kept=x.kept)
              for i, x in enumerate(state.sets)],
        legal_picks=[[n, c] for n, c in rules.legal_picks(remaining)] if renouncing else [],
        steps=[StepView(picks=[[x.set_no, x.card] for x in st.picks],
                        timed_out=[x.timed_out for x in st.picks], same=st.same)
               for st in state.steps],
        picked=[x is not None for x in state.picks] if renouncing else [False, False],
        community=list(state.community) if state.community is not None else None,
        hand_size=(rules.hand_size(len(state.community)) if state.community else None),
        removed_ties=state.removed_ties, last_result=state.last_result, log=list(state.log),
        winner=state.winner, reason=state.reason,
    )
    if state.phase == Phase.BETTING and state.betting is not None and not state.betting.closed:
        ph = state.betting
        opts = betting.options(ph, state.chips, rules.limits(s))
        view.bet = BetView(
            betting=state.betting_no, to_act=ph.to_act, bets=list(ph.bets), to_call=ph.to_call,
            can_call=opts.can_call, min_raise=opts.min_raise, max_raise=opts.max_raise,
            actions=[f"raise {r.amount}" if r.action == "raise" else r.action
                     for r in ph.history])
    if seat is not None:
        if state.hands[seat]:
            view.my_hand = list(state.hands[seat])
        pick = state.picks[seat] if renouncing else None
        if pick is not None:
            view.my_pick = [pick.set_no, pick.card]
    return view
