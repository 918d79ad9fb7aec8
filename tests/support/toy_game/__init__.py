"""A tiny game for testing the runtime and the harness without a real game's rules.

"Duel": for `rounds` rounds both players privately pick an unused number 1-9 at the same
time; the higher pick wins the round (a tie scores nothing). Optional time bank: with
`bank_seconds` > 0 every pick draws on the seat's bank and running out loses the match,
charged in 5 s steps; without it, a timeout picks a random unused number.

Two games of these rules. `DUEL` ("duel") declares nothing beyond the rules: the runtime's
tests see what any game gets by default (default buttons, no notes, no reveals). `DUEL_KIT`
("duel-kit") is the same rules shipped as a sixth game would be: its controls, reveals and
quick settings declared on its `Game`, its rules page (`rules.md`) in this package. The
test suite registers both (tests/support/register.py); nothing else names them, which is
what tests/games/test_game_contract.py shows.
"""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import BaseModel, Field

from games.core import (
    Audience,
    Chance,
    Command,
    Controls,
    Event,
    Game,
    IllegalMove,
    OnTimeout,
    Outcome,
    ParseError,
    Prompt,
    Quick,
    Reveals,
    Secret,
    Timeout,
)
from games.core.controls import Asked, Tone
from games.core.parsing import integers


class DuelSettings(BaseModel):
    rounds: int = Field(3, ge=1, le=9)
    pick_seconds: float = 30.0
    bank_seconds: float = 0.0
    leak: bool = False  # deliberately announce picks early (tests that the harness notices)
    # Deliberate leaks a token search cannot see (tests of the two-world harness): the
    # opponent's pending pick shapes a public prompt's text ("prompt"), a refusal ("refusal")
    # or the other seat's clock ("timing").
    info_leak: Literal["", "prompt", "refusal", "timing"] = ""
    break_seconds: float = 0.0  # a break after each round (the runtime's pause_seconds)


class Pick(Command):
    type: Literal["pick"] = "pick"
    number: int


class DuelState(BaseModel):
    settings: DuelSettings
    rng: Chance
    round: int = 1
    picks: list[int | None] = [None, None]
    used: list[list[int]] = [[], []]
    score: list[int] = [0, 0]
    bank: list[float] = [0.0, 0.0]
    lost_on_time: int | None = None


