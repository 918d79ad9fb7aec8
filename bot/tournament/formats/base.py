"""The contract every tournament format keeps.

A format is pure: given the same entrants, seed and results it gives the same pairings,
with no Discord, database or clock. Its whole state is a pydantic model that round-trips
through JSON (`model_dump(mode="json")` / `model_validate`), so that the event runtime can
store it in the same transaction as the match result that changed it, and rebuild it after
a restart or a kill.

The runtime's loop, in words:
1. `state = fmt.start(entrants, seed)`; entrants come in seeding order (best first). Swiss
   alone takes `rounds=`; the others refuse it (their number of rounds follows from the count).
2. `state, pairings = fmt.next_round(state)`: the matches of the next round, or `[]` while a round
   is still being played, or `[]` with `fmt.finished(state)` once the event is over. A
   bye is a `Pairing` with `player1=None`; it is already decided (no match is started).
   A round-robin pairing with a withdrawn player is decided too (a walkover). Every pairing that is
   already decided has its result in `state.results` when it is returned; start a match only
   for the others (`state.decided(p.id)` is False). When a whole round is decided that way,
   `next_round` goes on to the next one in the same call, so the list may hold several
   rounds (each pairing carries its `round`); it always ends with a round that has a match
   to play, unless the event is over.
3. For each match's end: `state = fmt.record(state, Result(...))`; a walkover and a host's
   award are results too (`Result.walkover`).
4. `fmt.replace(state, old, new)` puts a substitute into every pairing `old` has not yet
   played (the substitute takes over the place: seed and record so far);
   `fmt.withdraw(state, player)` makes them lose their pairing in progress (walkover) and
   takes them out of later rounds: an elimination opponent goes through on a bye, a
   round-robin opponent wins by walkover, Swiss pairs them no more (docs/tournaments.md).
   A request the format refuses raises `FormatError`, whose message is for the host.
5. `fmt.standings(state)` for the table, in rank order, with the tie-breaks the format
   documents.

Every method returns a new state (the input is never changed), so that the runtime can
store first and apply after (store-then-apply, as for matches).
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict


class FormatError(ValueError):
    """A request the format refuses; the message tells the host what to do instead."""


class Pairing(BaseModel):
    """One match of a round. `id` is unique over the whole event ("r2m3", "W1-4", ...)."""

    model_config = ConfigDict(frozen=True)

    id: str
    round: int  # 1-based, in the order rounds are played
    player0: str
    player1: str | None  # None: a bye for player0 (decided, no match is played)
    bracket: str = ""  # "", "winners", "losers", "final": for double elimination


class Result(BaseModel):
    """How one pairing ended. `winner` None is a draw (formats that allow draws only)."""

    model_config = ConfigDict(frozen=True)

    pairing: str
    winner: str | None
    walkover: bool = False  # decided without play: a withdrawal, a no-show, a host's award
    score: tuple[int, int] | None = None  # games or points (player0, player1), for tie-breaks


class Standing(BaseModel):
    """One line of the table, in rank order."""

    model_config = ConfigDict(frozen=True)

    rank: int  # equal ranks for a true tie
    player: str
    points: float
    played: int
    wins: int
    draws: int
    losses: int
    tiebreaks: tuple[float, ...] = ()  # in the order the format documents them
    out: bool = False  # eliminated or withdrawn


class FormatState(BaseModel):
    """The base of every format's stored state.

    `entrants` holds the current name of each place, in seeding order: a replacement
    takes over its predecessor's place (seed, record so far and remaining pairings), and
    `replacements` maps every replaced name to its substitute, so that results stored under
    the old name count for the place. `round` is the last round paired (0 before the first).
    """

    format: str
    entrants: list[str]
    seed: int
    pairings: list[Pairing] = []
    results: dict[str, Result] = {}
    withdrawn: list[str] = []
    replacements: dict[str, str] = {}
    round: int = 0
    rounds: int = 0  # Swiss: the number of rounds to play; 0 where the format decides

    def current(self, name: str) -> str:
        """The name now holding the place `name` held (itself unless replaced)."""
        while name in self.replacements:
            name = self.replacements[name]
        return name

    def pairing(self, pairing_id: str) -> Pairing:
        """The pairing with this id; a teaching error if there is none."""
        for p in self.pairings:
            if p.id == pairing_id:
                return p
        raise FormatError(
            f"There is no pairing {pairing_id!r} in this event; "
            "use the ids the bracket or standings show."
        )

    def decided(self, pairing_id: str) -> bool:
        return pairing_id in self.results

    def pending(self) -> list[Pairing]:
        """The pairings that still wait for their result."""
        return [p for p in self.pairings if p.id not in self.results]

    def active(self) -> list[str]:
        """The current names of the places still in the event (not withdrawn)."""
        return [e for e in self.entrants if e not in self.withdrawn]


class Format(Protocol):
    """What the event runtime needs of a format (see the module's docstring)."""

    name: str  # "single", "double", "roundrobin", "swiss"
    label: str  # how hosts read the name ("single elimination")

    def start(self, entrants: list[str], seed: int, rounds: int | None = None) -> FormatState: ...

    def next_round(self, state: FormatState) -> tuple[FormatState, list[Pairing]]: ...

    def record(self, state: FormatState, result: Result) -> FormatState: ...

    def replace(self, state: FormatState, old: str, new: str) -> FormatState: ...

    def withdraw(self, state: FormatState, player: str) -> FormatState: ...

    def finished(self, state: FormatState) -> bool: ...

    def standings(self, state: FormatState) -> list[Standing]: ...

    def load(self, data: dict) -> FormatState: ...
