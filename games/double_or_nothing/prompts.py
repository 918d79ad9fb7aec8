"""The decisions pending in Double or Nothing: who decides what now, with the text, clock and
ready-made choices of each prompt (the quiet identical-set question last)."""

from __future__ import annotations

from games.core.contract import OnTimeout, Prompt
from games.core.starter import choose_starter_prompt
from games.double_or_nothing import flow, rules
from games.double_or_nothing.rules import JOKER, hand_line, render_set
from games.double_or_nothing.settings import reminders_for
from games.double_or_nothing.state import DoubleOrNothingState, Phase
from games.double_or_nothing.text import p, table_text

MAX_CHOICES = 25


def prompts(state: DoubleOrNothingState) -> list[Prompt]:
    main = main_prompts(state)
    if state.which is not None and state.phase != Phase.OVER:
        main.append(which_prompt(state, state.which))  # quiet prompts come last
    return main


def which_prompt(state: DoubleOrNothingState, seat: int) -> Prompt:
    """Which of the identical sets was played: asked only of a hand that held it in
    places that leave different hands, so the question is quiet (its existence is the
    seat's secret) and untimed (due before the seat's next move, then the leftmost)."""
    n = len(state.option_cards)
    ranges = tuple(f"play {a + 1}..{a + n}" if n > 1 else f"play {a + 1}"
                   for a in state.options)
    return Prompt(
        key=state.which_key, seat=seat, kind="position", private=True, quiet=True,
        text=(f"You held {render_set(state.option_cards)} more than once: which did you "
              f"play? {' or '.join(repr(r) for r in ranges)} (positions in your hand "
              f"before the play: {hand_line(state.which_hand)}). If you have not answered "
              f"by your next move, the leftmost counts."),
        on_timeout=OnTimeout.NOTHING, choices=ranges[:MAX_CHOICES])


def main_prompts(state: DoubleOrNothingState) -> list[Prompt]:
    s = state.settings
    k = f"don{state.serial}"
    seat = state.turn
    move = s.first_move_seconds if state.first_move else s.move_seconds
    nothing = "going over the time limit has no penalty; the hosts are told."
    if state.phase == Phase.STARTER:
        return [choose_starter_prompt(
            f"{k}-starter", unit="bout", then="Your hand is in your table channel.",
            seconds=s.starter_seconds, reminders=reminders_for(s.starter_seconds),
            timeout_text=nothing, on_timeout=OnTimeout.NOTHING)]
    if state.phase == Phase.TURN:
        return [Prompt(
            key=f"{k}-move", seat=seat, kind="move", private=False,
            text=move_text(state, seat), brief=move_brief(state, seat), time_limit=move,
            reminders=reminders_for(move), on_timeout=OnTimeout.NOTHING,
            timeout_text=nothing, choices=move_choices(state, seat))]
    if state.phase == Phase.PLACE:
        hand = state.hands[seat]
        card = state.placing or ""
        positions = len(hand) + 1
        return [Prompt(
            key=f"{k}-place", seat=seat, kind="place", private=True,
            text=(f"Where does {'the joker' if card == JOKER else 'the ' + card} go? Type "
                  f"'at N' for position N (1 = front, {positions} = end). Your hand: "
                  f"{hand_line(hand)}."),
            time_limit=s.move_seconds, reminders=reminders_for(s.move_seconds),
            on_timeout=OnTimeout.NOTHING, timeout_text=nothing,
            choices=tuple(f"at {i}" for i in range(1, positions + 1))
            if positions <= MAX_CHOICES else ())]
    if state.phase == Phase.DOUBLE:
        other = 1 - seat
        return [Prompt(
            key=f"{k}-answer", seat=other, kind="double_answer", private=False,
            text=(f"{p(seat)} proposes a double. 'accept': the bout is worth "
                  f"{state.stake * 2} and it is your move; 'forfeit': {p(seat)} wins the "
                  f"bout now, worth {state.stake}."),
            time_limit=s.move_seconds, reminders=reminders_for(s.move_seconds),
            on_timeout=OnTimeout.NOTHING, timeout_text=nothing,
            choices=("accept", "forfeit"))]
    return []


def move_brief(state: DoubleOrNothingState, seat: int) -> str:
    """The move prompt in a few words, once the player has had it in full."""
    opts = ["play …"]
    numbers = rules.drawable_numbers(state.table, state.table_values)
    if numbers:
        opts.append("draw " + "/".join(str(n) for n in numbers))
    if state.jokers[seat]:
        opts.append(f"joker ({state.jokers[seat]} left)")
    if flow.may_double(state, seat):
        opts.append(f"double (→ {state.stake * 2})")
    return (f"bout {state.bout}, stake {state.stake}. Table: "
            f"{table_text(state.table, state.table_values)}. Hands: {p(0)} "
            f"{len(state.hands[0])}, {p(1)} {len(state.hands[1])}. {' | '.join(opts)}.")


def move_choices(state: DoubleOrNothingState, seat: int) -> tuple[str, ...]:
    out = [f"draw {n}" for n in rules.drawable_numbers(state.table, state.table_values)]
    if state.jokers[seat] > 0:
        out.append("joker")
    may_double = flow.may_double(state, seat)
    if may_double:
        out.append("double")
    return tuple(out)


def move_text(state: DoubleOrNothingState, seat: int) -> str:
    opts = ["play a set that beats it by naming its cards in hand order (e.g. 'play 5 6 7', "
            "jokers as J)"]
    numbers = rules.drawable_numbers(state.table, state.table_values)
    if numbers:
        opts.append("draw " + " or ".join(f"'draw {n}'" for n in numbers))
    if state.jokers[seat]:
        opts.append(f"'joker' to draw one of your jokers ({state.jokers[seat]} left)")
    may_double = flow.may_double(state, seat)
    if may_double:
        opts.append(f"'double' (the bout would be worth {state.stake * 2})")
    return (f"Your move (bout {state.bout}, stake {state.stake}). Table: "
            f"{table_text(state.table, state.table_values)}. Hands: {p(0)} "
            f"{len(state.hands[0])}, {p(1)} {len(state.hands[1])} cards. You may "
            f"{'; '.join(opts)}.")
