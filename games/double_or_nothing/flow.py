"""Applying moves: bouts, plays, draws, placements, the doubling die. Pure state changes that
append the events they cause; `checks` vets every move before it gets here, and `APPLY` is
the engine's table (one handler per command)."""

from __future__ import annotations

from games.core.contract import ApplyHandler, Audience, Command, Event, say
from games.double_or_nothing import rules
from games.double_or_nothing.commands import (
    Answer,
    AwardBout,
    ChooseStarter,
    Double,
    Draw,
    DrawJoker,
    Place,
    Play,
    PlayAt,
)
from games.double_or_nothing.feed import closing
from games.double_or_nothing.rules import JOKER, hand_line, render_set
from games.double_or_nothing.state import DoubleOrNothingState, Phase
from games.double_or_nothing.text import card_name, hand_text, p, plural, score_text, table_text

#: The decision kind pending in each phase (the quiet identical-set question aside).
KINDS = {Phase.STARTER: "choose_starter", Phase.TURN: "move", Phase.PLACE: "place",
         Phase.POSITION: "position", Phase.DOUBLE: "double_answer"}


def pending(state: DoubleOrNothingState) -> tuple[int, str] | None:
    """(seat, kind) of the one pending decision, without building its prompt."""
    kind = KINDS.get(state.phase)
    if kind is None:
        return None
    if state.phase == Phase.STARTER:
        return 0, kind
    return (1 - state.turn if state.phase == Phase.DOUBLE else state.turn), kind


def pending_kinds(state: DoubleOrNothingState, seat: int) -> set[str]:
    """The kinds of decision `seat` has pending: the main one and the quiet question."""
    now = pending(state)
    kinds = {now[1]} if now is not None and now[0] == seat else set()
    if state.which == seat and state.phase != Phase.OVER:
        kinds.add("position")
    return kinds


def bout_running(state: DoubleOrNothingState) -> bool:
    """Whether a bout runs (after bout 1's starter is chosen, before the end): hosts may
    award it."""
    return state.phase not in (Phase.STARTER, Phase.OVER)


def show_hand(state: DoubleOrNothingState, seat: int, ev: list[Event], note: str = "") -> None:
    hand = state.hands[seat]
    say(ev, "hand", (note + " " if note else "") + hand_text(seat, hand), Audience.to(seat),
        hand=list(hand))


def deal(state: DoubleOrNothingState, ev: list[Event]) -> None:
    """A new bout: fresh shuffle of the 40 cards, 17 each in a fixed order, 6 unused, jokers
    in front of each player; the stake goes back to 1."""
    s = state.settings
    cards = state.chance.shuffled(rules.deck())
    n = s.hand_size
    state.bout += 1
    state.hands = [cards[:n], cards[n:2 * n]]
    state.unused = cards[2 * n:]
    state.table, state.table_values, state.discard = [], [], []
    state.jokers = [s.jokers, s.jokers]
    state.stake, state.last_doubler = 1, None
    state.placing = None
    clear_which(state)
    state.first_move = True
    state.turn = state.starter
    ev.extend(bout_events(state))


def bout_events(state: DoubleOrNothingState) -> list[Event]:
    """The public announcement of a bout and each player's private hand."""
    s = state.settings
    ev: list[Event] = []
    starts = (f"{p(state.starter)} starts." if state.phase != Phase.STARTER
              else f"{p(0)} holds the advantage and chooses who starts.")
    crawford = (" Crawford bout: the doubling die cannot be used." if state.crawford else "")
    say(ev, "bout.start",
        f"Bout {state.bout}: {s.hand_size} cards dealt to each player in a fixed order, "
        f"{s.jokers} jokers in front of each; stake 1. Score: "
        f"{score_text(state.score, s.target)}. {starts}{crawford}",
        bout=state.bout, score=list(state.score), crawford=state.crawford)
    for seat in (0, 1):
        show_hand(state, seat, ev, note=f"Bout {state.bout}.")
    return ev


