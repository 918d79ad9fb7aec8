"""`umpire demo`: bot-vs-bot matches of every game through the full service.

Each match runs on a temporary SQLite database with the real store, clocks and outbox;
every message each channel would receive is printed, then one line per match.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from bot.console.render import indent, place_label, render_text
from bot.console.runtime import local_service
from bot.store.repository import StoredMessage
from bot.transport import MatchInfo, PlayerRef, render_names
from games.core import Game
from games.registry import all_games, get_game

DEMO_NAMES = ("Ada", "Bea")


class PrintTransport:
    """Prints every message of every channel as it is delivered."""

    def __init__(self, out: TextIO, quiet: bool = False) -> None:
        self.out = out
        self.quiet = quiet
        self.count = 0

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.count += 1
        if self.quiet:
            return
        from bot.clock import wall_clock

        label = f"#{match.id} {match.game} · {place_label(match, message.audience)}"
        print(indent(label, render_text(match, message, wall_clock)), file=self.out)


def demo_players(game: Game) -> list[PlayerRef]:
    bots = list(game.bots()) or ["random"]
    chosen = [bots[0], bots[1] if len(bots) > 1 else bots[0]]
    return [PlayerRef(id=f"bot:{i}", name=f"{DEMO_NAMES[i]} ({name})", bot=name)
            for i, name in enumerate(chosen)]


def result_line(game: Game, match_id: int, players: tuple[PlayerRef, ...],
                result: dict | None) -> str:  # type: ignore[type-arg]
    if not result:
        return f"{game.slug}: match #{match_id} did not finish"
    winner = result.get("winner")
    score = result.get("score")
    score_text = f" {score[0]}-{score[1]}" if score else ""
    who = "a draw" if winner is None else f"{players[winner].name} wins"
    reason = render_names(str(result.get("reason")), [p.name for p in players])
    return f"{game.slug}: match #{match_id}: {who}{score_text} ({reason})"


async def run_demo(game_names: list[str], seed: int | None, *, quiet: bool = False,
                   db: str | None = None, out: TextIO = sys.stdout,
                   timeout: float = 600.0) -> list[str]:
    games = [get_game(n) for n in game_names] if game_names else list(all_games().values())
    if not games:
        raise SystemExit("No games are installed.")
    transport = PrintTransport(out, quiet)
    async with local_service(transport, db=db) as service:
        started = []
        for i, game in enumerate(games):
            match_seed = None if seed is None else f"{seed}:{game.slug}:{i}"
            match = await service.start_match(game.slug, demo_players(game), seed=match_seed)
            started.append((game, match))
        await service.wait_finished([m.id for _, m in started], timeout=timeout)
        await service.delivery.drain()
        lines = [result_line(g, m.id, m.players, service.matches[m.id].result) for g, m in started]
    print(f"\n{transport.count} messages delivered.", file=out)
    for line in lines:
        print(line, file=out)
    return lines


def main(game_names: list[str], seed: int | None, quiet: bool, db: str | None) -> int:
    try:
        asyncio.run(run_demo(game_names, seed, quiet=quiet, db=db))
    except KeyError as exc:
        print(exc.args[0], file=sys.stderr)
        return 2
    return 0
