"""The Double or Nothing engine: the `Game` subclass the runtime drives.

A match is bouts until a player has `target` bout wins. In a bout the players alternate
public actions in the game room (play a set, draw a card from the table set, draw a joker,
propose a double); where a drawn card or joker goes, and which of several identical sets is
played, are private follow-ups in the player's table channel. No clock has an automatic
outcome (the seed: going over time has no penalty): at the limit the runtime reminds the
player and tells the hosts.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from pydantic import BaseModel

from games.core.chance import Chance
from games.core.contract import (
    BotFactory,
    Command,
    Event,
    Game,
    IllegalMove,
    Outcome,
    Prompt,
    Quick,
    Reveals,
    Secret,
    say,
)
from games.core.parsing import DecisionWords, MoveWords
from games.double_or_nothing import feed, flow, grammar, rules
from games.double_or_nothing import prompts as prompting
from games.double_or_nothing.bots import BOTS, random_move
from games.double_or_nothing.checks import CHECKS, KIND_COMMANDS, waiting_text
from games.double_or_nothing.commands import COMMAND_TYPES, AwardBout
from games.double_or_nothing.controls import CONTROLS
from games.double_or_nothing.rules import JOKER, hand_line
from games.double_or_nothing.settings import DoubleOrNothingSettings
from games.double_or_nothing.state import LOG_KEEP, DoubleOrNothingState, Phase
from games.double_or_nothing.text import hand_token, p, score_text, table_text
from games.double_or_nothing.views import build_view


class DoubleOrNothing(Game[DoubleOrNothingState]):
    slug = "double-or-nothing"
    reveals = Reveals(at_end=feed.AT_END, never=feed.NEVER, text=feed.reveal)  # (games.core.feed)
    controls = CONTROLS  # (games.core.controls)
    quick = Quick(short={"target": 1, "hand_size": 6}, clocks=lambda s: {
        "first_move_seconds": s, "move_seconds": s, "starter_seconds": s})
    title = "Double or Nothing"
    settings_model = DoubleOrNothingSettings
    state_model = DoubleOrNothingState
    command_types = COMMAND_TYPES
    answers = KIND_COMMANDS
    checks = CHECKS
    applies = flow.APPLY
    log_keep = LOG_KEEP  # no timeouts: no clock has an automatic outcome

    # --- life cycle ---------------------------------------------------------------------
    def setup(self, settings: BaseModel, seed: str) -> DoubleOrNothingState:
        if not isinstance(settings, DoubleOrNothingSettings):
            settings = DoubleOrNothingSettings.model_validate(settings.model_dump())
        state = DoubleOrNothingState(settings=settings, chance=Chance.from_seed(seed))
        state.phase = Phase.STARTER
        state.serial = 1
        flow.deal(state, [])  # the events are rebuilt by opening_events
        return state

    def opening_events(self, state: DoubleOrNothingState) -> list[Event]:
        s = state.settings
        ev: list[Event] = []
        say(ev, "match.start", f"Double or Nothing begins: the first player to {s.target} "
                 f"bout wins wins the match. Empty your hand by playing sets of adjacent cards "
                 f"that beat the table; the doubling die goes up to {s.max_stake}.")
        ev.extend(flow.bout_events(state))
        return ev

    def prompts(self, state: DoubleOrNothingState) -> list[Prompt]:
        return prompting.prompts(state)

    # --- dispatch -----------------------------------------------------------------------
    def is_over(self, state: DoubleOrNothingState) -> bool:
        return state.phase == Phase.OVER

    def pending_kinds(self, state: DoubleOrNothingState, seat: int) -> set[str]:
        return flow.pending_kinds(state, seat)

    def refusal(self, state: DoubleOrNothingState, seat: int, command: Command,
                kinds: set[str]) -> str:
        return super().refusal(state, seat, command, kinds) if kinds else waiting_text(state)

    def host_award_units(self, state: DoubleOrNothingState) -> tuple[str, ...]:
        """A bout can be awarded while one runs (after bout 1's starter is chosen)."""
        return ("bout",) if flow.bout_running(state) else ()

    def host_award(self, state: DoubleOrNothingState, seat: int, unit: str,
                   reason: str) -> Command:
        if unit not in self.host_award_units(state):
            raise IllegalMove("No bout is running: award the match instead."
                              if unit == "bout" else f"Hosts can award a bout or the match, "
                              f"not {unit!r}.")
        return AwardBout(reason=reason)

    def outcome(self, state: DoubleOrNothingState) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        return Outcome(winner=state.winner, reason=state.reason,
                       score=(state.score[0], state.score[1]))

    # --- information --------------------------------------------------------------------
    def view(self, state: DoubleOrNothingState, seat: int | None) -> BaseModel:
        return build_view(state, seat)

    def describe(self, state: DoubleOrNothingState, seat: int | None) -> str:
        s = state.settings
        lines = [f"Bout {state.bout}. Score: {score_text(state.score, s.target)}.",
                 f"Stake {state.stake} (cap {s.max_stake}). "
                 + self._double_text(state),
                 f"Table: {table_text(state.table, state.table_values)}.",
                 f"Hands: {p(0)} {len(state.hands[0])} cards, {p(1)} {len(state.hands[1])} cards."
                 f" Jokers in front: {p(0)} {state.jokers[0]}, {p(1)} {state.jokers[1]}."]
        if state.discard:
            lines.append(f"Discarded this bout: {' '.join(state.discard)}.")
        if seat is not None and state.phase != Phase.OVER:
            lines.append(f"Your hand (position:card): {hand_line(state.hands[seat])}")
        if state.phase == Phase.OVER:
            lines.append(f"Match over: {state.reason}.")
        return "\n".join(lines)

    def _double_text(self, state: DoubleOrNothingState) -> str:
        if state.crawford:
            return "Crawford bout: no doubling."
        who = [x for x in (0, 1) if flow.may_double(state, x)]
        if not who:
            return "The die is at its cap: no more doubling."
        return "May double on their turn: " + " and ".join(p(x) for x in who) + "."

    def status(self, state: DoubleOrNothingState) -> str | None:
        if state.phase == Phase.OVER:
            return None
        crawford = ", Crawford (no doubling)" if state.crawford else ""
        return (f"Bout {state.bout} · stake {state.stake}{crawford} · score {p(0)} "
                f"{state.score[0]}-{state.score[1]} {p(1)}")

    def secrets(self, state: DoubleOrNothingState) -> list[Secret]:
        if state.phase == Phase.OVER:
            return []
        out = [Secret(value=hand_token(seat, state.hands[seat]), known_to=frozenset({seat}),
                      label=f"seat {seat} hand") for seat in (0, 1)]
        out.append(Secret(value=hand_token(2, state.unused), label="unused cards"))
        # The hands the last bout ended with stay their players' until the match is over
        # (the feed shows them then): the check looks for them too.
        for seat, cards in enumerate(state.bout_ends[-1][:2] if state.bout_ends else ()):
            if cards:
                out.append(Secret(value=hand_token(seat, cards.split()),
                                  known_to=frozenset({seat}), label=f"seat {seat} last hand"))
        return out

    def twin(self, state: DoubleOrNothingState, seat: int,
             rng: random.Random) -> DoubleOrNothingState | None:
        """The same match with `seat`'s hand changed where the opponent cannot tell: some of
        its number cards swapped with unused ones (positions and sizes kept), and one card
        moved elsewhere in the hand (a different private placement). Cards of a pending
        choice between identical sets stay where they are."""
        if state.phase == Phase.OVER:
            return None
        if state.which == seat:
            return None  # the hand before the play must stay as it was
        twin = state.model_copy(deep=True)
        hand = twin.hands[seat]
        free = [i for i, c in enumerate(hand) if c != JOKER]
        if not free and not twin.unused:
            return None
        for i in rng.sample(free, rng.randint(1, len(free))) if free and twin.unused else []:
            j = rng.randrange(len(twin.unused))
            hand[i], twin.unused[j] = twin.unused[j], hand[i]
        if len(hand) > 1 and rng.random() < 0.5:
            card = hand.pop(rng.randrange(len(hand)))
            hand.insert(rng.randrange(len(hand) + 1), card)
        if twin.model_dump() == state.model_dump():
            return None
        return twin

    # --- text ---------------------------------------------------------------------------
    def parse(self, state: DoubleOrNothingState, seat: int, text_in: str) -> Command:
        return grammar.parse(flow.pending_kinds(state, seat), state, seat, text_in)

    def usage(self, state: DoubleOrNothingState, seat: int) -> str:
        return grammar.usage(flow.pending_kinds(state, seat), state)

    def move_help(self) -> tuple[str, ...]:
        return tuple(grammar._USAGE.values())

    def decision_words(self) -> DecisionWords:
        return grammar.DECISIONS

    def move_words(self, state: DoubleOrNothingState) -> MoveWords:
        return grammar.MOVE_WORDS

    # --- players ------------------------------------------------------------------------
    def random_command(self, state: DoubleOrNothingState, prompt: Prompt,
                       rng: random.Random) -> Command:
        seat = prompt.seat
        return random_move(prompt, state.hands[seat], state.table_values,
                           rules.drawable_numbers(state.table, state.table_values),
                           state.jokers[seat] > 0, flow.may_double(state, seat),
                           state.options, rng)

    def bots(self) -> Mapping[str, BotFactory]:
        return BOTS

    # --- checks -------------------------------------------------------------------------
    def invariants(self, state: DoubleOrNothingState) -> None:
        s = state.settings
        if state.phase == Phase.OVER:
            assert state.winner is not None and state.score[state.winner] >= s.target
            return
        assert max(state.score) < s.target, f"score {state.score} past the target, match running"
        placing = [state.placing] if state.placing else []
        everywhere = [*state.hands[0], *state.hands[1], *state.table, *state.discard,
                      *state.unused, *placing]
        numbers = sorted((c for c in everywhere if c != JOKER), key=int)
        assert numbers == sorted(rules.deck(), key=int), "number cards not conserved"
        jokers = everywhere.count(JOKER) + sum(state.jokers)
        assert jokers == 2 * s.jokers, f"jokers not conserved: {jokers}"
        assert len(state.unused) == len(rules.deck()) - 2 * s.hand_size, "unused pile changed"
        assert len(state.table) == len(state.table_values), "table values out of step"
        assert rules.is_set(state.table_values), f"table {state.table_values} is not a set"
        for card, value in zip(state.table, state.table_values, strict=True):
            assert card == JOKER or int(card) == value, "a table card changed value"
            assert 1 <= value <= 10, "table value out of range"
        assert state.stake in {1 << i for i in range(8)} and state.stake <= s.max_stake, \
            f"stake {state.stake}"
        assert all(0 <= j <= s.jokers for j in state.jokers), "jokers in front"
        if state.phase in (Phase.TURN, Phase.POSITION, Phase.DOUBLE):
            assert state.hands[0] and state.hands[1], "a bout runs on with an empty hand"
        if state.which is not None:
            k = len(state.option_cards)
            assert state.which != state.turn or state.phase == Phase.DOUBLE, \
                "an identical-set answer outlived the start of its player's move"
            assert state.hands[state.which] == (state.which_hand[:state.options[0]]
                                                + state.which_hand[state.options[0] + k:]), \
                "the hand is not the leftmost copy's until the answer"
        assert (state.placing is not None) == (state.phase == Phase.PLACE), "placing"
        assert state.crawford is False or state.stake == 1, "stake raised in a Crawford bout"
