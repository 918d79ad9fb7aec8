"""The decisions pending in Devil's Deal: who decides what now, with the text, clock and
ready-made choices of each prompt."""

from __future__ import annotations

from games.core import betting
from games.core.contract import OnTimeout, Prompt
from games.core.starter import choose_starter_prompt
from games.devils_deal import flow, rules, text
from games.devils_deal.cards import render, render_all
from games.devils_deal.settings import reminders_for
from games.devils_deal.state import DevilsDealState, Phase
from games.devils_deal.text import p

CALL_WORD = "'call', "


def prompts(state: DevilsDealState) -> list[Prompt]:
    s = state.settings
    k = f"dd{state.serial}"
    if state.phase == Phase.STARTER:
        return [choose_starter_prompt(
            f"{k}-starter", unit="round",
            then="The starter refills first and leads both betting phases.",
            seconds=s.starter_choice_seconds, reminders=reminders_for(s.starter_choice_seconds),
            timeout_text="if time runs out, you start round 1.")]
    if state.phase == Phase.REFILL_OFFER:
        seat = state.offer_seat
        assert seat is not None
        return [Prompt(
            key=f"{k}-refill", seat=seat, kind="refill_offer", private=False,
            text=(f"Refill? Pay {s.refill_cost} chips for {s.refill_cards} cards to divide. "
                  f"You have {state.chips[seat]} chips and {len(state.pools[seat])} cards in "
                  f"your pool. Type yes or no."),
            time_limit=s.refill_offer_seconds, reminders=reminders_for(s.refill_offer_seconds),
            timeout_text="if time runs out, you do not refill.", choices=("yes", "no"))]
    if state.phase == Phase.DIVISION:
        refill = state.refill
        assert refill is not None
        return [Prompt(
            key=f"{k}-division", seat=refill.refiller, kind="division", private=False,
            text=division_text(state), time_limit=s.refill_division_seconds,
            reminders=reminders_for(s.refill_division_seconds), resubmittable=True,
            timeout_text=("when time runs out your last valid division counts (missing "
                          "discards are made at random); with none, every card is set aside."),
            choices=("nothing", "done") if refill.division is not None else ("nothing",))]
    if state.phase == Phase.TAKE:
        refill = state.refill
        assert refill is not None
        seat = 1 - refill.refiller
        full = len(state.pools[seat]) >= s.pool_limit
        choices: tuple[str, ...] = ("nothing",)
        if not full:
            choices = (*(f"take {c}" for c in dict.fromkeys(state.set_aside)), "nothing")[:25]
        extra = (f" Your pool has {len(state.pools[seat])} cards, so also discard one "
                 f"(e.g. 'take {state.set_aside[0]} discard {state.set_aside[0]}').") if full else ""
        return [Prompt(
            key=f"{k}-take", seat=seat, kind="take", private=False,
            text=(f"You may take one set-aside card for free: "
                  f"{render_all(state.set_aside)}. Type 'take {state.set_aside[0]}' or "
                  f"'nothing'.{extra}"),
            time_limit=s.take_seconds, reminders=reminders_for(s.take_seconds),
            timeout_text="if time runs out, you take nothing.", choices=choices)]
    if state.phase == Phase.PRIVATE:
        out = []
        for seat in (0, 1):
            if state.private[seat] is not None or state.private_failed[seat]:
                continue
            out.append(Prompt(
                key=f"{k}-private-{seat}", seat=seat, kind="private_cards", private=True,
                text=(f"Choose your two private cards in reveal order, first card first "
                      f"(e.g. '{example_pair(state, seat)}'). Your pool: "
                      f"{render_all(state.pools[seat])}. Community card: "
                      f"{render(state.community or '')}; your cards must differ from it "
                      f"and from each other."),
                time_limit=s.private_cards_seconds, reminders=reminders_for(s.private_cards_seconds),
                on_timeout=OnTimeout.LOSE,
                timeout_text="if time runs out, you have failed to choose private cards and lose."))
        return out
    if state.phase == Phase.BETTING:
        phase = state.betting
        assert phase is not None
        seat = phase.to_act
        opts = betting.options(phase, state.chips, rules.LIMITS)
        return [Prompt(
            key=f"{k}-bet", seat=seat, kind="bet", private=False,
            text=(f"Betting phase {state.betting_no}: {betting.describe(opts)}. Bets this "
                  f"phase: {p(0)} {phase.bets[0]}, {p(1)} {phase.bets[1]}; pot "
                  f"{flow.pot_size(state)}. You have {state.chips[seat]} chips. Type "
                  f"{CALL_WORD if opts.can_call else ''}'raise N' (N on top of the call) "
                  f"or 'fold'."),
            brief=(f"betting phase {state.betting_no}: {betting.describe(opts)}. Bets "
                   f"{p(0)} {phase.bets[0]}, {p(1)} {phase.bets[1]}; pot "
                   f"{flow.pot_size(state)}; you have {state.chips[seat]}."),
            time_limit=s.bet_seconds, reminders=reminders_for(s.bet_seconds),
            timeout_text=(f"if time runs out, you fold (paying the {s.fold_penalty}-chip "
                          f"penalty if your hand is high card)."),
            choices=bet_choices(opts))]
    return []


def example_pair(state: DevilsDealState, seat: int) -> str:
    options = rules.pair_options(state.pools[seat], state.community or "")
    return " ".join(options[0]) if options else "R7 B3"


def bet_choices(opts: betting.BetOptions) -> tuple[str, ...]:
    out: list[str] = []
    if opts.can_call:
        out.append(f"call {opts.call_amount}")
    if opts.can_raise:
        assert opts.min_raise is not None and opts.max_raise is not None
        amounts = sorted({opts.min_raise, min(2, opts.max_raise), min(3, opts.max_raise),
                          min(5, opts.max_raise), opts.max_raise})
        out.extend(f"raise {a}" for a in amounts)
    out.append("fold")
    return tuple(out)


def division_text(state: DevilsDealState) -> str:
    refill = state.refill
    assert refill is not None
    seat = refill.refiller
    lines = [
        f"Divide these {len(refill.offered)} cards: {text.cards_with_sum(refill.offered)}.",
        f"Your pool has {len(state.pools[seat])} cards (limit {state.settings.pool_limit}; "
        f"its cards are sent to you privately).",
        "Write each pile on its own line (or separate piles with | or /), all piles with the "
        "same sum; mark the pile you set aside with 'aside:' and list discards after "
        "'discard' if you would go over the limit. Cards in no pile are set aside.",
        "Example: R2 B3 R3 G6 | G5 B9 | aside: G2 B5 R7 | discard B3. You may change it "
        "until the time runs out; type 'done' to lock it in now, or 'nothing' to take nothing.",
    ]
    if refill.division is not None:
        res = rules.check_division(refill.offered, state.pools[seat], refill.division,
                                   state.settings.pool_limit)
        lines.append(f"Current division: {text.pile_lines(refill.division.piles, refill.division.aside)}"
                     + (f"; discards {render_all(res.discards)}" if res.discards else "")
                     + (f"; {res.missing_discards} more discards needed"
                        if res.missing_discards else "") + ".")
    return " ".join(lines)
