"""The Decoder game: the `Game` subclass that wires the rules modules together.

Setup is `tuning` (puzzle times) then `dealing` (letter selection); play is `turns` (the
active player's action), `responses` (the opponent's decisions) and `sabotage`, with `flow`
ending each turn and `outcome` ending the match; `prompts` says who decides what, `checks`
whether a command is legal now, `clock` what time costs and what a timeout does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel

from games.core.contract import (
    BotFactory,
    Command,
    Event,
    Game,
    Outcome,
    Prompt,
    Quick,
    Reveals,
    Secret,
)
from games.core.parsing import DecisionWords, MoveWords
from games.decoder import (
    audit,
    clock,
    dealing,
    feed,
    grammar,
    responses,
    sabotage,
    tuning,
    turns,
    views,
)
from games.decoder import checks as legality
from games.decoder import outcome as ending
from games.decoder import prompts as prompting
from games.decoder.bots import BOTS, letter_frequency, random_legal
from games.decoder.checks import ADVICES, CHECKS, KIND_COMMANDS
from games.decoder.commands import COMMAND_TYPES
from games.decoder.controls import CONTROLS
from games.decoder.prompts import GAME_REMINDERS, LOSE_TEXT, pending
from games.decoder.settings import DecoderSettings
from games.decoder.state import DecoderState
from games.decoder.twin import twin as make_twin
from games.decoder.vocabulary import bot_words
from games.decoder.wordlist import load_words

__all__ = ["GAME_REMINDERS", "KIND_COMMANDS", "LOSE_TEXT", "DecoderGame"]

# What each command type does to the state (its legality already checked).
APPLY: dict[str, Callable[[DecoderState, int, Any, list[Event]], None]] = {
    "raise_time": tuning.apply_raise_time,
    "ready": tuning.apply_ready,
    "choose_rarities": dealing.apply_choose_rarities,
    "choose_hand": dealing.apply_choose_hand,
    "take_turn": turns.apply_take_turn,
    "give_up": responses.apply_give_up,
    "choose_clue": responses.apply_choose_clue,
    "swap": responses.apply_swap,
    "guess_total": responses.apply_guess_total,
    "sabotage_tank": sabotage.apply_sabotage_tank,
    "unexpected_sabotage": sabotage.apply_unexpected_sabotage,
}


class DecoderGame(Game[DecoderState]):
    slug = "decoder"
    reveals = Reveals(at_end=feed.AT_END, text=feed.reveal)  # (games.core.feed)
    controls = CONTROLS  # (games.core.controls)
    quick = Quick(unattended={"lock_when_ready": True}, no_waits={"fix_seconds": 0}, clocks=lambda s: {
        "tuning_time": s, "setup_time": s, "turn_time": s, "response_time": s,
        "time_bank": int(s), "bank_step": 1})
    title = "Decoder"
    settings_model = DecoderSettings
    state_model = DecoderState
    command_types = COMMAND_TYPES
    answers = KIND_COMMANDS
    checks = CHECKS
    advices = ADVICES
    applies = {kind: clock.spending(apply) for kind, apply in APPLY.items()}
    timeouts = dict.fromkeys(KIND_COMMANDS, clock.apply_timeout)
    #: The state keeps every turn (`history`: the bots' and views' record of the match), so a
    #: snapshot grows with the match: none are stored, the action log rebuilds it on resume.
    snapshots = False

    # ------------------------------------------------------------------ life cycle
    def setup(self, settings: BaseModel, seed: str) -> DecoderState:
        assert isinstance(settings, DecoderSettings)
        return tuning.new_state(settings, seed)

    def opening_events(self, state: DecoderState) -> list[Event]:
        return tuning.opening_events(state)

    def prompts(self, state: DecoderState) -> list[Prompt]:
        return prompting.prompts(state)

    def is_over(self, state: DecoderState) -> bool:
        return state.phase == "over"

    def pending_kinds(self, state: DecoderState, seat: int) -> set[str]:
        return legality.pending_kinds(state, seat)

    def refusal(self, state: DecoderState, seat: int, command: Command, kinds: set[str]) -> str:
        return legality.refusal(state, seat)

    def outcome(self, state: DecoderState) -> Outcome | None:
        return ending.outcome(state)

    # ------------------------------------------------------------------ information
    def describe(self, state: DecoderState, seat: int | None) -> str:
        v = self.view(state, seat)
        assert isinstance(v, views.DecoderView)
        return views.describe(v, seat)

    def view(self, state: DecoderState, seat: int | None) -> BaseModel:
        return views.build_view(state, seat)

    def status(self, state: DecoderState) -> str | None:
        return views.status_line(state)

    def secrets(self, state: DecoderState) -> list[Secret]:
        return audit.secrets(state)

    def twin(self, state: DecoderState, seat: int, rng: random.Random) -> DecoderState | None:
        return make_twin(state, seat, rng)

    # ------------------------------------------------------------------ text
    def parse(self, state: DecoderState, seat: int, text: str) -> Command:
        return grammar.parse(pending(state, seat), state, seat, text)

    def decision_words(self) -> DecisionWords:
        return grammar.DECISIONS

    def move_words(self, state: DecoderState) -> MoveWords:
        return grammar.move_words(state)

    def usage(self, state: DecoderState, seat: int) -> str:
        return grammar.usage(pending(state, seat), state, seat)

    def move_help(self) -> tuple[str, ...]:
        return tuple(grammar.USAGE.values())

    # ------------------------------------------------------------------ players
    def random_command(self, state: DecoderState, prompt: Prompt, rng: random.Random) -> Command:
        return random_legal(state, prompt, rng)

    def bots(self) -> Mapping[str, BotFactory]:
        return BOTS

    def warm(self) -> None:
        """The default word list (every guess is checked against it: a quarter of a second
        to read), and the bots' vocabulary and letter table."""
        load_words()
        bot_words(None)
        letter_frequency(None)

    # ------------------------------------------------------------------ checks
    def invariants(self, state: DecoderState) -> None:
        audit.invariants(state)
