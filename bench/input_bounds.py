"""What the worst typed input costs: per game and decision, the time to refuse a 5,000-digit
number and a 100,000-character message (issue 27: within 10 ms each).

    python -m bench.input_bounds

Each figure is the slowest decision of the game, best of 5 tries (wall-clock milliseconds,
garbage collector held off), for parse and check together. The last line printed is one JSON object.
"""

from __future__ import annotations

import json
import time

from games.core.harness import reading_seconds, states_by_decision
from games.registry import PREFERRED_ORDER, get_game

INPUTS = {
    "5000_digits": "raise " + "9" * 5000,
    "100000_chars": "use zz ask " * (100_000 // 11),
}


def run() -> dict[str, dict[str, float]]:
    figures: dict[str, dict[str, float]] = {}
    for slug in PREFERRED_ORDER:
        game = get_game(slug)
        phases = states_by_decision(game)
        figures[slug] = {name: round(max(reading_seconds(game, state, seat, text, 5, time.perf_counter) * 1000
                                         for (_, seat), state in phases.items()), 3)
                         for name, text in INPUTS.items()}
        print(f"{slug:18} " + "  ".join(f"{k}: {v:.3f} ms" for k, v in figures[slug].items()),
              flush=True)
    return figures


if __name__ == "__main__":
    print(json.dumps(run()))
