"""What storing a move before it takes effect costs: copying the game state for each move.

`MatchService._accept` applies a command to a copy of the live state, stores it, and only
then makes the copy live (a failed write leaves the match as it was). This plays random
matches of every game and times, at every step, the ways of copying the state there are:
pydantic's `model_copy(deep=True)`, `copy.deepcopy`, a JSON round trip
(`load_state(model_dump_json())`), a round trip through Python objects
(`model_validate(model_dump())`, what `LiveMatch.draft` uses) and pickle, beside the move's
own `apply`. Each copy is checked to dump the same JSON as the state. It prints each one's
median and p99 per move, in microseconds, one line per game.

    python -m bench.state_copy [--matches 20]
"""

from __future__ import annotations

import argparse
import copy
import json
import pickle
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from games.core import Timeout
from games.core.contract import Game, OnTimeout
from games.registry import all_games, warm_games

WAYS: dict[str, Callable[[Game, BaseModel], BaseModel]] = {
    "model_copy": lambda game, state: state.model_copy(deep=True),
    "deepcopy": lambda game, state: copy.deepcopy(state),
    "json": lambda game, state: game.load_state(state.model_dump_json()),
    "python": lambda game, state: type(state).model_validate(state.model_dump()),
    "pickle": lambda game, state: pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL)),
}


def _timed(fn: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn(*args)
    return (time.perf_counter() - start) * 1e6, result


def measure(game: Game, matches: int) -> dict[str, dict[str, float]]:
    """Per-move copy (and apply) times over `matches` random matches, in microseconds."""
    times: dict[str, list[float]] = {name: [] for name in [*WAYS, "apply"]}
    for n in range(matches):
        rng = random.Random(f"copy:{n}")
        state = game.setup(game.settings_model(), f"seed-{n}")
        for _ in range(20_000):
            prompts = game.prompts(state)
            if not prompts:
                break
            prompt = rng.choice(prompts)
            command = (Timeout(prompt_key=prompt.key)
                       if prompt.on_timeout != OnTimeout.NOTHING and rng.random() < 0.03
                       else game.random_command(state, prompt, rng))
            for name, way in WAYS.items():
                took, copied = _timed(way, game, state)
                times[name].append(took)
                assert copied == state and copied.model_dump_json() == state.model_dump_json(), name
            took, _ = _timed(game.apply, state, prompt.seat, command)
            times["apply"].append(took)
    return {name: {"p50": statistics.median(t), "p99": _p99(t), "moves": len(t)}
            for name, t in times.items()}


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20, help="random matches a game")
    args = parser.parse_args()
    warm_games()
    report: dict[str, Any] = {}
    print(f"{'game':<20}{'moves':>7}  " + "  ".join(f"{w + ' p50/p99 us':>24}"
                                                   for w in [*WAYS, "apply"]))
    for slug, game in all_games().items():
        figures = measure(game, args.matches)
        report[slug] = figures
        print(f"{slug:<20}{figures['apply']['moves']:>7}  " + "  ".join(
            f"{figures[w]['p50']:>14.1f} /{figures[w]['p99']:>8.1f}" for w in [*WAYS, "apply"]))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
