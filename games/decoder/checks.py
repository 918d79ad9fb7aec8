"""Legality: whether a seat may make a command now, with the reason in a player's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.core.contract import Command, IllegalMove
from games.decoder import rules
from games.decoder.commands import (
    ChooseClue,
    ChooseHand,
    ChooseRarities,
    GiveUp,
    GuessTotal,
    RaiseTime,
    Ready,
    SabotageTank,
    Swap,
    TakeTurn,
    UnexpectedSabotage,
)
from games.decoder.events import P
from games.decoder.letters import ALPHABET, HAND_SIZE, render_letters
from games.decoder.prompts import pending
from games.decoder.state import DecoderState, SeatState
from games.decoder.wordlist import MAX_LENGTH, MIN_LENGTH, load_words

# Which command answers which prompt kind.
KIND_COMMANDS: dict[str, tuple[type[Command], ...]] = {
    "tune": (RaiseTime, Ready),
    "rarity": (ChooseRarities,),
    "hand": (ChooseHand,),
    "turn": (TakeTurn,),
    "give_up": (GiveUp,),
    "clue": (ChooseClue,),
    "swap": (Swap,),
    "guess_total": (GuessTotal,),
    "sabotage_tank": (SabotageTank,),
    "sabotage_option": (UnexpectedSabotage,),
}


def pending_kinds(state: DecoderState, seat: int) -> set[str]:
    """The kind of the seat's one pending decision (none, or one)."""
    prompt = pending(state, seat)
    return set() if prompt is None else {prompt.kind}


def refusal(state: DecoderState, seat: int) -> str:
    """Why a command out of its decision is refused: who is awaited, or what is asked."""
    prompt = pending(state, seat)
    return waiting_text(state, seat) if prompt is None else f"Not now: {prompt.text}"


def check_setup_time(state: DecoderState, seat: int, c: Command) -> None:
    """A setup choice that arrives after the seat's setup time ran out is not taken."""
    prompt = pending(state, seat)
    assert prompt is not None
    if c.elapsed is not None and c.elapsed > (prompt.time_limit or 0.0):
        raise IllegalMove(f"Your setup time ran out before this choice arrived, so it is not "
                          f"taken: {prompt.timeout_text}.")


def waiting_text(state: DecoderState, seat: int) -> str:
    if state.phase == "tuning":
        return "Your times are locked; waiting for the other player."
    if state.phase == "selection":
        return "Your hand is chosen; waiting for the other player."
    if state.active is not None and state.active != seat and state.step == "turn":
        return "It is the other player's turn; wait for it."
    return "Nothing is pending for you now."


def check_raise_time(state: DecoderState, seat: int, c: RaiseTime) -> None:
    """Any whole number of seconds from the official time up to the maximum, raised or lowered
    as often as the player likes until setup is locked."""
    me = state.seats[seat]
    tank = me.tank(c.puzzle)
    if tank is None:
        raise IllegalMove(f"No puzzle named {c.puzzle}. Puzzles: {', '.join(state.settings.puzzles)}.")
    cap = state.settings.max_seconds
    low = tank.official if tank.official is not None else tank.seconds
    if not low <= c.seconds <= cap:
        raise IllegalMove(f"{tank.name} can be set from its official {low} s up to {cap} s "
                          f"(whole seconds); it is {tank.seconds} s now.")


def check_ready(state: DecoderState, seat: int, c: Ready) -> None:
    me = state.seats[seat]
    if me.ready:
        raise IllegalMove("You have already said ready; you may still change your times until "
                          "setup is locked.")


def check_choose_rarities(state: DecoderState, seat: int, c: ChooseRarities) -> None:
    me = state.seats[seat]
    check_setup_time(state, seat, c)
    split = (c.common, c.uncommon, c.rare)
    options = rules.rarity_options(me.extra_count)
    if split not in options:
        raise IllegalMove(
            f"Choose exactly {me.extra_count} extra tile(s), at most 3 common, 3 uncommon and "
            f"1 rare: " + "; ".join(rules.describe_rarities(o) for o in options) + ".")


def check_choose_hand(state: DecoderState, seat: int, c: ChooseHand) -> None:
    me = state.seats[seat]
    check_setup_time(state, seat, c)
    tiles = me.setup_letters
    if len(c.letters) != HAND_SIZE or len(set(c.letters)) != HAND_SIZE:
        raise IllegalMove(f"Keep exactly {HAND_SIZE} different tiles of yours: {render_letters(tiles)}.")
    missing = [ch for ch in c.letters if ch not in tiles]
    if missing:
        raise IllegalMove(f"You do not have {', '.join(missing)}; your tiles: {render_letters(tiles)}.")


def check_take_turn(state: DecoderState, seat: int, c: TakeTurn) -> None:
    me = state.seats[seat]
    tank = me.tank(c.tank)
    unused = me.unused()
    names = ", ".join(t.name for t in unused)
    if tank is None:
        raise IllegalMove(f"You have no tank named {c.tank}. Unused tanks: {names}.")
    if tank.used:
        raise IllegalMove(f"{tank.name} is used up until you restore. Unused tanks: {names}.")
    if len(unused) == 1 and c.action != "restore":
        raise IllegalMove(f"{tank.name} is your last unused tank: you must use it to restore "
                          f"(`use {tank.name} restore`).")
    if c.power_surge and me.items.power_surge < 1:
        raise IllegalMove("You have no Power Surge.")
    if c.new_evidence and c.action != "ask":
        raise IllegalMove("New Evidence is played when asking a word.")
    if c.action == "ask":
        if c.new_evidence and me.items.new_evidence < 1:
            raise IllegalMove("You have no New Evidence.")
        check_word(state, c.word)
        if c.exclude not in rules.CLUES:
            raise IllegalMove("Say which clue you do not want: `not ANY`, `not ODD` or `not TWO`.")
        if c.letter is not None:
            raise IllegalMove("Ask a word or guess a letter, not both.")
    elif c.action == "guess":
        if c.letter is None or len(c.letter) != 1 or c.letter not in ALPHABET:
            raise IllegalMove("Guess one letter A-Z: `use <tank> guess <letter>`.")
        if c.word is not None or c.exclude is not None:
            raise IllegalMove("Guess a letter or ask a word, not both.")
    elif c.word is not None or c.letter is not None or c.exclude is not None:
        raise IllegalMove("Restoring takes no word or letter: `use <tank> restore`.")


