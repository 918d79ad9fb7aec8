"""The active player's turn: the tank used (and Power Surge), then the action it pays for:
ask a word (with or without New Evidence), guess a letter, or restore the used tanks."""

from __future__ import annotations

from games.core.contract import Audience, Event
from games.decoder import rules
from games.decoder.commands import TakeTurn
from games.decoder.events import PUBLIC, P, ev
from games.decoder.flow import after_action
from games.decoder.outcome import finish
from games.decoder.state import ClueAnswer, DecoderState, Tank, TurnRecord
from games.decoder.text import tanks_status_text, yes_no


def apply_take_turn(state: DecoderState, seat: int, c: TakeTurn, events: list[Event]) -> None:
    me = state.seats[seat]
    tank = me.tank(c.tank)
    assert tank is not None
    rec = TurnRecord(number=state.turn, seat=seat, tank=tank.name, action=c.action,
                     power_surge=c.power_surge)
    state.history.append(rec)
    state.last_mover = seat
    if c.power_surge:
        me.items.power_surge -= 1
    if c.action == "restore":
        restored = [t for t in me.tanks if t.used and t.name != tank.name]
        for t in restored:
            t.used = False
        rec.restored = [t.name for t in restored]
    if not c.power_surge:
        tank.used = True
    me.timer = tank.units
    me.fills[state.turn] = tank.units
    # The owner's running display of their tanks (issue 6): private, after every turn.
    events.append(ev("tanks.status", Audience.to(seat), tanks_status_text(state, seat),
                     seat=seat, turn=state.turn))
    surge = " with Power Surge (the tank stays available)" if c.power_surge else ""
    head = f"{P(seat)} uses {tank.name}{surge}"
    if c.action == "ask":
        _ask(state, seat, tank, c, rec, head, events)
    elif c.action == "guess":
        _guess(state, seat, tank, c, rec, head, events)
    else:
        _restore(state, seat, tank, rec, head, events)


def _ask(state: DecoderState, seat: int, tank: Tank, c: TakeTurn, rec: TurnRecord, head: str,
         events: list[Event]) -> None:
    """With New Evidence both offered clues are answered at once; else the opponent picks one."""
    assert c.word is not None and c.exclude is not None
    me = state.seats[seat]
    word = c.word.upper()
    rec.word, rec.exclude, rec.new_evidence = word, c.exclude, c.new_evidence
    state.used_words.append(word)
    if c.new_evidence:
        me.items.new_evidence -= 1
        count = rules.clue_count(word, state.seats[1 - seat].hand)
        for clue in rules.offered_clues(c.exclude):
            rec.answers.append(ClueAnswer(clue=clue, answer=rules.clue_answer(clue, count)))
        answers = ", ".join(f"{a.clue}: {yes_no(a.answer)}" for a in rec.answers)
        events.append(ev("turn.ask", PUBLIC,
                         f"{head} and asks {word}, refusing {c.exclude}, with New Evidence. "
                         f"Answers for {P(1 - seat)}'s hand: {answers}.",
                         turn=state.turn, seat=seat, tank=tank.name, word=word,
                         exclude=c.exclude, answers=[a.model_dump() for a in rec.answers]))
        after_action(state, events)
    else:
        a, b = rules.offered_clues(c.exclude)
        events.append(ev("turn.ask", PUBLIC,
                         f"{head} and asks {word}, refusing {c.exclude}. "
                         f"{P(1 - seat)} chooses {a} or {b}.",
                         turn=state.turn, seat=seat, tank=tank.name, word=word,
                         exclude=c.exclude))
        state.step = "clue"


def _guess(state: DecoderState, seat: int, tank: Tank, c: TakeTurn, rec: TurnRecord, head: str,
           events: list[Event]) -> None:
    """A right guess takes the tile (the last one wins); a wrong one costs the guesser a letter."""
    assert c.letter is not None
    them = state.seats[1 - seat]
    rec.letter = c.letter
    state.mark_named(c.letter)
    if c.letter in them.hand:
        rec.correct = True
        state.reveal_tile(1 - seat, c.letter)
        events.append(ev("turn.guess", PUBLIC,
                         f"{head} and guesses {c.letter}: correct! {P(1 - seat)} loses "
                         f"{c.letter} ({len(them.hand)} tile(s) left).",
                         turn=state.turn, seat=seat, tank=tank.name, letter=c.letter,
                         correct=True, tiles_left=len(them.hand)))
        if not them.hand:
            finish(state, seat, f"{P(seat)} guessed {P(1 - seat)}'s last tile", events)
            return
        after_action(state, events)
    else:
        rec.correct = False
        events.append(ev("turn.guess", PUBLIC,
                         f"{head} and guesses {c.letter}: wrong. {P(seat)} must give up "
                         f"a letter (or play Hand Insurance).",
                         turn=state.turn, seat=seat, tank=tank.name, letter=c.letter,
                         correct=False))
        state.step = "give_up"


def _restore(state: DecoderState, seat: int, tank: Tank, rec: TurnRecord, head: str,
             events: list[Event]) -> None:
    """The used tanks are already unmarked; the opponent may guess their total if there were any."""
    if rec.restored:
        events.append(ev("turn.restore", PUBLIC,
                         f"{head} and restores {', '.join(rec.restored)}. "
                         f"{P(1 - seat)} may guess their total recharge time.",
                         turn=state.turn, seat=seat, tank=tank.name, restored=rec.restored))
        state.step = "guess_total"
    else:
        events.append(ev("turn.restore", PUBLIC,
                         f"{head} and restores: no tank was used, so nothing is restored.",
                         turn=state.turn, seat=seat, tank=tank.name, restored=[]))
        after_action(state, events)

