"""The round flow of Devil's Deal: the automatic steps between decisions.

Each function mutates the state and appends the events it causes to `ev`. `APPLY` (one per
command) and `TIMEOUTS` (one per decision kind) are the engine's tables; the steps call each
other to run automatic steps (dealing, antes, reveals, showdown, the next round) until the
next decision is pending.
"""

from __future__ import annotations

from games.core import betting
from games.core.contract import ApplyHandler, Audience, Event, Prompt, TimeoutHandler, say
from games.devils_deal import rules, text
from games.devils_deal.cards import DECK, remove_cards, render, render_all, sort_cards
from games.devils_deal.commands import (
    Bet,
    ChooseStarter,
    Division,
    LockDivision,
    PrivateCards,
    RefillAnswer,
    Take,
)
from games.devils_deal.state import DevilsDealState, Phase, Refill
from games.devils_deal.text import p


def apply_choose_starter(state: DevilsDealState, seat: int, c: ChooseStarter,
                         ev: list[Event]) -> None:
    choose_starter(state, c.starter, ev, timed_out=False)


def apply_refill_answer(state: DevilsDealState, seat: int, c: RefillAnswer,
                        ev: list[Event]) -> None:
    refill_answer(state, seat, c.refill, ev, timed_out=False)


def apply_lock_division(state: DevilsDealState, seat: int, c: LockDivision,
                        ev: list[Event]) -> None:
    assert state.refill is not None and state.refill.division is not None
    finish_division(state, state.refill.division, ev, how="locked in")


def apply_take(state: DevilsDealState, seat: int, c: Take, ev: list[Event]) -> None:
    take(state, seat, c.card, c.discard, ev, timed_out=False)


def apply_private_cards(state: DevilsDealState, seat: int, c: PrivateCards,
                        ev: list[Event]) -> None:
    choose_private(state, seat, c.first, c.second, ev)


def starter_timeout(state: DevilsDealState, seat: int, prompt: Prompt, ev: list[Event]) -> None:
    """The advantage holder starts round 1."""
    choose_starter(state, 0, ev, timed_out=True)


def refill_timeout(state: DevilsDealState, seat: int, prompt: Prompt, ev: list[Event]) -> None:
    """No refill."""
    refill_answer(state, seat, False, ev, timed_out=True)


def division_timeout(state: DevilsDealState, seat: int, prompt: Prompt,
                     ev: list[Event]) -> None:
    """The last valid division counts; with none, every card is set aside."""
    assert state.refill is not None
    finish_division(state, state.refill.division or Division(), ev, how="time ran out")


def take_timeout(state: DevilsDealState, seat: int, prompt: Prompt, ev: list[Event]) -> None:
    """Nothing is taken."""
    take(state, seat, None, None, ev, timed_out=True)


def private_timeout(state: DevilsDealState, seat: int, prompt: Prompt,
                    ev: list[Event]) -> None:
    """The player has failed to choose private cards (a loss, settled once both are in)."""
    state.private_failed[seat] = True
    say(ev, "poker.private.timeout", f"Time ran out: {p(seat)} did not choose private cards.",
        seat=seat)
    private_resolved(state, ev)


def bet_timeout(state: DevilsDealState, seat: int, prompt: Prompt, ev: list[Event]) -> None:
    """The player folds."""
    say(ev, "bet.timeout", f"{p(seat)} ran out of time to bet and folds.")
    fold(state, seat, ev)


def choose_starter(state: DevilsDealState, starter: int, ev: list[Event], *,
                    timed_out: bool) -> None:
    why = "Time ran out: " if timed_out else ""
    say(ev, "starter.chosen", f"{why}{p(starter)} starts round 1.", starter=starter)
    state.starter = starter
    start_round(state, ev)

def start_round(state: DevilsDealState, ev: list[Event]) -> None:
    state.round += 1
    state.community = None
    state.private = [None, None]
    state.private_failed = [False, False]
    state.revealed = [0, 0]
    state.ante_pot = 0
    state.round_bets = [0, 0]
    state.betting = None
    state.betting_no = 0
    state.set_aside = []
    state.refill = None
    say(ev, "round.start",
              f"Round {state.round}: {p(state.starter)} starts. {text.chips_line(state.chips)} "
              f"{text.pool_counts(state.pools)}",
              round=state.round, starter=state.starter, chips=list(state.chips),
              pool_sizes=[len(x) for x in state.pools])
    offer_refill(state, state.starter, ev)