def choose_starter(state: DoubleOrNothingState, starter: int, ev: list[Event]) -> None:
    state.starter = state.turn = starter
    state.phase = Phase.TURN
    who = "themselves" if starter == 0 else p(1)
    say(ev, "starter", f"{p(0)} chooses {who} to start bout 1.", starter=starter)


def _next_turn(state: DoubleOrNothingState, seat: int, ev: list[Event]) -> None:
    state.turn = 1 - seat
    state.phase = Phase.TURN
    state.first_move = False
    begin_turn(state, ev)


def may_double(state: DoubleOrNothingState, seat: int) -> bool:
    s = state.settings
    return rules.may_double(seat=seat, stake=state.stake, max_stake=s.max_stake,
                            last_doubler=state.last_doubler, crawford=state.crawford)


def can_act(state: DoubleOrNothingState, seat: int) -> bool:
    """Whether `seat` has any legal action: a set that beats the table, a card to draw, a
    joker in front of them, or the right to double."""
    return bool(state.jokers[seat] > 0 or may_double(state, seat)
                or rules.draw_indices(state.table, state.table_values)
                or rules.plays(state.hands[seat], state.table_values))


def begin_turn(state: DoubleOrNothingState, ev: list[Event]) -> None:
    """The turn player's move begins: an identical-set answer they still owe takes its
    default now, and a player with no legal action passes automatically (house ruling)."""
    seat = state.turn
    if state.which == seat:
        resolve_which(state, seat, state.options[0], ev, answered=False)
    if not can_act(state, seat):
        auto_pass(state, seat, ev)


def play(state: DoubleOrNothingState, seat: int, start: int, length: int,
         ev: list[Event]) -> None:
    hand = state.hands[seat]
    cards = hand[start:start + length]
    value = rules.evaluate(cards)
    assert value is not None
    beaten = render_set(state.table, state.table_values) if state.table else ""
    state.discard.extend(state.table)
    state.table, state.table_values = list(cards), list(value.values)
    del hand[start:start + length]
    shown = render_set(cards)
    as_text = (f" (as {'-'.join(str(v) for v in value.values)})" if JOKER in cards else "")
    beat = f", beating {beaten} (discarded)" if beaten else ""
    say(ev, "play", f"{p(seat)} plays {shown}{as_text}{beat}. {p(seat)} has "
        f"{plural(len(hand), 'card')} left.", seat_played=seat, cards=list(cards),
        values=list(value.values), hand_size=len(hand))
    if not hand:
        win_bout(state, seat, "emptied their hand", ev)
        return
    show_hand(state, seat, ev)
    _next_turn(state, seat, ev)


def play_named(state: DoubleOrNothingState, seat: int, cards: list[str], found: list[int],
               ev: list[Event]) -> None:
    """Play the set named, held at the hand positions `found` (house ruling on identical
    sets): the room sees only the set and the opponent's turn starts at once, whatever the
    hand held. Only where the copies would leave different hands is the player asked,
    quietly in their table channel, which copy it was; until they answer, the leftmost."""
    k = len(cards)
    hand = state.hands[seat]
    if len({tuple(hand[:s] + hand[s + k:]) for s in found}) > 1:
        state.which, state.which_key = seat, f"don{state.serial}-which"
        state.which_hand, state.options, state.option_cards = list(hand), list(found), list(cards)
        n = len(cards)
        listed = " or ".join(f"'play {a + 1}..{a + n}'" if n > 1 else f"'play {a + 1}'"
                             for a in found)
        say(ev, "play.which", f"You held {render_set(cards)} more than once. Which did you play? "
            f"{listed} (positions in your hand before the play: {hand_line(hand)}). Until you "
            f"answer, and if you have not by your next move, the leftmost is taken.", Audience.to(seat),
            options=[a + 1 for a in found])
    play(state, seat, found[0], k, ev)


def resolve_which(state: DoubleOrNothingState, seat: int, start: int, ev: list[Event],
                  answered: bool = True) -> None:
    """The identical-set answer: the copy at `start` of the hand before the play was played."""
    k = len(state.option_cards)
    before = state.which_hand
    state.hands[seat] = before[:start] + before[start + k:]
    where = f"{start + 1}" if k == 1 else f"{start + 1}..{start + k}"
    shown = render_set(state.option_cards)
    clear_which(state)
    note = (f"Noted: you played the {shown} at position{'s' if k > 1 else ''} {where}."
            if answered else f"You did not say which {shown} you played: the leftmost "
            f"(position{'s' if k > 1 else ''} {where}) counts.")
    show_hand(state, seat, ev, note=note)


