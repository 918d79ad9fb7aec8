"""A tiny single-elimination format for the runtime's tests (the real formats are in
bot/tournament/formats/): seeds 1 v n, 2 v n-1, ... with byes for the top seeds up to a
power of two, then winners in bracket order. Keeps `base.Format`."""

from __future__ import annotations

from bot.tournament.formats.base import FormatState, Pairing, Result, Standing


class Knockout:
    name = "knockout"

    def start(self, entrants: list[str], seed: int) -> FormatState:
        return FormatState(format=self.name, entrants=list(entrants), seed=seed)

    def _round(self, state: FormatState) -> int:
        return max((p.round for p in state.pairings), default=0)

    def _winners(self, state: FormatState, rnd: int) -> list[str]:
        out = []
        for p in state.pairings:
            if p.round == rnd:
                won = state.results.get(p.id)
                out.append(p.player0 if p.player1 is None else won.winner if won else None)
        return [w for w in out if w is not None]

    def next_round(self, state: FormatState) -> tuple[FormatState, list[Pairing]]:
        rnd = self._round(state)
        if rnd and any(p.round == rnd and p.player1 is not None and p.id not in state.results
                       for p in state.pairings):
            return state, []
        if self.finished(state):
            return state, []
        if rnd == 0:
            players: list[str | None] = list(state.entrants)
            size = 1
            while size < len(players):
                size *= 2
            players += [None] * (size - len(players))
            pairs = [(players[i], players[size - 1 - i]) for i in range(size // 2)]
        else:
            alive = self._winners(state, rnd)
            pairs = [(alive[i], alive[i + 1]) for i in range(0, len(alive), 2)]
        new = [Pairing(id=f"r{rnd + 1}m{i + 1}", round=rnd + 1, player0=a, player1=b)
               for i, (a, b) in enumerate(pairs) if a is not None]
        return state.model_copy(update={"pairings": [*state.pairings, *new]}), new

    def record(self, state: FormatState, result: Result) -> FormatState:
        pairing = next(p for p in state.pairings if p.id == result.pairing)
        if result.winner not in (pairing.player0, pairing.player1):
            raise ValueError("a knockout match needs a winner")
        return state.model_copy(update={"results": {**state.results, result.pairing: result}})

    def replace(self, state: FormatState, old: str, new: str) -> FormatState:
        pairings = [p if p.id in state.results else p.model_copy(update={
            "player0": new if p.player0 == old else p.player0,
            "player1": new if p.player1 == old else p.player1}) for p in state.pairings]
        return state.model_copy(update={"pairings": pairings})

    def withdraw(self, state: FormatState, player: str) -> FormatState:
        results = dict(state.results)
        for p in state.pairings:
            if p.id not in results and p.player1 is not None and player in (p.player0, p.player1):
                other = p.player1 if p.player0 == player else p.player0
                results[p.id] = Result(pairing=p.id, winner=other, walkover=True)
        return state.model_copy(update={"results": results})

    def finished(self, state: FormatState) -> bool:
        rnd = self._round(state)
        return rnd > 0 and len(self._winners(state, rnd)) == 1 and not any(
            p.round == rnd and p.player1 is not None and p.id not in state.results
            for p in state.pairings)

    def standings(self, state: FormatState) -> list[Standing]:
        wins = {e: 0 for e in state.entrants}
        out = {e: False for e in state.entrants}
        for r in state.results.values():
            p = next(x for x in state.pairings if x.id == r.pairing)
            if r.winner:
                wins[r.winner] = wins.get(r.winner, 0) + 1
                loser = p.player1 if r.winner == p.player0 else p.player0
                if loser:
                    out[loser] = True
        order = sorted(wins, key=lambda e: (out.get(e, False), -wins[e]))
        return [Standing(rank=i + 1, player=e, points=wins[e], played=wins[e] + out.get(e, 0),
                         wins=wins[e], draws=0, losses=int(out.get(e, False)),
                         out=out.get(e, False)) for i, e in enumerate(order)]

    def load(self, data: dict) -> FormatState:  # type: ignore[type-arg]
        return FormatState.model_validate(data)
