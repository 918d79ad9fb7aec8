"""The round flow of Renounce Fate: the automatic steps between decisions.

Each function mutates the state and appends the events it causes to `ev`; `APPLY` (one per
command) and `TIMEOUTS` (one per decision kind) are the engine's tables, and the steps call
each other (deal, ante, betting, renouncing, showdown, the next round) until a decision is
pending.
"""

from __future__ import annotations

from games.core import betting
from games.core.contract import ApplyHandler, Audience, Event, Prompt, TimeoutHandler, say
from games.renounce_fate import rules, text
from games.renounce_fate.cards import render, render_all, sort_cards
from games.renounce_fate.commands import Bet, ChooseStarter, Renounce
from games.renounce_fate.state import FateSet, Phase, Pick, RenounceFateState, RenounceStep
from games.renounce_fate.text import chips_line, p


def apply_choose_starter(state: RenounceFateState, seat: int, c: ChooseStarter,
                         ev: list[Event]) -> None:
    choose_starter(state, c.starter, ev, timed_out=False)


def apply_renounce(state: RenounceFateState, seat: int, c: Renounce, ev: list[Event]) -> None:
    renounce(state, seat, c.set_no, c.card, ev, timed_out=False)


def starter_timeout(state: RenounceFateState, seat: int, prompt: Prompt,
                    ev: list[Event]) -> None:
    """The advantage holder starts round 1."""
    choose_starter(state, 0, ev, timed_out=True)


def bet_timeout(state: RenounceFateState, seat: int, prompt: Prompt, ev: list[Event]) -> None:
    """The player folds."""
    bet(state, seat, Bet(action="fold"), ev, timed_out=True)


def renounce_timeout(state: RenounceFateState, seat: int, prompt: Prompt,
                     ev: list[Event]) -> None:
    """A random legal fate card is renounced for the player."""
    set_no, card = state.chance.choice(rules.legal_picks(remaining(state)))
    renounce(state, seat, set_no, card, ev, timed_out=True)


def choose_starter(state: RenounceFateState, starter: int, ev: list[Event], *,
                   timed_out: bool) -> None:
    why = "Time ran out: " if timed_out else ""
    say(ev, "starter.chosen", f"{why}{p(starter)} starts round 1.", starter=starter)
    state.starter = starter
    start_round(state, ev)


def start_round(state: RenounceFateState, ev: list[Event]) -> None:
    state.round += 1
    hands, sets, unused = rules.deal_round(state.chance)
    state.hands = [sort_cards(h) for h in hands]
    state.sets = [FateSet(dealt=list(s), remaining=list(s)) for s in sets]
    state.unused = unused
    state.steps = []
    state.picks = [None, None]
    state.community = None
    state.betting = None
    state.betting_no = 0
    ante = state.settings.ante(state.round)
    paid, all_in = rules.ante_payment(ante, state.chips)
    short = [seat for seat in (0, 1) if state.chips[seat] < ante]
    for seat in (0, 1):
        state.chips[seat] -= paid
    state.round_bets = [paid, paid]
    state.ante = paid
    state.all_in_ante = all_in
    if all_in:
        who = " and ".join(p(x) for x in short)
        ante_msg = (f"The ante is {ante}; {who} cannot afford it: {paid} "
                    f"{'chip' if paid == 1 else 'chips'} each go in (everything the shorter "
                    f"stack has, matched). No betting this round.")
    else:
        ante_msg = f"Both pay the {ante}-chip ante."
    say(ev, "round.start",
        f"Round {state.round}: {p(state.starter)} starts and leads both betting rounds. "
        f"{ante_msg} Pot {state.pot}. {chips_line(state.chips)}\nFate cards:\n"
        f"{text.sets_picture(state.sets)}",
        round=state.round, starter=state.starter, ante=ante, paid=paid, all_in=all_in,
        pot=state.pot, chips=list(state.chips), sets=[list(s.dealt) for s in state.sets])
    for seat in (0, 1):
        say(ev, "hand.dealt", f"Round {state.round}: your private cards are "
            f"{render_all(state.hands[seat])}.", Audience.to(seat),
            cards=list(state.hands[seat]),
            token=text.hand_token(seat, state.round, state.hands[seat]))
    say(ev, "hand.umpire", f"Round {state.round} hands: {p(0)} {render_all(state.hands[0])}, "
        f"{p(1)} {render_all(state.hands[1])}; unused {render_all(sort_cards(state.unused))}.",
        Audience.umpire())
    start_betting(state, 1, ev)


def start_betting(state: RenounceFateState, n: int, ev: list[Event]) -> None:
    state.betting_no = n
    state.betting = betting.start_phase(state.starter, state.chips,
                                        (state.round_bets[0], state.round_bets[1]))
    if state.all_in_ante or state.betting.skipped:
        state.betting.closed = state.betting.skipped = True
        if state.all_in_ante:
            why = "the ante was all-in"
        else:
            broke = [p(x) for x in (0, 1) if state.chips[x] <= 0]
            why = f"{' and '.join(broke)} {'has' if len(broke) == 1 else 'have'} no chips left"
        say(ev, "bet.skip", f"Betting round {n} is skipped: {why}.", betting=n)
        end_betting(state, ev)
        return
    state.phase = Phase.BETTING
    state.serial += 1