def clear_which(state: DoubleOrNothingState) -> None:
    state.which, state.which_key, state.which_hand = None, "", []
    state.options, state.option_cards = [], []


def draw(state: DoubleOrNothingState, seat: int, number: int, ev: list[Event]) -> None:
    index = next(i for i in rules.draw_indices(state.table, state.table_values)
                 if state.table[i] == str(number))
    card = state.table.pop(index)
    state.table_values.pop(index)
    front, back = rules.stranded_jokers(state.table, state.table_values)
    stranded = ""
    if front or back:
        end = len(state.table) - back
        gone = state.table[:front] + state.table[end:]
        state.discard.extend(gone)
        state.table, state.table_values = state.table[front:end], state.table_values[front:end]
        stranded = (f" The {plural(len(gone), 'joker')} left at the ends of the run "
                    f"{'are' if len(gone) > 1 else 'is'} discarded.")
    state.placing = card
    state.phase = Phase.PLACE
    state.first_move = False
    say(ev, "draw", f"{p(seat)} draws the {card} from the table.{stranded} Table: "
        f"{table_text(state.table, state.table_values)}. {p(seat)} now places it in their hand.",
        card=card, table=list(state.table), table_values=list(state.table_values))


def draw_joker(state: DoubleOrNothingState, seat: int, ev: list[Event]) -> None:
    state.jokers[seat] -= 1
    state.placing = JOKER
    state.phase = Phase.PLACE
    state.first_move = False
    say(ev, "joker", f"{p(seat)} draws one of their jokers ({state.jokers[seat]} left in front "
        f"of them) and now places it in their hand.", jokers=list(state.jokers))


def place(state: DoubleOrNothingState, seat: int, position: int, ev: list[Event]) -> None:
    card = state.placing
    assert card is not None
    hand = state.hands[seat]
    hand.insert(position, card)
    state.placing = None
    say(ev, "place", f"{p(seat)} has placed {card_name(card)} in their hand "
        f"({plural(len(hand), 'card')}).", hand_size=len(hand))
    show_hand(state, seat, ev, note=f"You placed {card_name(card)} at position {position + 1}.")
    _next_turn(state, seat, ev)


def propose_double(state: DoubleOrNothingState, seat: int, ev: list[Event]) -> None:
    state.phase = Phase.DOUBLE
    state.first_move = False
    say(ev, "double", f"{p(seat)} proposes a double: {p(1 - seat)} accepts (the bout is then "
        f"worth {state.stake * 2}) or forfeits the bout (worth {state.stake}).",
        stake=state.stake)
    show_hand(state, seat, ev)


def answer_double(state: DoubleOrNothingState, seat: int, accept: bool, ev: list[Event]) -> None:
    proposer = 1 - seat
    if not accept:
        say(ev, "double.forfeit", f"{p(seat)} forfeits the bout.")
        win_bout(state, proposer, "the double was declined", ev)
        return
    state.stake *= 2
    state.last_doubler = proposer
    state.turn = seat
    state.phase = Phase.TURN
    say(ev, "double.accept", f"{p(seat)} accepts: the bout is now worth {state.stake}. Only "
        f"{p(seat)} may propose the next double. {p(seat)} moves.", stake=state.stake)
    show_hand(state, seat, ev)
    begin_turn(state, ev)


def auto_pass(state: DoubleOrNothingState, seat: int, ev: list[Event]) -> None:
    """No legal action (house ruling): the bot passes for the player; the table set is
    discarded and the opponent starts on the empty table (where any set can be played)."""
    gone = render_set(state.table, state.table_values)
    state.discard.extend(state.table)
    state.table, state.table_values = [], []
    say(ev, "pass", f"{p(seat)} cannot move (no set of theirs beats the table, nothing can be "
        f"drawn from it, no joker is left in front of them and the die is out of reach), so "
        f"the bot passes for them: the table set {gone} is discarded and {p(1 - seat)} starts "
        f"again on the empty table.", reveals=seat)
    state.turn = 1 - seat
    begin_turn(state, ev)