def offer_refill(state: DevilsDealState, seat: int, ev: list[Event]) -> None:
    cost = state.settings.refill_cost
    if state.chips[seat] < cost:
        say(ev, "refill.cannot",
                  f"{p(seat)} has {state.chips[seat]} chips, fewer than the {cost} a refill "
                  f"costs, and cannot refill.", seat=seat)
        end_refill_turn(state, seat, ev)
        return
    state.phase = Phase.REFILL_OFFER
    state.offer_seat = seat
    state.refill = None
    state.serial += 1

def end_refill_turn(state: DevilsDealState, seat: int, ev: list[Event]) -> None:
    state.offer_seat = None
    state.refill = None
    state.set_aside = []
    if seat == state.starter:
        offer_refill(state, 1 - seat, ev)
    else:
        start_poker(state, ev)

def refill_answer(state: DevilsDealState, seat: int, yes: bool, ev: list[Event], *,
                   timed_out: bool) -> None:
    if not yes:
        why = "Time ran out: " if timed_out else ""
        say(ev, "refill.declined", f"{why}{p(seat)} does not refill.", seat=seat)
        end_refill_turn(state, seat, ev)
        return
    s = state.settings
    state.chips[seat] -= s.refill_cost
    state.removed_refills += s.refill_cost
    state.refills[seat] += 1
    offered = state.chance.sample(DECK, s.refill_cards)
    state.refill = Refill(refiller=seat, offered=offered)
    state.phase = Phase.DIVISION
    state.serial += 1
    say(ev, "refill.dealt",
              f"{p(seat)} pays {s.refill_cost} chips to refill ({state.chips[seat]} left). "
              f"Cards to divide: {text.cards_with_sum(offered)}.",
              seat=seat, offered=list(offered), chips=list(state.chips))
    # The pool is the refiller's own secret (cards folded unrevealed are no longer in it):
    # it goes to them privately, never into the public division prompt.
    say(ev, "refill.pool",
        f"Your pool ({len(state.pools[seat])} cards, limit {s.pool_limit}): "
        f"{render_all(state.pools[seat]) if state.pools[seat] else 'empty'}.",
        Audience.to(seat), pool=list(state.pools[seat]))

def post_division(state: DevilsDealState, seat: int, division: Division,
                   ev: list[Event]) -> None:
    assert state.refill is not None
    state.refill.division = division
    if division.lock:
        finish_division(state, division, ev, how="locked in")
        return
    res = rules.check_division(state.refill.offered, state.pools[seat], division,
                               state.settings.pool_limit)
    msg = (f"{p(seat)}'s division (final when time runs out, or type 'done'): "
           f"{text.pile_lines(division.piles, division.aside)}. Would take "
           f"{render_all(res.taken)}")
    if res.discards:
        msg += f" and discard {render_all(res.discards)}"
    msg += "."
    if res.missing_discards:
        msg += (f" Not enough discards: {res.missing_discards} more needed, or random cards "
                f"will be discarded when time runs out.")
    say(ev, "refill.division", msg, seat=seat, piles=[list(x) for x in division.piles],
              aside=division.aside, discards=list(res.discards),
              missing_discards=res.missing_discards)

def finish_division(state: DevilsDealState, division: Division, ev: list[Event], *,
                     how: str) -> None:
    refill = state.refill
    assert refill is not None
    seat = refill.refiller
    res = rules.check_division(refill.offered, state.pools[seat], division,
                               state.settings.pool_limit)
    pool = state.pools[seat]
    after = [*pool, *res.taken]
    discards = list(res.discards)
    remove_cards(after, discards)
    random_discards: list[str] = []
    if res.missing_discards:
        random_discards = state.chance.sample(after, res.missing_discards)
        remove_cards(after, random_discards)
    all_discards = [*discards, *random_discards]
    state.pools[seat] = sort_cards(after)
    state.known_pools[seat].extend(res.taken)
    remove_cards(state.known_pools[seat], all_discards)
    state.received[seat] += len(res.taken)
    state.discarded[seat] += len(all_discards)
    state.discards[seat].extend(all_discards)
    state.set_aside = res.set_aside
    taken = render_all(res.taken) if res.taken else "nothing"
    msg = (f"{p(seat)}'s refill is final ({how}): {text.pile_lines(division.piles, division.aside)}. "
           f"{p(seat)} takes {taken}")
    if discards:
        msg += f" and discards {render_all(discards)}"
    if random_discards:
        msg += f"; discarded at random (not enough discards): {render_all(random_discards)}"
    msg += (f". Set aside: {render_all(res.set_aside)}. {p(seat)} now has "
            f"{len(state.pools[seat])} cards.")
    say(ev, "refill.done", msg, seat=seat, taken=res.taken, discards=all_discards,
              random_discards=random_discards, set_aside=list(res.set_aside),
              pool_size=len(state.pools[seat]))
    state.phase = Phase.TAKE
    state.serial += 1

