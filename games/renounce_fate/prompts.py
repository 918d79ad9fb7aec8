"""The decisions pending in Renounce Fate: who decides what now, with the text, clock and
ready-made choices of each prompt."""

from __future__ import annotations

from games.core import betting
from games.core.contract import Prompt
from games.core.starter import choose_starter_prompt
from games.renounce_fate import flow, rules, text
from games.renounce_fate.settings import reminders_for
from games.renounce_fate.state import Phase, RenounceFateState
from games.renounce_fate.text import p


def prompts(state: RenounceFateState) -> list[Prompt]:
    s = state.settings
    k = f"rf{state.serial}"
    if state.phase == Phase.STARTER:
        return [choose_starter_prompt(
            f"{k}-starter", unit="round", then="The starter leads both betting rounds.",
            seconds=s.starter_choice_seconds, reminders=reminders_for(s.starter_choice_seconds),
            timeout_text="if time runs out, you start round 1.")]
    if state.phase == Phase.BETTING and state.betting is not None and not state.betting.closed:
        phase = state.betting
        seat = phase.to_act
        opts = betting.options(phase, state.chips, rules.limits(s))
        call = "'call', " if opts.can_call else ""
        return [Prompt(
            key=f"{k}-bet", seat=seat, kind="bet", private=False,
            text=(f"Betting round {state.betting_no} of round {state.round}: "
                  f"{betting.describe(opts)}. In the pot: {p(0)} {state.round_bets[0]}, "
                  f"{p(1)} {state.round_bets[1]} (pot {state.pot}; at most "
                  f"{s.max_in_pot} each). You have {state.chips[seat]} chips. Type {call}"
                  f"'raise N' (N on top of the call, at most {s.max_raise}) or 'fold'."),
            brief=(f"bet {state.betting_no}, round {state.round}: "
                   f"{betting.describe(opts)}. Pot {state.pot} ({p(0)} "
                   f"{state.round_bets[0]}, {p(1)} {state.round_bets[1]}); you have "
                   f"{state.chips[seat]}."),
            time_limit=s.bet_seconds, reminders=reminders_for(s.bet_seconds),
            timeout_text="if time runs out, you fold.", choices=bet_choices(opts))]
    if state.phase == Phase.RENOUNCE:
        legal = rules.legal_picks(flow.remaining(state))
        out = []
        for seat in (0, 1):
            if state.picks[seat] is not None:
                continue
            out.append(Prompt(
                key=f"{k}-renounce-{seat}", seat=seat, kind="renounce", private=True,
                text=(f"Renounce step {len(state.steps) + 1}: pick one fate card to "
                      f"renounce, naming the card and its set (e.g. "
                      f"'{text.pick_choice(*legal[0])}'). Only sets with more than one "
                      f"card are open.\n{text.sets_picture(state.sets)}"),
                time_limit=s.renounce_seconds, reminders=reminders_for(s.renounce_seconds),
                timeout_text="if time runs out, a random legal fate card is renounced for you.",
                choices=tuple(text.pick_choice(n, c) for n, c in legal)))
        return out
    return []


def bet_choices(opts: betting.BetOptions) -> tuple[str, ...]:
    """Buttons: call, a few raises (1, 2, 3, 5 and the most allowed), fold."""
    out: list[str] = []
    if opts.can_call:
        out.append(f"call {opts.call_amount}")
    if opts.can_raise:
        assert opts.min_raise is not None and opts.max_raise is not None
        amounts = sorted({a for a in (opts.min_raise, 2, 3, 5, opts.max_raise)
                          if opts.min_raise <= a <= opts.max_raise})
        out.extend(f"raise {a}" for a in amounts)
    out.append("fold")
    return tuple(out)