class Duel(Game[DuelState]):
    slug = "duel"
    title = "Duel (test game)"
    settings_model = DuelSettings
    state_model = DuelState
    command_types = (Pick, Timeout)

    def setup(self, settings: DuelSettings, seed: str) -> DuelState:  # type: ignore[override]
        return DuelState(settings=settings, rng=Chance.from_seed(seed),
                         bank=[settings.bank_seconds] * 2)

    def outcome(self, state: DuelState) -> Outcome | None:  # type: ignore[override]
        if state.lost_on_time is not None:
            return Outcome(winner=1 - state.lost_on_time, reason="time bank ran out")
        if state.round <= state.settings.rounds:
            return None
        a, b = state.score
        return Outcome(winner=None if a == b else (0 if a > b else 1), reason="all rounds played",
                       score=(a, b))

    def prompts(self, state: DuelState) -> list[Prompt]:  # type: ignore[override]
        if self.outcome(state) is not None:
            return []
        banked = state.settings.bank_seconds > 0
        leak = state.settings.info_leak
        return [
            Prompt(key=f"r{state.round}:s{seat}", seat=seat, kind="pick",
                   private=leak != "prompt",
                   text="pick an unused number 1-9"
                        + (" (your opponent picked high)" if leak == "prompt"
                           and self._opponent_high(state, seat) else ""),
                   time_limit=state.settings.pick_seconds
                   / (2 if leak == "timing" and self._opponent_high(state, seat) else 1),
                   bank=state.bank[seat] if banked else None,
                   reminders=(15, 5), bank_reminder_every=30 if banked else None,
                   on_timeout=OnTimeout.LOSE if banked else OnTimeout.DEFAULT,
                   choices=tuple(f"pick {n}" for n in self._free(state, seat)))
            for seat in (0, 1) if state.picks[seat] is None
        ]

    def _opponent_high(self, state: DuelState, seat: int) -> bool:
        pick = state.picks[1 - seat]
        return pick is not None and pick > 5

    def _refusal_leaks(self, state: DuelState, seat: int, number: int) -> bool:
        """The "refusal" leak: the opponent's pending pick is refused (while another is free)."""
        return (state.settings.info_leak == "refusal" and number == state.picks[1 - seat]
                and len(self._free(state, seat)) > 1)

    def _free(self, state: DuelState, seat: int) -> list[int]:
        return [n for n in range(1, 10) if n not in state.used[seat]]

    def check(self, state: DuelState, seat: int, command: Command) -> None:  # type: ignore[override]
        pending = {p.key for p in self.prompts(state) if p.seat == seat}
        if not pending:
            raise IllegalMove("You have nothing to decide now.")
        if isinstance(command, Timeout):
            if command.prompt_key not in pending:
                raise IllegalMove("That clock is not running.")
            return
        if not isinstance(command, Pick):
            raise IllegalMove("Pick a number.")
        if self._refusal_leaks(state, seat, command.number):
            raise IllegalMove("Your opponent already picked that number.")
        if command.number not in self._free(state, seat):
            raise IllegalMove(f"You can pick {', '.join(map(str, self._free(state, seat)))}.")

    def apply(self, state: DuelState, seat: int, command: Command) -> list[Event]:  # type: ignore[override]
        events: list[Event] = []
        if isinstance(command, Timeout):
            if state.settings.bank_seconds > 0:
                state.bank[seat] = 0.0
                state.lost_on_time = seat
                return [Event(kind="time", audience=Audience.public(),
                              text=f"{{P{seat}}} ran out of time.")]
            number = state.rng.choice(self._free(state, seat))
            events.append(Event(kind="timeout", audience=Audience.public(),
                                text=f"{{P{seat}}} ran out of time; a number was picked at random."))
        else:
            assert isinstance(command, Pick)
            number = command.number
            if state.settings.bank_seconds > 0 and command.elapsed is not None:
                over = max(0.0, command.elapsed - state.settings.pick_seconds)
                state.bank[seat] = max(0.0, state.bank[seat] - 5 * math.ceil(over / 5))
        state.picks[seat] = number
        state.used[seat].append(number)
        events.append(Event(kind="picked", audience=Audience.to(seat), text=f"You picked n{number}."))
        events.append(Event(kind="picked", audience=Audience.public(),
                            text=f"{{P{seat}}} has picked"
                                 + (f" n{number}" if state.settings.leak else "") + "."))
        if None not in state.picks:
            a, b = state.picks
            if a != b:
                state.score[0 if a > b else 1] += 1
            events.append(Event(kind="reveal", audience=Audience.public(),
                                text=f"Round {state.round}: {{P0}} n{a}, {{P1}} n{b}.",
                                data={"picks": [a, b], "score": list(state.score),
                                      "pause_seconds": state.settings.break_seconds}))
            state.picks = [None, None]
            state.round += 1
        return events

    def view(self, state: DuelState, seat: int | None) -> BaseModel:  # type: ignore[override]
        class DuelView(BaseModel):
            round: int
            score: list[int]
            my_pick: int | None
            free: list[int]
        return DuelView(round=state.round, score=state.score,
                        my_pick=state.picks[seat] if seat is not None else None,
                        free=self._free(state, seat) if seat is not None else [])

    def secrets(self, state: DuelState) -> list[Secret]:  # type: ignore[override]
        return [Secret(value=f"n{p}", known_to=frozenset({s}), label="pending pick")
                for s, p in enumerate(state.picks) if p is not None]

    def twin(self, state: DuelState, seat: int, rng: random.Random) -> DuelState | None:  # type: ignore[override]
        """The seat's pending pick is its only secret: the twin picked another free number."""
        pick = state.picks[seat]
        others = self._free(state, seat) if pick is not None else []
        if not others:
            return None
        twin = state.model_copy(deep=True)
        twin.picks[seat] = rng.choice(others)
        twin.used[seat][-1] = twin.picks[seat]  # the pending pick is the last number used
        return twin

    def parse(self, state: DuelState, seat: int, text: str) -> Command:  # type: ignore[override]
        numbers = integers(text)
        if len(numbers) != 1:
            raise ParseError("Type a number 1-9, e.g. `pick 7`.")
        return Pick(number=numbers[0])

    def random_command(self, state: DuelState, prompt: Prompt, rng: random.Random) -> Command:  # type: ignore[override]
        free = [n for n in self._free(state, prompt.seat)
                if not self._refusal_leaks(state, prompt.seat, n)]
        return Pick(number=rng.choice(free))

    def bots(self):  # type: ignore[no-untyped-def]
        class Highest:
            name = "highest"

            def choose(self, view, prompt, rng):  # type: ignore[no-untyped-def]
                return Pick(number=max(view.free))
        return {"highest": Highest}


def _label(choice: str) -> str:
    """"pick 7" shows as "7" on its button."""
    return choice.removeprefix("pick ")


def _tone(choice: str) -> Tone:
    return Tone.SUCCESS if choice.endswith(("8", "9")) else Tone.PRIMARY


def _note(asked: Asked) -> str | None:
    """What the picker has left, from the view its table channel may show (the seat's own:
    a spectator's view of a public pick has no free numbers, so nothing is said there)."""
    free = getattr(asked.view, "free", None)
    if asked.kind != "pick" or not free:
        return None
    return f"Still yours to pick: {' '.join(map(str, free))}."


def _reveal(state: DuelState) -> str:
    pending = [f"{{P{seat}}} n{pick}" for seat, pick in enumerate(state.picks)
               if pick is not None]
    return ("🔓 Picks of the unfinished round: " + ", ".join(pending) + "." if pending
            else "🔓 Nothing was hidden when the match ended.")


class DuelKit(Duel):
    """Duel as a sixth game ships: every declaration of the contract, its page beside it."""

    slug = "duel-kit"
    title = "Duel Kit (test game)"
    reveals = Reveals(at_end="the picks of a round the hosts ended midway", text=_reveal)
    controls = Controls(
        summary="**Duel Kit** in one breath: both pick a number at once; the higher wins the round.",
        label=_label, tone=_tone, max_buttons=9, short_label=2, note=_note)
    quick = Quick(short={"rounds": 1}, clocks=lambda seconds: {"pick_seconds": seconds})


DUEL = Duel()
DUEL_KIT = DuelKit()