def take(state: DevilsDealState, seat: int, card: str | None, discard: str | None,
          ev: list[Event], *, timed_out: bool) -> None:
    refill = state.refill
    assert refill is not None
    if card is None:
        why = "Time ran out: " if timed_out else ""
        say(ev, "refill.take", f"{why}{p(seat)} takes no set-aside card.", seat=seat,
                  card=None, discard=None)
    else:
        state.pools[seat].append(card)
        state.known_pools[seat].append(card)
        state.received[seat] += 1
        msg = f"{p(seat)} takes {render(card)}"
        if discard is not None:
            state.pools[seat].remove(discard)
            state.known_pools[seat].remove(discard)
            state.discarded[seat] += 1
            state.discards[seat].append(discard)
            msg += f" and discards {render(discard)}"
        state.pools[seat] = sort_cards(state.pools[seat])
        say(ev, "refill.take", f"{msg} ({len(state.pools[seat])} cards).", seat=seat,
                  card=card, discard=discard, pool_size=len(state.pools[seat]))
    state.set_aside = []
    # The refill is complete; its refiller may refill again.
    offer_refill(state, refill.refiller, ev)

def start_poker(state: DevilsDealState, ev: list[Event]) -> None:
    state.community = state.chance.choice(DECK)
    say(ev, "poker.community",
              f"Poker step of round {state.round}. Community card: {render(state.community)}.",
              community=state.community)
    unable = [seat for seat in (0, 1)
              if not rules.can_choose_private(state.pools[seat], state.community)]
    if unable:
        loser = state.starter if len(unable) == 2 else unable[0]
        why = ("neither player can choose two private cards; when both fail the same "
               f"condition the starting player, {p(loser)}, loses") if len(unable) == 2 else (
            f"{p(loser)} cannot choose two private cards from their pool")
        lose(state, loser, ev, why)
        return
    state.phase = Phase.PRIVATE
    state.serial += 1

def choose_private(state: DevilsDealState, seat: int, first: str, second: str,
                    ev: list[Event]) -> None:
    remove_cards(state.pools[seat], (first, second))
    state.private[seat] = [first, second]
    token = text.pair_token(seat, first, second)
    state.past_private[seat].append(token)
    say(ev, "poker.private.own",
              f"Your private cards: {render(first)} (revealed first), then {render(second)}.",
              Audience.to(seat), private=token)
    say(ev, "poker.private.umpire",
              f"{p(seat)} chose {render(first)} first, then {render(second)}.",
              Audience.umpire(), seat=seat, first=first, second=second)
    say(ev, "poker.private.chosen", f"{p(seat)} has chosen their private cards.",
              seat=seat)
    private_resolved(state, ev)

def private_resolved(state: DevilsDealState, ev: list[Event]) -> None:
    """Once both seats have chosen or run out of time: a failure loses (both: the
    starter), else the ante."""
    if any(state.private[x] is None and not state.private_failed[x] for x in (0, 1)):
        return
    failed = [x for x in (0, 1) if state.private_failed[x]]
    if len(failed) == 2:
        lose(state, state.starter, ev,
                   f"neither player chose private cards in time; when both fail the same "
                   f"condition the starting player, {p(state.starter)}, loses")
    elif failed:
        lose(state, failed[0], ev, f"{p(failed[0])} did not choose private cards in time")
    else:
        ante(state, ev)

