"""A heads-up betting phase (call / raise / fold) with configurable caps.

The games keep each player's chips behind ("stacks", a list of two ints) in their own state;
a `BettingPhase` (a pydantic model, so it lives inside the game state) records what each
player has put in during this phase, whose turn it is, and how it ended. The functions here
check and apply actions, moving chips from the caller's `stacks` list into the phase.

Rules every variant shares:
- Players alternate, starting with the phase's leader.
- "call" matches the opponent's bet and ends the phase. "raise N" matches the opponent's bet
  and adds N more; the turn passes. "fold" ends the phase (and usually the hand).
- There is no check, except where `BettingLimits` allows the opener (or a capped opener) to
  call for 0.

What differs is in `BettingLimits`: the smallest and largest raise, whether a raise is capped
by the opponent's and/or the raiser's remaining chips after matching, a cap on each
player's total in the pot, and the opener's options. `start_phase` skips the whole phase
(nobody acts, nobody can fold) when a player starts it with no chips, as Devil's Deal and
Renounce Fate both require.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from games.core import parsing
from games.core.contract import IllegalMove, ParseError

Action = Literal["call", "raise", "fold"]


class BettingLimits(BaseModel):
    """The caps of one game's betting."""

    model_config = ConfigDict(frozen=True)

    min_raise: int = 1
    max_raise: int | None = None  # largest raise on top of the call (None: no fixed cap)
    cap_by_opponent: bool = True  # a raise is at most the opponent's chips left behind
    cap_by_own: bool = True  # ... and at most the raiser's chips left after matching
    max_total: int | None = None  # most chips one player may have in the pot (with `committed`)
    opener_may_call: bool = False  # the first action of a phase may be a call for 0 (a check)
    capped_opener_may_call: bool = False  # ... only when the opener cannot raise at all


class BetRecord(BaseModel):
    """One action taken in a phase."""

    model_config = ConfigDict(frozen=True)

    seat: int
    action: Action
    amount: int = 0  # the raise on top of the call (0 for call and fold)
    paid: int = 0  # chips moved into the pot by this action


class BettingPhase(BaseModel):
    """The state of one betting phase."""

    leader: int
    to_act: int
    bets: list[int] = Field(default_factory=lambda: [0, 0])  # put in during this phase
    committed: list[int] = Field(default_factory=lambda: [0, 0])  # in the pot before it
    history: list[BetRecord] = Field(default_factory=list)
    closed: bool = False
    skipped: bool = False  # ended at once because a player had no chips
    folder: int | None = None

    @property
    def to_call(self) -> int:
        """What the player to act must add to match the opponent."""
        return self.bets[1 - self.to_act] - self.bets[self.to_act]


@dataclass(frozen=True)
class BetOptions:
    """What the player to act may do."""

    seat: int
    can_call: bool
    call_amount: int
    can_fold: bool
    min_raise: int | None  # None: raising is not possible
    max_raise: int | None

    @property
    def can_raise(self) -> bool:
        return self.min_raise is not None


def start_phase(leader: int, stacks: list[int], committed: tuple[int, int] = (0, 0)) -> BettingPhase:
    """A new phase led by `leader`; closed and skipped at once if either player has 0 chips."""
    phase = BettingPhase(leader=leader, to_act=leader, committed=list(committed))
    if min(stacks) <= 0:
        phase.closed = True
        phase.skipped = True
    return phase


def raise_cap(phase: BettingPhase, stacks: list[int], limits: BettingLimits) -> int:
    """The largest raise the player to act may make now (0 or less: none)."""
    me, opp = phase.to_act, 1 - phase.to_act
    to_call = phase.to_call
    caps: list[int] = [stacks[me] - to_call]  # chips are never borrowed
    if limits.cap_by_opponent:
        caps.append(stacks[opp])
    if limits.max_raise is not None:
        caps.append(limits.max_raise)
    if limits.max_total is not None:
        caps.append(limits.max_total - phase.committed[me] - phase.bets[opp])
    return min(caps)


def options(phase: BettingPhase, stacks: list[int], limits: BettingLimits) -> BetOptions:
    """The legal actions of the player to act."""
    me = phase.to_act
    cap = raise_cap(phase, stacks, limits)
    can_raise = cap >= limits.min_raise
    opening = not phase.history
    can_call = (not opening or limits.opener_may_call
                or (limits.capped_opener_may_call and not can_raise))
    return BetOptions(
        seat=me,
        can_call=can_call and phase.to_call <= stacks[me],
        call_amount=phase.to_call,
        can_fold=True,
        min_raise=limits.min_raise if can_raise else None,
        max_raise=cap if can_raise else None,
    )


