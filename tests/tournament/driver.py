"""Plays whole events of any format with random results, walkovers, withdrawals and
replacements, checking the format's promises after every step."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from bot.tournament.formats import Format, FormatState, Result

STEP_LIMIT = 2000


def roundtrip(fmt: Format, state: FormatState) -> FormatState:
    """The state survives JSON unchanged (as the runtime stores it)."""
    data = json.loads(json.dumps(state.model_dump(mode="json")))
    back = fmt.load(data)
    assert back == state
    return back


def check_consistent(fmt: Format, state: FormatState) -> None:
    cur = state.current
    by_round: dict[int, list[str]] = {}
    for p in state.pairings:
        places = [cur(p.player0)] + ([cur(p.player1)] if p.player1 is not None else [])
        assert all(n in state.entrants for n in places), (p, state.entrants)
        seen = by_round.setdefault(p.round, [])
        assert not set(places) & set(seen), f"{places} play twice in round {p.round}"
        seen.extend(places)
    assert len({p.id for p in state.pairings}) == len(state.pairings)
    for pid, result in state.results.items():
        p = state.pairing(pid)
        assert result.winner in (p.player0, p.player1, None)
    for p in state.pending():
        assert p.player1 is not None
        assert p.player0 not in state.withdrawn and p.player1 not in state.withdrawn
    table = fmt.standings(state)
    assert sorted(s.player for s in table) == sorted(state.entrants)
    assert table[0].rank == 1
    for i in range(1, len(table)):
        assert table[i].rank in (table[i - 1].rank, i + 1)
    games = [
        (p, state.results[p.id])
        for p in state.pairings
        if p.player1 is not None and p.id in state.results
    ]
    assert sum(s.played for s in table) == 2 * len(games)
    assert sum(s.wins for s in table) == sum(r.winner is not None for _, r in games)
    assert sum(s.draws for s in table) == 2 * sum(
        r.winner is None and not r.walkover for _, r in games
    )
    assert all(s.wins + s.draws + s.losses == s.played for s in table)
    if fmt.name in ("single", "double"):
        final_losers = {
            cur(p.player1 if cur(state.results[p.id].winner or "") == cur(p.player0) else p.player0)
            for p in state.pairings
            if p.bracket == "final" and p.id in state.results
        }
        lives = 1 if fmt.name == "single" else 2
        for s in table:
            gone = s.player in state.withdrawn or s.losses >= lives or s.player in final_losers
            assert s.out == gone, (s, state.withdrawn)


def play(
    fmt: Format,
    count: int,
    seed: int,
    ops: int,
    *,
    rounds: int | None = None,
    upsets: float = 0.08,
    on_round: Callable[[FormatState, FormatState, list], None] | None = None,
) -> FormatState:
    """One whole event; `ops` seeds the random choices. Returns the finished state."""
    rnd = random.Random(ops)
    state = roundtrip(fmt, fmt.start([f"p{i + 1}" for i in range(count)], seed, rounds))
    fresh = 0
    for _ in range(STEP_LIMIT):
        if fmt.finished(state):
            break
        if not state.pending() and state.active() and rnd.random() < upsets:
            # between rounds: a player leaves or is replaced before the next pairing
            if rnd.random() < 0.5:
                state = fmt.withdraw(state, rnd.choice(state.active()))
            else:
                fresh += 1
                state = fmt.replace(state, rnd.choice(state.active()), f"sub{fresh}")
            state = roundtrip(fmt, state)
            check_consistent(fmt, state)
        before, as_stored = state, state.model_dump(mode="json")
        state, made = fmt.next_round(state)
        assert before.model_dump(mode="json") == as_stored, "next_round changed its input"
        state = roundtrip(fmt, state)
        check_consistent(fmt, state)
        assert state.pending() or fmt.finished(state), "a round was paired with nothing to play"
        if on_round is not None:
            on_round(before, state, made)
        ids = [p.id for p in state.pending()]
        rnd.shuffle(ids)
        for pid in ids:
            if state.decided(pid):
                continue
            p = state.pairing(pid)
            previous, as_stored = state, state.model_dump(mode="json")
            roll = rnd.random()
            if roll < upsets and state.active():
                state = fmt.withdraw(state, rnd.choice(state.active()))
            elif roll < 2 * upsets and state.active():
                fresh += 1
                state = fmt.replace(state, rnd.choice(state.active()), f"sub{fresh}")
            elif roll < 3 * upsets:
                winner = rnd.choice([p.player0, p.player1])
                state = fmt.record(state, Result(pairing=pid, winner=winner, walkover=True))
            else:
                draw = fmt.name in ("roundrobin", "swiss") and rnd.random() < 0.15
                winner = None if draw else rnd.choice([p.player0, p.player1])
                state = fmt.record(state, Result(pairing=pid, winner=winner))
            assert previous.model_dump(mode="json") == as_stored, "the input state changed"
            state = roundtrip(fmt, state)
            check_consistent(fmt, state)
    assert fmt.finished(state), f"{fmt.name} with {count} entrants did not finish"
    state, made = fmt.next_round(state)
    assert made == []
    return state