def ante(state: DevilsDealState, ev: list[Event]) -> None:
    s = state.settings
    short = [seat for seat in (0, 1) if state.chips[seat] < s.ante]
    if short:
        loser = state.starter if len(short) == 2 else short[0]
        why = (f"neither player can pay the {s.ante}-chip ante; when both fail the same "
               f"condition the starting player, {p(loser)}, loses") if len(short) == 2 else (
            f"{p(loser)} cannot pay the {s.ante}-chip ante")
        lose(state, loser, ev, why)
        return
    for seat in (0, 1):
        state.chips[seat] -= s.ante
    state.ante_pot = 2 * s.ante - s.ante_removed
    state.removed_ante += s.ante_removed
    say(ev, "poker.ante",
              f"Both players pay the {s.ante}-chip ante; {s.ante_removed} chip leaves the game, "
              f"so the pot starts at {state.ante_pot}. {text.chips_line(state.chips)}",
              pot=state.ante_pot, chips=list(state.chips))
    start_betting(state, 1, ev)

def pot_size(state: DevilsDealState) -> int:
    return state.ante_pot + sum(state.round_bets)

def start_betting(state: DevilsDealState, n: int, ev: list[Event]) -> None:
    state.betting_no = n
    state.betting = betting.start_phase(state.starter, state.chips)
    if state.betting.skipped:
        broke = [p(seat) for seat in (0, 1) if state.chips[seat] <= 0]
        say(ev, "bet.skip",
                  f"{' and '.join(broke)} {'has' if len(broke) == 1 else 'have'} no chips: "
                  f"betting phase {n} ends at once (no bets, no folding).", phase=n)
        end_betting(state, ev)
        return
    state.phase = Phase.BETTING
    state.serial += 1

def bet(state: DevilsDealState, seat: int, command: Bet, ev: list[Event]) -> None:
    phase = state.betting
    assert phase is not None
    if command.action == "fold":
        fold(state, seat, ev)
        return
    record = betting.apply_action(phase, state.chips, seat, command.action, command.amount)
    state.round_bets[seat] += record.paid
    other = 1 - seat
    if command.action == "call":
        msg = f"{p(seat)} calls {record.paid}."
    else:
        msg = (f"{p(seat)} raises {command.amount} (puts in {record.paid}); {p(other)} needs "
               f"{phase.bets[seat] - phase.bets[other]} to call.")
    msg += (f" Bets this phase: {p(0)} {phase.bets[0]}, {p(1)} {phase.bets[1]}. Pot "
            f"{pot_size(state)}. {text.chips_line(state.chips)}")
    say(ev, f"bet.{command.action}", msg, seat=seat, amount=command.amount,
              paid=record.paid, bets=list(phase.bets), pot=pot_size(state),
              chips=list(state.chips))
    if phase.closed:
        end_betting(state, ev)
    else:
        state.serial += 1

def end_betting(state: DevilsDealState, ev: list[Event]) -> None:
    n = state.betting_no
    shown = []
    for seat in (0, 1):
        pair = state.private[seat]
        assert pair is not None
        c = pair[n - 1]
        state.revealed[seat] = n
        state.known_pools[seat].remove(c)
        shown.append(c)
    say(ev, "poker.reveal",
              f"Betting phase {n} is over. {'First' if n == 1 else 'Second'} private cards: "
              f"{p(0)} {render(shown[0])}, {p(1)} {render(shown[1])}.",
              phase=n, cards=shown)
    if n == 1:
        start_betting(state, 2, ev)
    else:
        showdown(state, ev)

def showdown(state: DevilsDealState, ev: list[Event]) -> None:
    assert state.community is not None
    hands = [[*(state.private[seat] or []), state.community] for seat in (0, 1)]
    ranks = [rules.hand_rank(h) for h in hands]
    desc = "; ".join(f"{p(seat)} {render_all(hands[seat])} ({ranks[seat].name})"
                     for seat in (0, 1))
    pot = pot_size(state)
    if ranks[0] == ranks[1]:
        for seat in (0, 1):
            state.chips[seat] += state.round_bets[seat]
        state.removed_ties += state.ante_pot
        msg = (f"Showdown: {desc}. A tie: both take back their bets; the {state.ante_pot} "
               f"ante chips leave the game. {text.chips_line(state.chips)}")
        winner = None
    else:
        winner = 0 if ranks[0] > ranks[1] else 1
        state.chips[winner] += pot
        msg = (f"Showdown: {desc}. {p(winner)} wins the round and {pot} chips. "
               f"{text.chips_line(state.chips)}")
    say(ev, "poker.showdown", msg, hands=hands, categories=[r.category for r in ranks],
              winner=winner, pot=pot, chips=list(state.chips))
    state.ante_pot = 0
    state.round_bets = [0, 0]
    finish_round(state, state.starter if winner is None else winner, ev)