def check_action(phase: BettingPhase, stacks: list[int], limits: BettingLimits, seat: int,
                 action: Action, amount: int = 0) -> None:
    """Raise IllegalMove (with what is allowed) unless `seat` may take `action` now."""
    if phase.closed:
        raise IllegalMove("This betting phase is over.")
    if seat != phase.to_act:
        raise IllegalMove("It is not your turn to bet.")
    opts = options(phase, stacks, limits)
    allowed = describe(opts)
    if action == "call" and not opts.can_call:
        if not phase.history:
            raise IllegalMove(f"You open this betting phase, so there is nothing to call: {allowed}.")
        raise IllegalMove(f"You cannot call now: {allowed}.")
    if action == "raise":
        if not opts.can_raise:
            raise IllegalMove(f"You cannot raise now: {allowed}.")
        assert opts.min_raise is not None and opts.max_raise is not None
        if amount < opts.min_raise:
            raise IllegalMove(f"A raise must be at least {opts.min_raise}: {allowed}.")
        if amount > opts.max_raise:
            raise IllegalMove(f"{_cap_reason(phase, stacks, limits, opts.max_raise)} {allowed}.")


def _cap_reason(phase: BettingPhase, stacks: list[int], limits: BettingLimits, cap: int) -> str:
    me, opp = phase.to_act, 1 - phase.to_act
    own = stacks[me] - phase.to_call
    parts = [f"after calling {phase.to_call} you would have {own} chips left"
             if phase.to_call else f"you have {own} chips"]
    if limits.cap_by_opponent:
        parts.append(f"your opponent has {stacks[opp]}")
    return f"You can raise at most {cap} ({', '.join(parts)})."


def describe(opts: BetOptions) -> str:
    """The legal actions in words: "call 2, raise 1 to 5, or fold"."""
    parts: list[str] = []
    if opts.can_call:
        parts.append(f"call {opts.call_amount}")
    if opts.can_raise:
        if opts.min_raise == opts.max_raise:
            parts.append(f"raise {opts.min_raise}")
        else:
            parts.append(f"raise {opts.min_raise} to {opts.max_raise}")
    if opts.can_fold:
        parts.append("fold")
    if len(parts) == 1:
        return f"you can only {parts[0]}"
    return "you can " + ", ".join(parts[:-1]) + " or " + parts[-1]


def apply_action(phase: BettingPhase, stacks: list[int], seat: int, action: Action,
                 amount: int = 0) -> BetRecord:
    """Apply a checked action: move chips from `stacks[seat]` into the phase."""
    opp = 1 - seat
    if action == "fold":
        record = BetRecord(seat=seat, action="fold")
        phase.folder = seat
        phase.closed = True
    else:
        paid = phase.bets[opp] - phase.bets[seat] + (amount if action == "raise" else 0)
        stacks[seat] -= paid
        phase.bets[seat] += paid
        record = BetRecord(seat=seat, action=action,
                           amount=amount if action == "raise" else 0, paid=paid)
        if action == "call":
            phase.closed = True
    phase.history.append(record)
    if not phase.closed:
        phase.to_act = opp
    return record


def read_bet(text: str, words: Mapping[str, Sequence[str]], phase: BettingPhase | None,
             stacks: list[int], limits: BettingLimits, seat: int,
             usage: str) -> tuple[Action, int]:
    """What a typed bet means, as (action, raise amount), read the same way in every game.

    `words` maps "call", "raise", "fold", "allin" and (where the game has it) "check" to their
    synonyms. A typed amount is never changed (house ruling): "call 9" when 5 is owed, "check"
    facing a raise and a negative raise are refused with what is owed and allowed ("5 to call:
    type call, raise N or fold"); "call" alone pays what is owed. Amounts are checked against
    the phase only on the seat's own turn (otherwise `check_action` says whose turn it is)."""
    word = parsing.keyword(text, words)
    if word is None:
        raise ParseError(usage)
    nums = parsing.integers(text)
    ours = phase is not None and not phase.closed and phase.to_act == seat
    opts = options(phase, stacks, limits) if ours and phase is not None else None
    if word == "allin":
        if opts is None:
            raise ParseError(usage)
        return "raise", opts.max_raise or 0
    if word == "raise":
        if len(nums) != 1:
            raise ParseError("Give one amount to raise by (on top of the call), e.g. 'raise 2'."
                             if nums else "How much do you raise (on top of the call)? "
                             "e.g. 'raise 2'.")
        if nums[0] < 1:
            allowed = f" ({describe(opts)})" if opts is not None else ""
            raise ParseError(f"A raise is a whole number of chips, at least 1{allowed}: "
                             f"e.g. 'raise 2'.")
        return "raise", nums[0]
    if word == "fold":
        if nums:
            raise ParseError(f"A fold takes no amount. {usage}")
        return "fold", 0
    if len(nums) > 1 or (word == "check" and nums):
        raise ParseError(usage)
    typed = nums[0] if nums else (0 if word == "check" else None)
    if opts is not None and opts.can_call and typed is not None and typed != opts.call_amount:
        owed = f"{opts.call_amount} to call" if opts.call_amount else "Nothing to call (a call is 0)"
        raise ParseError(f"{owed}: type call, raise N or fold ({describe(opts)}).")
    return "call", 0  # a call that is not allowed at all is `check_action`'s to refuse
