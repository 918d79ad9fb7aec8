"""Building Double or Nothing positions for the tests, through the public API where it
matters."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.core.contract import Event, Prompt
from games.double_or_nothing import GAME
from games.double_or_nothing.rules import JOKER, deck
from games.double_or_nothing.settings import DoubleOrNothingSettings
from games.double_or_nothing.state import DoubleOrNothingState, Phase


def new(seed: str = "test", **settings: object) -> DoubleOrNothingState:
    return GAME.setup(DoubleOrNothingSettings(**settings), seed)  # type: ignore[arg-type]


def say(state: DoubleOrNothingState, seat: int, text: str) -> list[Event]:
    """What a player typed: parse, check, apply, then the invariants."""
    command = GAME.parse(state, seat, text)
    events = GAME.submit(state, seat, command)
    GAME.invariants(state)
    return events


def refusal(state: DoubleOrNothingState, seat: int, text: str) -> str:
    """The message a refused input gets (fails the test if it is accepted)."""
    from games.core.contract import IllegalMove, ParseError

    before = state.model_dump_json()
    try:
        GAME.check(state, seat, GAME.parse(state, seat, text))
    except (IllegalMove, ParseError) as exc:
        assert state.model_dump_json() == before
        return str(exc)
    raise AssertionError(f"{text!r} was accepted")


def arrange(state: DoubleOrNothingState, hands: Sequence[Sequence[str]], *,
            table: Sequence[str] = (), values: Sequence[int] | None = None, turn: int = 0,
            score: Sequence[int] | None = None) -> DoubleOrNothingState:
    """A bout in progress: these hands and table set, `turn` to move; the other number cards
    fill the unused pile and the discard, jokers not in a hand or on the table stay in front
    of their player (cards stay conserved, so the invariants hold)."""
    hands = [list(h) for h in hands]
    rest = Counter(deck())
    for card in [*hands[0], *hands[1], *table]:
        if card != JOKER:
            rest[card] -= 1
            assert rest[card] >= 0, f"more than four {card}s"
    pile = sorted(rest.elements(), key=int)
    unused_size = len(deck()) - 2 * state.settings.hand_size
    state.unused, state.discard = pile[:unused_size], pile[unused_size:]
    state.hands = hands
    state.table = list(table)
    state.table_values = list(values) if values is not None else [int(c) for c in table]
    in_play = [h.count(JOKER) for h in hands]
    table_jokers = list(table).count(JOKER)
    state.jokers = [state.settings.jokers - in_play[0] - table_jokers,
                    state.settings.jokers - in_play[1]]
    state.turn = turn
    state.phase = Phase.TURN
    state.first_move = False
    if score is not None:
        state.score = list(score)
    GAME.invariants(state)
    return state


def prompt_of(state: DoubleOrNothingState, seat: int) -> Prompt:
    [prompt] = [p for p in GAME.prompts(state) if p.seat == seat]
    return prompt


def public_text(events: Sequence[Event]) -> str:
    return "\n".join(e.text for e in events if e.audience.kind == "public")


def seat_text(events: Sequence[Event], seat: int) -> str:
    return "\n".join(e.text for e in events if e.audience.kind == "seat" and e.audience.seat == seat)