def fold(state: DevilsDealState, seat: int, ev: list[Event]) -> None:
    assert state.community is not None and state.betting is not None
    s = state.settings
    winner = 1 - seat
    phase = state.betting
    if phase.to_act == seat and not phase.closed:
        betting.apply_action(phase, state.chips, seat, "fold")
    pot = pot_size(state)
    state.chips[winner] += pot
    state.ante_pot = 0
    state.round_bets = [0, 0]
    say(ev, "bet.fold", f"{p(seat)} folds. {p(winner)} wins the round and takes {pot} "
              f"chips.", seat=seat, pot=pot)
    hand = [*(state.private[seat] or []), state.community]
    hidden = []
    for who in (0, 1):
        pair = state.private[who]
        assert pair is not None
        if state.revealed[who] < 2:
            state.hidden_pairs.append((who, text.pair_token(who, *pair)))
            hidden.append(f"{p(who)} {render_all(pair[state.revealed[who]:])}")
    if hidden:
        say(ev, "poker.unrevealed.umpire",
                  f"Unrevealed private cards: {'; '.join(hidden)}. {p(seat)}'s hand: "
                  f"{render_all(hand)} ({rules.hand_rank(hand).name}).", Audience.umpire())
    if rules.is_high_card(hand) and s.fold_penalty:
        if state.chips[seat] < s.fold_penalty:
            say(ev, "poker.penalty.unpaid",
                      f"{p(seat)} folded a high-card hand and cannot pay the "
                      f"{s.fold_penalty}-chip penalty.", seat=seat, paid=False)
            retire_private(state)
            lose(state, seat, ev, f"{p(seat)} cannot pay the {s.fold_penalty}-chip "
                       f"penalty for folding a high-card hand")
            return
        state.chips[seat] -= s.fold_penalty
        state.chips[winner] += s.fold_penalty
        say(ev, "poker.penalty.paid",
                  f"{p(seat)} folded a high-card hand and pays {p(winner)} the "
                  f"{s.fold_penalty}-chip penalty. {text.chips_line(state.chips)}",
                  seat=seat, paid=True, chips=list(state.chips))
    else:
        say(ev, "poker.penalty.none", f"{p(seat)} pays no fold penalty. "
                  f"{text.chips_line(state.chips)}", seat=seat, paid=False,
                  chips=list(state.chips))
    finish_round(state, winner, ev)

def retire_private(state: DevilsDealState) -> None:
    """The round's private cards are used up (discarded, revealed or not)."""
    for seat in (0, 1):
        if state.private[seat] is not None:
            state.used[seat] += 2
    state.private = [None, None]
    state.betting = None

def finish_round(state: DevilsDealState, next_starter: int, ev: list[Event]) -> None:
    retire_private(state)
    state.starter = next_starter
    pause = state.settings.break_seconds
    say(ev, "round.end",
              f"Round {state.round} is over. {text.chips_line(state.chips)} "
              f"{text.pool_counts(state.pools)} {p(next_starter)} starts the next round"
              + (f" after a {pause:g}-second break." if pause else "."),
              round=state.round, next_starter=next_starter, chips=list(state.chips),
              pool_sizes=[len(x) for x in state.pools], pause_seconds=pause)
    start_round(state, ev)

def lose(state: DevilsDealState, loser: int, ev: list[Event], why: str) -> None:
    state.phase = Phase.OVER
    state.winner = 1 - loser
    state.reason = why
    state.offer_seat = None
    say(ev, "match.end", f"{p(loser)} loses: {why}. {p(1 - loser)} wins the match.",
              winner=1 - loser, loser=loser, reason=why, chips=list(state.chips))


# --- the engine's tables -------------------------------------------------------------------------
APPLY: dict[str, ApplyHandler] = {
    "choose_starter": apply_choose_starter,
    "refill_answer": apply_refill_answer,
    "division": post_division,
    "lock_division": apply_lock_division,
    "take": apply_take,
    "private_cards": apply_private_cards,
    "bet": bet,
}
TIMEOUTS: dict[str, TimeoutHandler] = {
    "choose_starter": starter_timeout,
    "refill_offer": refill_timeout,
    "division": division_timeout,
    "take": take_timeout,
    "private_cards": private_timeout,
    "bet": bet_timeout,
}
