"""What every format does the same way: checks, results, walkovers, replacements.

A format subclasses `BaseFormat` and supplies `_round` (the next round's pairings, or none
yet), `finished` and `standings`; the rest of the contract in `base` is here, so that a
walkover or a replacement means the same thing in every format.
"""

from __future__ import annotations

from .base import FormatError, FormatState, Pairing, Result, Standing

MAX_ENTRANTS = 256


def walkover_result(state: FormatState, p: Pairing) -> Result | None:
    """The result a pairing has without play: a bye (player0 goes through), a walkover
    against a withdrawn player, nobody's win if both have withdrawn; None if both play."""
    if p.player1 is None:
        return Result(pairing=p.id, winner=p.player0, walkover=True)
    out0, out1 = p.player0 in state.withdrawn, p.player1 in state.withdrawn
    if out0 and out1:
        return Result(pairing=p.id, winner=None, walkover=True)
    if out0 or out1:
        return Result(pairing=p.id, winner=p.player1 if out0 else p.player0, walkover=True)
    return None


def copied(state: FormatState) -> FormatState:
    """A copy whose lists and dicts may be changed without touching `state`.

    Pairings and results are frozen, so they are shared rather than copied (a deep copy
    made long events slow)."""
    return state.model_copy(
        update={
            "entrants": list(state.entrants),
            "pairings": list(state.pairings),
            "results": dict(state.results),
            "withdrawn": list(state.withdrawn),
            "replacements": dict(state.replacements),
        }
    )


class BaseFormat:
    """The shared half of a `base.Format`; see that module for the contract."""

    name = ""
    allows_draws = False
    label = ""  # how hosts read the name ("single elimination")

    # ---- the hooks a format fills in

    def _round(self, state: FormatState) -> list[Pairing]:
        """The next round's pairings (numbered `state.round + 1`), or [] if there is none."""
        raise NotImplementedError

    def finished(self, state: FormatState) -> bool:
        raise NotImplementedError

    def standings(self, state: FormatState) -> list[Standing]:
        raise NotImplementedError

    def _check_rounds(self, count: int, rounds: int | None) -> int:
        if rounds is not None:
            raise FormatError(
                f"A {self.label} event has as many rounds as its entrants need; "
                "leave the number of rounds out (only Swiss takes one)."
            )
        return 0

    # ---- the contract

    def start(self, entrants: list[str], seed: int, rounds: int | None = None) -> FormatState:
        names = list(entrants)
        if len(names) < 2:
            raise FormatError(
                f"A {self.label} event needs at least 2 entrants, not {len(names)}; "
                "keep sign-ups open until two have joined."
            )
        if len(names) > MAX_ENTRANTS:
            raise FormatError(
                f"An event takes at most {MAX_ENTRANTS} entrants, not {len(names)}; "
                "close sign-ups earlier or run two events."
            )
        if any(not n or not isinstance(n, str) for n in names):
            raise FormatError("Every entrant needs a name; remove the empty one and start again.")
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise FormatError(
                f"{', '.join(twice)} entered more than once; each player holds one place."
            )
        planned = self._check_rounds(len(names), rounds)
        return FormatState(format=self.name, entrants=names, seed=seed, rounds=planned)

    def load(self, data: dict) -> FormatState:
        state = FormatState.model_validate(data)
        if state.format != self.name:
            raise FormatError(
                f"This stored event is {state.format!r}, not {self.name!r}; "
                "load it with the format it names."
            )
        return state

    def next_round(self, state: FormatState) -> tuple[FormatState, list[Pairing]]:
        if state.pending():
            return state, []
        state = copied(state)
        made: list[Pairing] = []
        while not self.finished(state):
            pairings = self._round(state)
            if not pairings:
                break
            state.round += 1
            for p in pairings:
                state.pairings.append(p)
                done = walkover_result(state, p)
                if done is not None:
                    state.results[p.id] = done
            made.extend(pairings)
            if state.pending():
                break
        return state, made

    def record(self, state: FormatState, result: Result) -> FormatState:
        p = state.pairing(result.pairing)
        if state.decided(p.id):
            raise FormatError(
                f"Pairing {p.id} is already decided; a result is recorded once "
                "(the bracket and standings are built on it)."
            )
        if result.winner is None and not (self.allows_draws or result.walkover):
            raise FormatError(
                f"A {self.label} match needs a winner; replay pairing {p.id} "
                "or award it to one of its players."
            )
        if result.winner is not None and result.winner not in (p.player0, p.player1):
            raise FormatError(
                f"{result.winner} is not in pairing {p.id} ({p.player0} v {p.player1}); "
                "name one of its two players as the winner."
            )
        state = copied(state)
        state.results[p.id] = result
        return state

    def replace(self, state: FormatState, old: str, new: str) -> FormatState:
        if old not in state.entrants:
            raise FormatError(
                f"{old} holds no place in this event; replace one of: {', '.join(state.active())}."
            )
        if old in state.withdrawn:
            raise FormatError(
                f"{old} has withdrawn and their remaining pairings were walkovers; "
                "a substitute can take a place only before its player withdraws."
            )
        if not new or new in state.entrants or new in state.replacements:
            raise FormatError(
                f"{new or 'An empty name'} cannot take {old}'s place: a substitute must be "
                "someone who never held a place in this event."
            )
        state = copied(state)
        state.entrants[state.entrants.index(old)] = new
        state.replacements[old] = new
        state.pairings = [
            _renamed(p, old, new) if p.id not in state.results else p for p in state.pairings
        ]
        return state

    def withdraw(self, state: FormatState, player: str) -> FormatState:
        if player not in state.entrants or player in state.withdrawn:
            raise FormatError(
                f"{player} is not playing in this event; withdraw one of: "
                f"{', '.join(state.active()) or 'nobody (all have withdrawn)'}."
            )
        state = copied(state)
        state.withdrawn.append(player)
        for p in state.pending():
            done = walkover_result(state, p)
            if done is not None:
                state.results[p.id] = done
        return state


def _renamed(p: Pairing, old: str, new: str) -> Pairing:
    return p.model_copy(
        update={
            "player0": new if p.player0 == old else p.player0,
            "player1": new if p.player1 == old else p.player1,
        }
    )