def check_word(state: DecoderState, word: str | None) -> None:
    if not word:
        raise IllegalMove("Name the word you ask: `use <tank> ask <word> not <clue>`.")
    w = word.upper()
    if not (w.isascii() and w.isalpha()):
        raise IllegalMove(f"{word} is not a word: letters A-Z only.")
    if not MIN_LENGTH <= len(w) <= MAX_LENGTH:
        raise IllegalMove(f"{w} has {len(w)} letters; a word must have {MIN_LENGTH} to "
                          f"{MAX_LENGTH} letters.")
    if w in state.used_words:
        raise IllegalMove(f"{w} was already asked in this match; choose another word.")
    if w not in load_words(state.settings.word_list):
        raise IllegalMove(f"{w} is not in the word list.")


def check_give_up(state: DecoderState, seat: int, c: GiveUp) -> None:
    me = state.seats[seat]
    if c.insurance:
        if c.letter is not None:
            raise IllegalMove("Give up a letter or play Hand Insurance, not both.")
        if me.items.hand_insurance < 1:
            raise IllegalMove("You have no Hand Insurance; give up one of your letters.")
        return
    if c.letter is None or c.letter not in me.hand:
        # Said in the room: never list the hand here (your table channel shows it).
        named = f"{c.letter} is not one of your letters" if c.letter else "Name a letter"
        raise IllegalMove(f"{named}: give up one of your own letters (`give up <letter>`; "
                          f"your hand is in your table channel).")


def check_choose_clue(state: DecoderState, seat: int, c: ChooseClue) -> None:
    me = state.seats[seat]
    cur = state.current
    assert cur is not None and cur.exclude is not None
    a, b = rules.offered_clues(cur.exclude)
    if c.clue not in (a, b):
        raise IllegalMove(f"The asker refused {cur.exclude}: answer `{a}` or `{b}`.")
    check_us(me, c.unexpected_sabotage)


def check_swap(state: DecoderState, seat: int, c: Swap) -> None:
    me = state.seats[seat]
    if c.give is not None and c.give not in me.hand:
        raise IllegalMove(f"Swap one of your letters ({render_letters(me.hand)}) or say `no swap`.")
    check_us(me, c.unexpected_sabotage)


def check_guess_total(state: DecoderState, seat: int, c: GuessTotal) -> None:
    me = state.seats[seat]
    if not 0 <= c.total <= 999:
        raise IllegalMove("Guess the total as a whole number of units, e.g. `guess 17`.")
    check_us(me, c.unexpected_sabotage)


def check_sabotage_tank(state: DecoderState, seat: int, c: SabotageTank) -> None:
    cur = state.current
    assert cur is not None
    if c.tank not in cur.restored:
        raise IllegalMove(f"Choose one of the restored tanks: {', '.join(cur.restored)}.")


def check_unexpected_sabotage(state: DecoderState, seat: int, c: UnexpectedSabotage) -> None:
    me = state.seats[seat]
    check_us(me, c.use)


def check_us(me: SeatState, wanted: bool) -> None:
    """Unexpected Sabotage may ride on a response only if the responder holds one."""
    if wanted and me.items.unexpected_sabotage < 1:
        raise IllegalMove("You have no Unexpected Sabotage.")


def hopeless_guess(state: DecoderState, seat: int, command: TakeTurn) -> str | None:
    """A guessed letter that cannot be in the opponent's hand: one already revealed, or one in
    the guesser's own hand (each letter exists once). Such a guess is legal and always wrong;
    the guesser is told so privately before it is taken, and it stands (the ruling)."""
    if command.action != "guess" or not command.letter:
        return None
    letter = command.letter.upper()
    opponent = P(1 - seat)
    if letter in state.seats[seat].hand:
        why = "it is in your own hand, and each letter exists once"
    elif letter in state.revealed:
        why = "it was already revealed"
    else:
        return None
    return (f"{letter} cannot be in {opponent}'s hand ({why}), so this guess will be "
            "wrong. It stands unless you fix it in time.")


# The advice on each command type's legal moves (`Game.advices`).
ADVICES: dict[str, Callable[[DecoderState, int, Any], str | None]] = {
    "take_turn": hopeless_guess,
}


# The check for each command type (the prompt kind has already been matched).
CHECKS: dict[str, Callable[[DecoderState, int, Any], None]] = {
    "raise_time": check_raise_time,
    "ready": check_ready,
    "choose_rarities": check_choose_rarities,
    "choose_hand": check_choose_hand,
    "take_turn": check_take_turn,
    "give_up": check_give_up,
    "choose_clue": check_choose_clue,
    "swap": check_swap,
    "guess_total": check_guess_total,
    "sabotage_tank": check_sabotage_tank,
    "unexpected_sabotage": check_unexpected_sabotage,
}
