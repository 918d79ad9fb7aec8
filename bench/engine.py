"""Engine speed: random-play matches per second, straight through the game contract.

    python -m bench.engine rps-poker [--matches N]

No checks, no service: setup, prompts, random_command, check, apply until the match ends.
The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from games.registry import all_games, get_game


def play(game_slug: str, matches: int) -> dict[str, float]:
    game = get_game(game_slug)
    settings = game.settings_model()
    rng = random.Random(1)
    commands = 0
    start = time.perf_counter()
    for i in range(matches):
        state = game.setup(settings, f"bench-{i}")
        while True:
            prompts = game.prompts(state)
            if not prompts:
                break
            prompt = rng.choice(prompts)
            command = game.random_command(state, prompt, rng)
            game.check(state, prompt.seat, command)
            game.apply(state, prompt.seat, command)
            commands += 1
    elapsed = time.perf_counter() - start
    return {"game": game_slug, "matches": matches, "seconds": round(elapsed, 3),
            "matches_per_second": round(matches / elapsed, 1),
            "commands_per_second": round(commands / elapsed, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help=f"games ({', '.join(all_games())}); default all")
    parser.add_argument("--matches", type=int, default=500)
    args = parser.parse_args()
    results = [play(g, args.matches) for g in (args.games or list(all_games()))]
    for r in results:
        print(f"{r['game']}: {r['matches_per_second']} matches/s, "
              f"{r['commands_per_second']} commands/s ({r['matches']} matches in {r['seconds']} s)")
    print(json.dumps(results[0] if len(results) == 1 else {"results": results}))


if __name__ == "__main__":
    main()
