"""Decoder's match state (pydantic, JSON round-trippable)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from games.core.chance import Chance
from games.decoder.rules import Clue
from games.decoder.settings import DecoderSettings, Items

Phase = Literal["tuning", "selection", "play", "over"]
Step = Literal["turn", "give_up", "clue", "swap", "guess_total", "sabotage_tank", "sabotage_option"]


class Tank(BaseModel):
    name: str
    seconds: int  # the puzzle time (official, or as set during tuning)
    official: int | None = None  # the official time: the lowest a player may set (None: seconds)
    units: int  # current recharge time (after sabotages)
    used: bool = False
    extra_tile: bool = False  # earned its owner an extra tile at setup


class Offer(BaseModel):
    """A compensation letter offered to this seat (private)."""

    turn: int
    letter: str | None  # None: no letter qualified, no swap offered
    gave: str | None = None  # the letter swapped out; None: declined (or nothing offered)
    decided: bool = False


class SeatState(BaseModel):
    tanks: list[Tank]
    items: Items
    bank: int
    timer: int
    ready: bool = False  # said ready during tuning (a signal: it locks nothing)
    locked: bool = False  # the host (or the tuning clock) locked this seat's puzzle times
    extra_count: int = 0
    initial: list[str] = Field(default_factory=list)
    rarities: tuple[int, int, int] | None = None
    extras: list[str] = Field(default_factory=list)
    # The letters set aside for this seat's extra tiles, per rarity, in draw order (dealt with the
    # initial tiles, so one seat's choices never change what the other is dealt). Hidden from all.
    reserve: dict[str, list[str]] = Field(default_factory=dict)
    hand: list[str] = Field(default_factory=list)
    hand_chosen: bool = False
    setup_left: float = 0.0  # letter-selection time still left (seconds)
    # This turn's clock: seconds of decisions so far, and bank seconds charged for them.
    turn_used: float = 0.0
    turn_charged: int = 0
    lost: int = 0  # tiles lost (guessed by the opponent or given up)
    # Every letter this seat has been told about privately (setup tiles, offers): for the leak check.
    private_letters: list[str] = Field(default_factory=list)
    offers: list[Offer] = Field(default_factory=list)
    # Units this seat's recharge timer was filled with on each of its turns (turn number -> units);
    # the seat knows these (its own tanks), nobody else does.
    fills: dict[int, int] = Field(default_factory=dict)

    @property
    def setup_letters(self) -> list[str]:
        return self.initial + self.extras

    def tank(self, name: str) -> Tank | None:
        return next((t for t in self.tanks if t.name == name), None)

    def unused(self) -> list[Tank]:
        return [t for t in self.tanks if not t.used]


class ClueAnswer(BaseModel):
    clue: Clue
    answer: bool


class TurnRecord(BaseModel):
    """One turn as everyone saw it (public), plus the in-progress step."""

    number: int
    seat: int
    tank: str
    action: Literal["ask", "guess", "restore"]
    power_surge: bool = False
    # ask
    word: str | None = None
    exclude: Clue | None = None
    new_evidence: bool = False
    answers: list[ClueAnswer] = Field(default_factory=list)
    # guess
    letter: str | None = None
    correct: bool | None = None
    gave_up: str | None = None
    insurance: bool = False
    # restore
    restored: list[str] = Field(default_factory=list)
    total_guess: int | None = None
    total_correct: bool | None = None
    sabotaged: str | None = None
    # response
    unexpected_sabotage: bool = False


class DecoderState(BaseModel):
    settings: DecoderSettings
    chance: Chance
    phase: Phase = "tuning"
    seats: list[SeatState]
    turn: int = 0  # number of the current turn (0 during setup)
    active: int | None = None  # whose turn it is
    step: Step | None = None  # what the current turn waits for
    last_mover: int | None = None
    revealed: list[str] = Field(default_factory=list)  # in order of revealing
    named: list[str] = Field(default_factory=list)  # letters ever named in public (guesses, reveals)
    used_words: list[str] = Field(default_factory=list)
    history: list[TurnRecord] = Field(default_factory=list)  # finished turns and the current one
    winner: int | None = None
    reason: str = ""

    @property
    def current(self) -> TurnRecord | None:
        if self.history and self.history[-1].number == self.turn and self.phase == "play":
            return self.history[-1]
        return None

    def mark_named(self, letter: str) -> None:
        """Remember that a letter was named in public (it is no longer anyone's secret)."""
        if letter not in self.named:
            self.named.append(letter)

    def reveal_tile(self, seat: int, letter: str) -> None:
        """A seat loses a tile from its hand: guessed by the opponent or given up."""
        me = self.seats[seat]
        me.hand.remove(letter)
        me.lost += 1
        self.revealed.append(letter)
        self.mark_named(letter)