def bet(state: RenounceFateState, seat: int, command: Bet, ev: list[Event], *,
        timed_out: bool = False) -> None:
    phase = state.betting
    assert phase is not None
    if command.action == "fold":
        fold(state, seat, ev, timed_out=timed_out)
        return
    record = betting.apply_action(phase, state.chips, seat, command.action, command.amount)
    state.round_bets[seat] += record.paid
    other = 1 - seat
    if command.action == "call":
        msg = (f"{p(seat)} calls {record.paid}." if record.paid or phase.history[:-1]
               else f"{p(seat)} calls for 0 (no raise is possible).")
    else:
        msg = (f"{p(seat)} raises {command.amount} (puts in {record.paid}); {p(other)} needs "
               f"{phase.bets[seat] - phase.bets[other]} to call.")
    msg += f" Pot {state.pot}. {chips_line(state.chips)}"
    say(ev, f"bet.{command.action}", msg, seat=seat, amount=command.amount, paid=record.paid,
        pot=state.pot, chips=list(state.chips), in_pot=list(state.round_bets))
    if phase.closed:
        end_betting(state, ev)
    else:
        state.serial += 1


def end_betting(state: RenounceFateState, ev: list[Event]) -> None:
    if state.betting_no == 1:
        start_renounce(state, ev)
    else:
        showdown(state, ev)


# --- renouncing ------------------------------------------------------------------------------
def remaining(state: RenounceFateState) -> list[list[str]]:
    return [list(s.remaining) for s in state.sets]


def start_renounce(state: RenounceFateState, ev: list[Event]) -> None:
    state.phase = Phase.RENOUNCE
    state.picks = [None, None]
    state.serial += 1
    # The sets were just shown with the previous step's result; show them again only first.
    picture = "" if state.steps else f"\n{text.sets_picture(state.sets)}"
    say(ev, "renounce.start",
        f"Renounce step {len(state.steps) + 1}: each player picks one fate card to renounce, "
        f"privately, from a set with more than one card.{picture}",
        step=len(state.steps) + 1, sets=remaining(state))


def renounce(state: RenounceFateState, seat: int, set_no: int, card: str, ev: list[Event], *,
             timed_out: bool) -> None:
    state.picks[seat] = Pick(set_no=set_no, card=card, timed_out=timed_out)
    step = len(state.steps) + 1
    token = text.pick_token(seat, state.round, step, set_no, card)
    mine = (f"Time ran out: a random fate card was picked for you: {text.pick_text(set_no, card)}."
            if timed_out else f"You renounce {text.pick_text(set_no, card)}.")
    other = state.picks[1 - seat] is None
    say(ev, "renounce.own", mine + (" Waiting for your opponent." if other else ""),
        Audience.to(seat), set_no=set_no, card=card, token=token)
    public = (f"Time ran out: {p(seat)} renounces a fate card picked at random."
              if timed_out else f"{p(seat)} has picked a fate card to renounce.")
    say(ev, "renounce.timeout" if timed_out else "renounce.picked", public, seat=seat,
        timed_out=timed_out)
    if other:
        return
    resolve_step(state, ev)


def resolve_step(state: RenounceFateState, ev: list[Event]) -> None:
    picks = [x for x in state.picks if x is not None]
    assert len(picks) == 2
    sets = remaining(state)
    res = rules.resolve(sets, [(x.set_no, x.card) for x in picks])
    for i, s in enumerate(state.sets):
        gone = [c for n, c in res.discarded if n == i + 1]
        s.discarded.extend(gone)
        s.remaining = sets[i]
    if res.kept is not None:
        state.sets[res.kept[0] - 1].kept = res.kept[1]
    state.steps.append(RenounceStep(picks=picks, same=res.same))
    shown = ", ".join(
        f"{p(seat)} {text.pick_text(x.set_no, x.card)}" + (" (at random: time ran out)"
                                                           if x.timed_out else "")
        for seat, x in enumerate(picks))
    if res.same:
        assert res.kept is not None  # (a same pick locks the card)
        n, c = res.kept
        lost = render_all(c2 for _, c2 in res.discarded)
        what = (f"the same card: {render(c)} is locked in set {n}"
                + (f" and {lost} {'is' if len(res.discarded) == 1 else 'are'} discarded."
                   if res.discarded else "."))
    else:
        what = "different cards: both are discarded."
    state.picks = [None, None]
    done = rules.all_locked(sets)
    say(ev, "renounce.reveal",
        f"Renounce step {len(state.steps)}: {shown}; {what}\n{text.sets_picture(state.sets)}",
        step=len(state.steps), picks=[[x.set_no, x.card] for x in picks], same=res.same,
        discarded=[[n, c] for n, c in res.discarded], sets=sets, done=done)
    if not done:
        start_renounce(state, ev)
        return
    state.community = rules.community_of(sets)
    k = len(state.community)
    say(ev, "community", f"Every set is locked. Community cards: {render_all(state.community)}. "
        f"{text.HAND_RULES[k]}.", community=list(state.community), hand_size=rules.hand_size(k))
    start_betting(state, 2, ev)


