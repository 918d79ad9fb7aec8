"""`umpire demo`: bot-vs-bot matches of every game through the full service.

The matches run one after another on a temporary SQLite database with the real store,
clocks and outbox. By default the command shows a first look that fits a screen: per game
its players, how many moves, the first things the room saw and the result. `--full` prints
every message each channel receives, wrapped to the terminal's width; the host log shows
only what the channels did not (a private message already shown at the player's table is
not repeated), then one result line per match, winner first ("Bea (random) wins 6-4");
`--quiet` prints only those.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from dataclasses import replace
from typing import TextIO

from bot.arena.names import registered_name
from bot.console.records import result_words
from bot.console.render import (
    DEFAULT_WIDTH,
    columns,
    place_label,
    render_text,
    terminal_width,
    wrap,
)
from bot.console.runtime import local_service, watched_bot_files
from bot.store.repository import StoredMessage
from bot.store.settle import run_settled
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import UmpireError
from games.core import Game
from games.registry import all_games, get_game

DEMO_NAMES = ("Ada", "Bea")


#: Room lines the first look leaves out: the start, decisions asked, waiting, the end.
NOT_MOVES = ("🎲", "▶", "⏳", "🏁", "⏰")
FULL_HINT = ("Every message of every match: umpire demo --full (one game: umpire demo GAME "
             "--full).")


class PrintTransport:
    """Prints every message of every channel as it is delivered, wrapped to `width`; with
    `look`, prints nothing and keeps each match's room lines for `first_look`."""

    def __init__(self, out: TextIO, quiet: bool = False, width: int = DEFAULT_WIDTH,
                 look: bool = False) -> None:
        self.out = out
        self.quiet = quiet
        self.look = look
        self.width = max(40, width)
        self.count = 0
        self.room: dict[int, list[str]] = {}  # match id -> the room's lines so far (look)
        self.closed = asyncio.Event()  # the reader of our output has gone (`| head`)

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        self.count += 1
        if self.quiet or self.closed.is_set():
            return
        from bot.clock import wall_clock

        if self.look:
            if message.audience == "public" and message.seq:  # after the opening
                self.room.setdefault(match.id, []).extend(
                    render_text(match, message, wall_clock).splitlines())
            return
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


def first_look(game: Game, players: tuple[PlayerRef, ...], moves: int, room: list[str],
               result: str, width: int) -> str:
    """A match in three lines: its game and players, the first moves the room saw (as many
    as fit the width), and its result line."""
    head = f"{game.title}: {players[0].name} vs {players[1].name}, {moves} moves"
    seen = " ".join(line for line in room if line and not line.startswith(NOT_MOVES))
    return "\n".join([head, fitted("  " + seen, width), "  " + result])


def fitted(line: str, width: int) -> str:
    """`line` cut at a word to fit `width` terminal columns (an emoji takes two), with "…"."""
    if columns(line) <= width:
        return line
    cut = len(line)
    while cut and columns(line[:cut]) > width - 2:
        cut -= 1
    return line[:cut].rsplit(" ", 1)[0] + " …"


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
                result: dict | None) -> str:
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
                   width: int = DEFAULT_WIDTH, timeout: float = 600.0,
                   full: bool = True) -> list[str]:
    """Play one match of each game; return the result lines. `full`: print every message
    (else, unless `quiet`, a first look of each match as it ends)."""
    games = [get_game(n) for n in game_names] if game_names else list(all_games().values())
    if not games:
        raise UmpireError("No games are installed.")
    players = [demo_players(g, bots) for g in games]  # refuse unknown bots before any match
    look = not full and not quiet
    transport = PrintTransport(out, quiet, width, look=look)
    if look:
        transport.write(f"umpire demo: one match of {'each game' if len(games) > 1 else 'it'},"
                        " built-in bots on both seats, through the whole service.")
    lines = []
    async with local_service(transport, db=db) as service:
        failures: Counter[str] = Counter()  # a bot file's failed decisions, by file
        service.resolve_bot = watched_bot_files(lambda file, _why: failures.update([file]))
        for i, (game, seats) in enumerate(zip(games, players, strict=True)):
            failures.clear()
            match_seed = None if seed is None else f"{seed}:{game.slug}:{i}"
            if full and not quiet and i:
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
            live = service.matches[match.id]
            lines.append(result_line(game, match.id, match.players, live.result) +
                         "".join(f"; the bot file {file} failed on {n} decision"
                                 f"{'s' if n > 1 else ''} (a random card was played for it)"
                                 for file, n in sorted(failures.items())))
            if look:
                transport.write(first_look(game, match.players, live.seq,
                                           transport.room.pop(match.id, []), lines[-1],
                                           transport.width))
    if look:
        transport.write(FULL_HINT)
        return lines
    if not quiet:
        transport.write(f"\n{transport.count} messages delivered.")
    for line in lines:
        transport.write(line)
    if transport.closed.is_set():
        raise BrokenPipeError
    return lines


def main(game_names: list[str], seed: int | None, quiet: bool, db: str | None,
         bots: str | None = None, width: int | None = None, full: bool = False) -> int:
    chosen = [b.strip() for b in bots.split(",")] if bots else None
    if chosen is not None and (len(chosen) != 2 or not all(chosen)):
        print("umpire demo: --bots takes two bot names, e.g. --bots heuristic,random",
              file=sys.stderr)
        return 2
    try:
        run_settled(run_demo(game_names, seed, quiet=quiet, db=db, bots=chosen,
                             width=width or terminal_width(), full=full))
    except (KeyError, UmpireError) as exc:
        print(f"umpire demo: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    return 0
