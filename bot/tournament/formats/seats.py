"""Seats as chess colours: seat 0 holds the game's advantage, as White does in chess.

Every format gives seat 0 by these rules (docs/tournaments.md, "Seats"), which follow
FIDE's colour rules (C.04.3, A.6 and E):

- a player's *history* is the seats of the matches they played, in order; a bye, a
  walkover or a host's award is not a match played and leaves no seat;
- their *difference* is (seat-0 matches) - (seat-1 matches);
- their *preference*: none before their first match; **absolute** for the other seat when
  the difference is over 1 either way or their last two matches were in the same seat;
  **strong** for the seat they had less (difference 1 either way); otherwise **mild**, for the
  seat they did not have last time.

Two paired players' seats (`allocate`), the first rule that decides:
1. both preferences granted, when they differ (or one has none);
2. the stronger preference granted (two absolute ones: the wider difference);
3. seats alternated from the last match in which the two had different seats;
4. the better-ranked player's preference granted;
5. no history for either: the better-ranked player gets the event's first seat if their
   pairing number (seed) is odd, the other one if it is even; the first seat is a coin
   from the event's seed (`first_seat`), so that seed 1 is not always the one with the
   advantage in round 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import FormatState

NONE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3


@dataclass(frozen=True)
class Preference:
    strength: int  # NONE, MILD, STRONG, ABSOLUTE
    seat: int | None  # the seat wanted (None: no preference)
    difference: int


def histories(state: FormatState) -> dict[str, str]:
    """Each place's seats in the matches it played ("0" or "1" each), in round order."""
    cur = state.current
    seen = {name: "" for name in state.entrants}
    for p in sorted(state.pairings, key=lambda p: p.round):
        result = state.results.get(p.id)
        if p.player1 is None or result is None or result.walkover:
            continue
        seen[cur(p.player0)] += "0"
        seen[cur(p.player1)] += "1"
    return seen


def preference(history: str) -> Preference:
    diff = history.count("0") - history.count("1")
    if not history:
        return Preference(NONE, None, 0)
    if diff > 1 or diff < -1:
        return Preference(ABSOLUTE, 1 if diff > 0 else 0, diff)
    if len(history) >= 2 and history[-1] == history[-2]:
        return Preference(ABSOLUTE, 1 - int(history[-1]), diff)
    if diff:
        return Preference(STRONG, 1 if diff > 0 else 0, diff)
    return Preference(MILD, 1 - int(history[-1]), diff)


def first_seat(seed: int) -> int:
    """The seat the better-ranked odd-numbered player takes when neither has played."""
    return seed % 2


def allocate(better: str, other: str, history: dict[str, str], number: int,
             first: int) -> tuple[str, str]:
    """(seat 0, seat 1) for `better` (the better-ranked player, pairing number `number`,
    1-based) and `other`, by the rules in the module's docstring."""
    ha, hb = history.get(better, ""), history.get(other, "")
    pa, pb = preference(ha), preference(hb)
    seat = _better_seat(pa, pb, ha, hb, number, first)
    return (better, other) if seat == 0 else (other, better)


def _better_seat(pa: Preference, pb: Preference, ha: str, hb: str, number: int,
                 first: int) -> int:
    if pa.seat is not None and pa.seat != pb.seat:
        return pa.seat  # rule 1 (the other wants the other seat, or nothing)
    if pb.seat is not None and pa.seat is None:
        return 1 - pb.seat  # rule 1
    if pa.seat is not None:  # both want the same seat
        if pa.strength != pb.strength:
            return pa.seat if pa.strength > pb.strength else 1 - pa.seat  # rule 2
        if pa.strength == ABSOLUTE and abs(pa.difference) != abs(pb.difference):
            return pa.seat if abs(pa.difference) > abs(pb.difference) else 1 - pa.seat
        for a, b in zip(reversed(ha), reversed(hb), strict=False):  # rule 3
            if a != b:
                return 1 - int(a)
        return pa.seat  # rule 4
    return first if number % 2 else 1 - first  # rule 5


def absolute_clash(a: str, b: str, history: dict[str, str]) -> bool:
    """Whether `a` and `b` both have an absolute preference for the same seat (one of them
    would break the absolute rule: a difference over 2, or the same seat three times)."""
    pa, pb = preference(history.get(a, "")), preference(history.get(b, ""))
    return pa.strength == ABSOLUTE == pb.strength and pa.seat == pb.seat


def preference_clash(a: str, b: str, history: dict[str, str]) -> tuple[bool, bool]:
    """(one of them will not get the seat they prefer, and that preference is strong or
    absolute)."""
    pa, pb = preference(history.get(a, "")), preference(history.get(b, ""))
    same = pa.seat is not None and pa.seat == pb.seat
    return same, same and min(pa.strength, pb.strength) >= STRONG
