"""Setup, second part: letter selection. Extra tiles are earned by comparing tanks, tiles
dealt, extra tiles taken by the chosen rarities, hands kept; then the first turn begins."""

from __future__ import annotations

from games.core.contract import Event
from games.decoder import rules
from games.decoder.commands import ChooseHand, ChooseRarities
from games.decoder.events import PUBLIC, UMPIRE, P, ev, tell, tell_and_log
from games.decoder.letters import (
    EXTRA_CAP,
    HAND_SIZE,
    INITIAL,
    RARITIES,
    RARITY_ORDER,
    render_letters,
)
from games.decoder.state import DecoderState
from games.decoder.text import extra_token, seconds_text, tank_token, timers_text


def start_selection(state: DecoderState, events: list[Event]) -> None:
    """Compare the tanks, then deal every tile at once: each rarity is shuffled and cut into
    each seat's initial tiles and the letters set aside for its extra tiles (the caps use the
    whole alphabet: 3+3 common, 2+3 uncommon, 1+1 rare per seat). So every tile is random, no
    tile goes to both players, and one player's choices never change the other's tiles.

    Both players then go through the same steps (rarities, then hand), whether or not they
    earned an extra tile: the opponent cannot tell from prompts, events or timing."""
    state.phase = "selection"
    a, b = state.seats
    for me, them in ((a, b), (b, a)):
        for mine, theirs in zip(me.tanks, them.tanks, strict=True):
            mine.extra_tile = rules.earns_extra_tile(mine.units, theirs.units)
        me.extra_count = sum(t.extra_tile for t in me.tanks)
    for rarity in RARITY_ORDER:
        deck = state.chance.shuffled(RARITIES[rarity])
        for me in state.seats:
            me.initial += deck[:INITIAL[rarity]]
            del deck[:INITIAL[rarity]]
            me.reserve[rarity] = deck[:EXTRA_CAP[rarity]]
            del deck[:EXTRA_CAP[rarity]]
    events.append(ev("setup.selection", PUBLIC,
                     f"Puzzle times are locked. Letter selection begins "
                     f"({seconds_text(state.settings.setup_time)} each): both players choose the "
                     f"rarities of any extra tiles, then their hand of {HAND_SIZE}."))
    for seat, me in enumerate(state.seats):
        me.initial.sort()
        me.private_letters = sorted(set(me.private_letters) | set(me.initial))
        earned = [extra_token(t.name) for t in me.tanks if t.extra_tile]
        text = ("Your tanks: " + "; ".join(tank_token(seat, t.name, t.units) for t in me.tanks) + ". "
                + (f"You earned {len(earned)} extra tile(s): " + ", ".join(earned) + ". "
                   if earned else "You earned no extra tiles. ")
                + f"Your initial tiles: {render_letters(me.initial)}.")
        tell_and_log(seat, "setup.deal", text, events)


def apply_choose_rarities(state: DecoderState, seat: int, c: ChooseRarities,
                          events: list[Event]) -> None:
    me = state.seats[seat]
    me.rarities = (c.common, c.uncommon, c.rare)
    extras: list[str] = []
    for rarity, n in zip(RARITY_ORDER, me.rarities, strict=True):
        extras += me.reserve.get(rarity, [])[:n]
    me.extras = sorted(extras)
    me.private_letters = sorted(set(me.private_letters) | set(extras))
    if me.extra_count:
        text = (f"Extra tiles ({rules.describe_rarities(me.rarities)}): "
                f"{render_letters(me.extras)}. All your tiles: {render_letters(me.setup_letters)}.")
    else:
        text = f"No extra tiles. Your tiles: {render_letters(me.setup_letters)}."
    tell_and_log(seat, "setup.extras", text, events)  # nothing public: see maybe_start_play


def apply_choose_hand(state: DecoderState, seat: int, c: ChooseHand,
                      events: list[Event]) -> None:
    set_hand(state, seat, list(c.letters), events)
    maybe_start_play(state, events)


def set_hand(state: DecoderState, seat: int, letters: list[str], events: list[Event]) -> None:
    me = state.seats[seat]
    me.hand = sorted(letters)
    me.hand_chosen = True
    tell(seat, "setup.hand", f"Your hand: {render_letters(me.hand)}.", events)
    events.append(ev("setup.hand", UMPIRE, f"{P(seat)}'s hand: {render_letters(me.hand)}."))


def maybe_start_play(state: DecoderState, events: list[Event]) -> None:
    """Once both hands are chosen (each by its player or by the setup clock's default), seat 0
    makes the first turn. This is the only thing the room learns of letter selection (house
    ruling): no step of either player is announced, so neither timing nor messages tell the
    opponent whether a player earned extra tiles or what they chose."""
    if state.phase != "selection" or not all(s.hand_chosen for s in state.seats):
        return
    state.phase = "play"
    state.turn = 1
    state.active = 0
    state.step = "turn"
    events.append(ev("play.start", PUBLIC,
                     f"Setup is over: the match begins. {P(0)} makes the first turn."))
    events.append(ev("play.timers", UMPIRE, timers_text(state)))