def win_bout(state: DoubleOrNothingState, winner: int, how: str, ev: list[Event]) -> None:
    s = state.settings
    before = state.score[winner]
    state.score[winner] += state.stake
    state.bout_winners.append(winner)
    state.bout_ends.append(closing(state))
    won = state.stake
    state.placing = None
    clear_which(state)
    say(ev, "bout.end", f"{p(winner)} wins bout {state.bout} ({how}) and scores "
        f"{plural(won, 'bout win')}. Score: {score_text(state.score, s.target)}.",
        winner=winner, stake=won, score=list(state.score))
    if state.score[winner] >= s.target:
        state.phase = Phase.OVER
        state.winner = winner
        state.reason = (f"{p(winner)} reached {state.score[winner]} bout wins "
                        f"({state.score[0]}-{state.score[1]})")
        say(ev, "match.end", f"{p(winner)} wins the match {state.score[winner]}-"
            f"{state.score[1 - winner]}.", winner=winner, score=list(state.score))
        return
    state.crawford = s.crawford and rules.crawford_next(before, state.score[winner], s.target)
    state.starter = 1 - winner  # the loser of the bout starts the next one
    state.phase = Phase.TURN
    deal(state, ev)


# --- the engine's tables -------------------------------------------------------------------------
def apply_choose_starter(state: DoubleOrNothingState, seat: int, c: ChooseStarter,
                         ev: list[Event]) -> None:
    choose_starter(state, c.starter, ev)


def apply_play(state: DoubleOrNothingState, seat: int, c: Play, ev: list[Event]) -> None:
    cards = list(c.cards)
    play_named(state, seat, cards, rules.windows(state.hands[seat], cards), ev)


def apply_play_at(state: DoubleOrNothingState, seat: int, c: PlayAt, ev: list[Event]) -> None:
    resolve_which(state, seat, c.start, ev)


def apply_draw(state: DoubleOrNothingState, seat: int, c: Draw, ev: list[Event]) -> None:
    draw(state, seat, c.number, ev)


def apply_draw_joker(state: DoubleOrNothingState, seat: int, c: DrawJoker,
                     ev: list[Event]) -> None:
    draw_joker(state, seat, ev)


def apply_place(state: DoubleOrNothingState, seat: int, c: Place, ev: list[Event]) -> None:
    place(state, seat, c.position, ev)


def apply_double(state: DoubleOrNothingState, seat: int, c: Double, ev: list[Event]) -> None:
    propose_double(state, seat, ev)


def apply_answer(state: DoubleOrNothingState, seat: int, c: Answer, ev: list[Event]) -> None:
    answer_double(state, seat, c.accept, ev)


def apply_award_bout(state: DoubleOrNothingState, seat: int, c: AwardBout,
                     ev: list[Event]) -> None:
    say(ev, "bout.awarded", f"The hosts award bout {state.bout} to {{P{seat}}}: {c.reason}.")
    win_bout(state, seat, "awarded by the hosts", ev)


def next_decision(apply: ApplyHandler) -> ApplyHandler:
    """`apply`, then a new key for the decision that follows (its prompt and clock are new)."""
    def apply_then_advance(state: DoubleOrNothingState, seat: int, c: Command,
                           ev: list[Event]) -> None:
        apply(state, seat, c, ev)
        state.serial += 1
    return apply_then_advance


APPLY: dict[str, ApplyHandler] = {
    "choose_starter": next_decision(apply_choose_starter),
    "play": next_decision(apply_play),
    # The quiet answer leaves every other decision (and its prompt key, its clock) as it was.
    "play_at": apply_play_at,
    "draw": next_decision(apply_draw),
    "draw_joker": next_decision(apply_draw_joker),
    "place": next_decision(apply_place),
    "double": next_decision(apply_double),
    "answer": next_decision(apply_answer),
    "award_bout": next_decision(apply_award_bout),
}
