"""The decisions that follow a turn's action: the clue answered, the letter given up after a
wrong guess and the compensation offered for it, and the guess at a restore's total."""

from __future__ import annotations

from games.core.contract import Event
from games.decoder import rules
from games.decoder.commands import ChooseClue, GiveUp, GuessTotal, Swap
from games.decoder.events import PUBLIC, UMPIRE, P, ev, tell, tell_and_log
from games.decoder.flow import after_action, end_turn
from games.decoder.letters import render_letters
from games.decoder.outcome import finish
from games.decoder.sabotage import unexpected
from games.decoder.state import ClueAnswer, DecoderState, Offer
from games.decoder.text import CLUE_MEANING, yes_no


def apply_choose_clue(state: DecoderState, seat: int, c: ChooseClue,
                      events: list[Event]) -> None:
    rec = state.current
    assert rec is not None and rec.word is not None
    count = rules.clue_count(rec.word, state.seats[seat].hand)
    answer = rules.clue_answer(c.clue, count)
    rec.answers.append(ClueAnswer(clue=c.clue, answer=answer))
    events.append(ev("turn.clue", PUBLIC,
                     f"{P(seat)} gives {c.clue} for {rec.word}: {yes_no(answer)} "
                     f"({CLUE_MEANING[c.clue]}: {yes_no(answer).lower()}).",
                     word=rec.word, clue=c.clue, answer=answer))
    if c.unexpected_sabotage:
        unexpected(state, seat, events)
    end_turn(state, events)


def apply_give_up(state: DecoderState, seat: int, c: GiveUp, events: list[Event]) -> None:
    me = state.seats[seat]
    rec = state.current
    assert rec is not None
    if c.insurance:
        me.items.hand_insurance -= 1
        rec.insurance = True
        events.append(ev("turn.insurance", PUBLIC,
                         f"{P(seat)} plays Hand Insurance and gives up no letter."))
    else:
        assert c.letter is not None
        state.reveal_tile(seat, c.letter)
        rec.gave_up = c.letter
        events.append(ev("turn.give_up", PUBLIC,
                         f"{P(seat)} gives up {c.letter} ({len(me.hand)} tile(s) left).",
                         seat=seat, letter=c.letter, tiles_left=len(me.hand)))
        if not me.hand:
            finish(state, 1 - seat, f"{P(seat)} gave up their last tile", events)
            return
    offer_compensation(state, 1 - seat, events)


def offer_compensation(state: DecoderState, receiver: int, events: list[Event]) -> None:
    """Compensation for being wrongly accused: a random qualifying letter, offered privately."""
    rec = state.current
    assert rec is not None
    them = state.seats[receiver]
    guesser = state.seats[1 - receiver]
    candidates = rules.compensation_letters(state.revealed, them.hand, guesser.setup_letters,
                                            guesser.hand)
    if not candidates:
        them.offers.append(Offer(turn=state.turn, letter=None, decided=True))
        tell(receiver, "swap.none",
             "Compensation: no letter qualifies, so no swap is offered this time.", events)
        events.append(ev("swap.none", UMPIRE, f"No compensation letter qualifies for {P(receiver)}."))
        after_action(state, events)
        return
    letter = state.chance.choice(candidates)
    them.offers.append(Offer(turn=state.turn, letter=letter))
    them.private_letters = sorted(set(them.private_letters) | {letter})
    tell(receiver, "swap.offer",
         f"Compensation: you may swap one of your letters ({render_letters(them.hand)}) "
         f"for {letter}, or decline.", events)
    events.append(ev("swap.offer", UMPIRE, f"{P(receiver)} is offered {letter} "
                     f"(from {len(candidates)} qualifying letters)."))
    events.append(ev("swap.pending", PUBLIC,
                     f"{P(receiver)} is shown a compensation letter in private and may swap."))
    state.step = "swap"


def apply_swap(state: DecoderState, seat: int, c: Swap, events: list[Event]) -> None:
    me = state.seats[seat]
    offer = me.offers[-1]
    assert offer.letter is not None
    offer.decided = True
    if c.give is not None:
        offer.gave = c.give
        me.hand[me.hand.index(c.give)] = offer.letter
        me.hand.sort()
        text = f"You swapped {c.give} for {offer.letter}. Your hand: {render_letters(me.hand)}."
    else:
        text = f"You kept your hand: {render_letters(me.hand)}."
    tell_and_log(seat, "swap.done", text, events)
    events.append(ev("swap.decided", PUBLIC, f"{P(seat)} has made their compensation decision."))
    if c.unexpected_sabotage:
        unexpected(state, seat, events)
    end_turn(state, events)


def apply_guess_total(state: DecoderState, seat: int, c: GuessTotal,
                      events: list[Event]) -> None:
    rec = state.current
    assert rec is not None and state.active is not None
    owner = state.seats[state.active]
    total = sum(t.units for t in owner.tanks if t.name in rec.restored)
    rec.total_guess = c.total
    rec.total_correct = c.total == total
    events.append(ev("turn.total", PUBLIC,
                     f"{P(seat)} guesses a total of {c.total}: "
                     + ("correct! They may sabotage a restored tank." if rec.total_correct
                        else "wrong."),
                     guess=c.total, correct=rec.total_correct))
    if c.unexpected_sabotage:
        unexpected(state, seat, events)
    if rec.total_correct:
        state.step = "sabotage_tank"
    else:
        end_turn(state, events)
