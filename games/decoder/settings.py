"""Decoder's match settings: puzzles and times, items, clocks, word list."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from games.core.chance import Chance

PUZZLE_COUNT = 7

# Seven distinct default puzzle names; the first three are the seed's own examples. Their first
# letters differ, so a one-letter prefix ("use a ask ...") already names a tank.
DEFAULT_PUZZLES: tuple[str, ...] = (
    "Arithmetic Box", "Bijective Matrix", "Cipher Wheel", "Domino Grid", "Encrypted Image",
    "Folding Map", "Gear Train",
)


class Items(BaseModel):
    """How many of each game item a player holds."""

    model_config = ConfigDict(extra="forbid")

    hand_insurance: int = Field(0, ge=0)
    new_evidence: int = Field(0, ge=0)
    power_surge: int = Field(0, ge=0)
    unexpected_sabotage: int = Field(0, ge=0)


ITEM_TITLES = {
    "hand_insurance": "Hand Insurance",
    "new_evidence": "New Evidence",
    "power_surge": "Power Surge",
    "unexpected_sabotage": "Unexpected Sabotage",
}


class DecoderSettings(BaseModel):
    """Per-match settings. Every timer is in seconds."""

    model_config = ConfigDict(extra="forbid")

    # The seven puzzles (= timer tank names), shared by both players.
    puzzles: list[str] = Field(default_factory=lambda: list(DEFAULT_PUZZLES))
    # Official solving times in seconds: [seat 0's seven, seat 1's seven], in puzzle order.
    # None: plausible times are generated from the match seed (15-240 s).
    times: list[list[int]] | None = None
    # Items the host grants: [seat 0, seat 1].
    items: list[Items] = Field(default_factory=lambda: [Items(), Items()])
    max_seconds: int = Field(300, ge=1)  # players may set a time up to this (5 minutes)
    tuning_time: float | None = None  # time to set times; None: until the host locks setup
    # House option: lock setup by itself once both players have said ready. The default (the
    # ruling): `ready` locks nothing; only the host's lock (or the tuning clock) ends tuning.
    lock_when_ready: bool = False
    setup_time: float = Field(180, gt=0)  # letter selection: rarity choice + hand, together
    turn_time: float = Field(90, gt=0)  # the active player's budget for all decisions of a turn
    response_time: float = Field(60, gt=0)  # the opponent's budget for all of theirs in it
    time_bank: int = Field(300, ge=0)  # per player, for the whole match
    bank_step: int = Field(5, ge=1)  # the bank is charged in steps of this many seconds
    # The prompt fix: a move typed in the room is taken this many seconds after it was sent;
    # until then its sender may edit the message (the edit is the move) or delete it (no
    # move), and their clock stands still. 0: every move is taken at once.
    fix_seconds: float = Field(3.0, ge=0, le=30)
    # Path to another word list (plain text or .gz, one word per line); None: the shipped list.
    word_list: str | None = None

    @field_validator("puzzles")
    @classmethod
    def _seven_distinct(cls, v: list[str]) -> list[str]:
        names = [" ".join(n.split()) for n in v]
        if len(names) != PUZZLE_COUNT:
            raise ValueError(f"Decoder needs exactly {PUZZLE_COUNT} puzzles, got {len(names)}")
        if any(not n for n in names):
            raise ValueError("puzzle names must not be empty")
        if len({n.lower() for n in names}) != len(names):
            raise ValueError("puzzle names must be distinct")
        return names

    @field_validator("times")
    @classmethod
    def _times_shape(cls, v: list[list[int]] | None) -> list[list[int]] | None:
        if v is None:
            return v
        if len(v) != 2 or any(len(row) != PUZZLE_COUNT for row in v):
            raise ValueError(f"times must be two lists of {PUZZLE_COUNT} seconds")
        if any(t < 1 for row in v for t in row):
            raise ValueError("puzzle times must be at least 1 second")
        return v

    @model_validator(mode="after")
    def _two_item_sets(self) -> DecoderSettings:
        if len(self.items) != 2:
            raise ValueError("items must list two players")
        return self


def generate_times(chance: Chance) -> list[list[int]]:
    """Plausible solving times: each puzzle has a difficulty, each player a spread around it,
    so some tanks earn extra tiles and most do not. Drawn from the match's Chance."""
    times: list[list[int]] = [[], []]
    for _ in range(PUZZLE_COUNT):
        base = chance.randint(25, 150)
        for seat in (0, 1):
            factor = chance.randint(55, 160)
            times[seat].append(max(15, min(240, base * factor // 100)))
    return times