# --- the end of a round ------------------------------------------------------------------------
def showdown(state: RenounceFateState, ev: list[Event]) -> None:
    assert state.community is not None
    s = state.settings
    best = [rules.best_hand(state.hands[x], state.community, s) for x in (0, 1)]
    desc = "; ".join(f"{p(x)} holds {render_all(state.hands[x])}, best hand "
                     f"{render_all(best[x].cards)} ({best[x].rank.name})" for x in (0, 1))
    winner = None if best[0].rank == best[1].rank else (0 if best[0].rank > best[1].rank else 1)
    say(ev, "showdown", f"Showdown with {render_all(state.community)}: {desc}.",
        hands=[list(h) for h in state.hands], best=[list(b.cards) for b in best],
        categories=[b.rank.category for b in best], winner=winner)
    settle(state, winner, ev)


def fold(state: RenounceFateState, seat: int, ev: list[Event], *, timed_out: bool) -> None:
    phase = state.betting
    assert phase is not None
    betting.apply_action(phase, state.chips, seat, "fold")
    for who in (0, 1):
        state.hidden_hands.append((who, text.hand_token(who, state.round, state.hands[who])))
    why = f"Time ran out: {p(seat)} folds" if timed_out else f"{p(seat)} folds"
    say(ev, "bet.fold", f"{why}. The hands are not shown.", seat=seat, timed_out=timed_out)
    settle(state, 1 - seat, ev)


def settle(state: RenounceFateState, winner: int | None, ev: list[Event]) -> None:
    """Pay the pot: to the winner; on a tie it leaves the match while both players have chips,
    else it is split evenly with an odd chip to the player on 0."""
    pot = state.pot
    state.round_bets = [0, 0]
    if winner is not None:
        state.chips[winner] += pot
        result = f"{p(winner)} wins the round and the pot of {pot}."
        next_starter = winner
    else:
        next_starter = state.starter
        if min(state.chips) > 0:
            state.removed_ties += pot
            result = f"A tie: both players still have chips, so the pot of {pot} leaves the match."
        else:
            shares = split_pot(pot, state.chips, state.starter)
            for x in (0, 1):
                state.chips[x] += shares[x]
            result = (f"A tie with a player on 0 chips: the pot of {pot} is shared, "
                      f"{p(0)} {shares[0]}, {p(1)} {shares[1]}.")
    state.last_result = result
    state.betting = None
    state.phase = Phase.BETTING  # until the next decision is set up
    broke = [x for x in (0, 1) if state.chips[x] <= 0]
    if broke:
        say(ev, "round.end", f"Round {state.round}: {result} {chips_line(state.chips)}",
            round=state.round, winner=winner, pot=pot, chips=list(state.chips))
        loser = broke[0]
        end_match(state, loser, ev, f"{p(loser)} has no chips left")
        return
    pause = state.settings.break_seconds
    say(ev, "round.end",
        f"Round {state.round}: {result} {chips_line(state.chips)} {p(next_starter)} starts "
        f"the next round{f' after a {pause:g}-second break' if pause else ''}.", round=state.round, winner=winner, pot=pot, chips=list(state.chips),
        next_starter=next_starter, pause_seconds=pause)
    state.starter = next_starter
    start_round(state, ev)


def split_pot(pot: int, chips: list[int], starter: int) -> list[int]:
    """Even shares of a tied pot; an odd chip goes to the player on 0 chips (if both are on 0,
    which needs an even pot in play, to the starter's opponent)."""
    half, odd = divmod(pot, 2)
    shares = [half, half]
    if odd:
        broke = [x for x in (0, 1) if chips[x] <= 0]
        shares[broke[0] if len(broke) == 1 else 1 - starter] += 1
    return shares


def end_match(state: RenounceFateState, loser: int, ev: list[Event], why: str) -> None:
    state.phase = Phase.OVER
    state.winner = 1 - loser
    state.reason = why
    state.betting = None
    say(ev, "match.end", f"{p(loser)} loses: {why}. {p(1 - loser)} wins the match with "
        f"{state.chips[1 - loser]} chips.", winner=1 - loser, loser=loser, reason=why,
        chips=list(state.chips))


# --- the engine's tables -------------------------------------------------------------------------
APPLY: dict[str, ApplyHandler] = {
    "choose_starter": apply_choose_starter,
    "bet": bet,
    "renounce": apply_renounce,
}
TIMEOUTS: dict[str, TimeoutHandler] = {
    "choose_starter": starter_timeout,
    "bet": bet_timeout,
    "renounce": renounce_timeout,
}
