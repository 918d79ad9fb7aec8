"""`umpire demo`: bot-vs-bot matches of every game through the full service.

The matches run one after another on a temporary SQLite database with the real store,
clocks and outbox. Every message each channel receives is printed, wrapped to the
terminal's width; the host log shows only what the channels did not (a private message
already shown at the player's table is not repeated). One result line per match follows,
winner first ("Bea (random) wins 6-4"); `--quiet` prints only those.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import textwrap
from collections import Counter
from dataclasses import replace
from typing import TextIO

from bot.arena.names import registered_name
from bot.console.records import result_words
from bot.console.render import place_label, render_text
from bot.console.runtime import local_service, watched_bot_files
from bot.store.repository import StoredMessage
from bot.store.settle import run_settled
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import UmpireError
from games.core import Game
from games.registry import all_games, get_game

DEMO_NAMES = ("Ada", "Bea")
DEFAULT_WIDTH = 100


class PrintTransport:
    """Prints every message of every channel as it is delivered, wrapped to `width`."""

    def __init__(self, out: TextIO, quiet: bool = False, width: int = DEFAULT_WIDTH) -> None:
        self.out = out
        self.quiet = quiet
        self.width = max(40, width)
        self.count = 0
        self.closed = asyncio.Event()  # the reader of our output has gone (`| head`)

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.count += 1
        if self.quiet or self.closed.is_set():
            return
        from bot.clock import wall_clock

        text = message.text
        if message.audience == "umpire":  # private lines were shown at the player's table
            text = "\n".join(line for line in text.splitlines() if not line.startswith("[to {P"))
            if not text.strip():
                return
        label = f"[#{match.id} {place_label(match, message.audience)}] "
        rendered = render_text(match, replace(message, text=text), wall_clock)
        self.write(wrap(label, rendered, self.width))

    def write(self, text: str) -> None:
        if self.closed.is_set():
            return
        try:
            print(text, file=self.out, flush=True)
        except BrokenPipeError:
            self.closed.set()


def wrap(label: str, text: str, width: int) -> str:
    """`label` then the text, every line wrapped to `width` and indented under the label."""
    pad = " " * len(label)
    out: list[str] = []
    for n, line in enumerate(text.splitlines() or [""]):
        first = label if n == 0 else pad
        out += textwrap.wrap(line, width, initial_indent=first, subsequent_indent=pad + "  ",
                             break_on_hyphens=False) or [first.rstrip()]
    return "\n".join(out)


def demo_players(game: Game, bots: list[str] | None = None) -> list[PlayerRef]:
    """The two players: the chosen bots (built-in names, or for RPS Poker arena bot files),
    else the game's first two. A bot file is loaded now: a broken one is refused here."""
    from bot.bots import known_bot, resolve_bot

    available = list(game.bots()) or ["random"]
    chosen = [registered_name(available, b) for b in bots] if bots else \
        [available[0], available[1] if len(available) > 1 else available[0]]
    players = []
    for i, name in enumerate(chosen):
        bot = f"file:{name}" if name.endswith((".py", ".js")) and ":" not in name else name
        if not known_bot(game, bot):
            files = ", or an arena bot file (.py/.js)" if game.slug == "rps-poker" else ""
            raise UmpireError(f"{game.title} has no bot {name!r}; its bots: "
                              f"{', '.join(available)}{files}. Bots belong to one game: "
                              "name it, e.g. `umpire demo rps-poker --bots heuristic,random`.")
        if bot.startswith("file:"):
            from bot.arena.jsbot import NodeMissing
            from bot.arena.loader import BotLoadError

            try:
                resolve_bot(game, bot)
            except (BotLoadError, NodeMissing) as exc:
                raise UmpireError(f"--bots {name}: {exc}") from None
        label = bot.removeprefix("file:").rsplit("/", 1)[-1] if bot.startswith("file:") else bot
        players.append(PlayerRef(id=f"bot:{i}", name=f"{DEMO_NAMES[i]} ({label})", bot=bot))
    return players


def result_line(game: Game, match_id: int, players: tuple[PlayerRef, ...],
                result: dict | None) -> str:  # type: ignore[type-arg]
    """"rps-poker: match #1: Bea (random) wins 6-4 (reason)", winner first."""
    if not result:
        return f"{game.slug}: match #{match_id} did not finish"
    return f"{game.slug}: match #{match_id}: {result_words(result, [p.name for p in players])}"


def bot_settings(game: Game) -> dict[str, object] | None:
    """The settings of a match between built-in bots, with no host: no break between
    rounds (the runtime skips it for bots; the game's own text then says so instead of
    announcing one), and a setup that locks when both are ready."""
    fields = game.settings_model.model_fields
    settings: dict[str, object] = {}
    if "break_seconds" in fields:
        settings["break_seconds"] = 0
    if "lock_when_ready" in fields:
        settings["lock_when_ready"] = True
    return settings or None


async def run_demo(game_names: list[str], seed: int | None, *, quiet: bool = False,
                   db: str | None = None, out: TextIO = sys.stdout, bots: list[str] | None = None,
                   width: int = DEFAULT_WIDTH, timeout: float = 600.0) -> list[str]:
    games = [get_game(n) for n in game_names] if game_names else list(all_games().values())
    if not games:
        raise UmpireError("No games are installed.")
    players = [demo_players(g, bots) for g in games]  # refuse unknown bots before any match
    transport = PrintTransport(out, quiet, width)
    lines = []
    async with local_service(transport, db=db) as service:
        failures: Counter[str] = Counter()  # a bot file's failed decisions, by file
        service.resolve_bot = watched_bot_files(lambda file, _why: failures.update([file]))
        for i, (game, seats) in enumerate(zip(games, players, strict=True)):
            failures.clear()
            match_seed = None if seed is None else f"{seed}:{game.slug}:{i}"
            if not quiet and i:
                transport.write("")
            match = await service.start_match(game.slug, seats, seed=match_seed,
                                              settings=bot_settings(game))
            finished = asyncio.create_task(service.wait_finished([match.id], timeout=timeout))
            closed = asyncio.create_task(transport.closed.wait())
            await asyncio.wait({finished, closed}, return_when=asyncio.FIRST_COMPLETED)
            closed.cancel()
            if transport.closed.is_set():
                finished.cancel()
                raise BrokenPipeError
            await finished
            await service.delivery.drain()
            lines.append(result_line(game, match.id, match.players,
                                     service.matches[match.id].result) +
                         "".join(f"; the bot file {file} failed on {n} decision"
                                 f"{'s' if n > 1 else ''} (a random card was played for it)"
                                 for file, n in sorted(failures.items())))
    if not quiet:
        transport.write(f"\n{transport.count} messages delivered.")
    for line in lines:
        transport.write(line)
    if transport.closed.is_set():
        raise BrokenPipeError
    return lines


def terminal_width() -> int:
    return min(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, 120)


def main(game_names: list[str], seed: int | None, quiet: bool, db: str | None,
         bots: str | None = None, width: int | None = None) -> int:
    chosen = [b.strip() for b in bots.split(",")] if bots else None
    if chosen is not None and (len(chosen) != 2 or not all(chosen)):
        print("umpire demo: --bots takes two bot names, e.g. --bots heuristic,random",
              file=sys.stderr)
        return 2
    try:
        run_settled(run_demo(game_names, seed, quiet=quiet, db=db, bots=chosen,
                             width=width or terminal_width()))
    except (KeyError, UmpireError) as exc:
        print(f"umpire demo: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    return 0
