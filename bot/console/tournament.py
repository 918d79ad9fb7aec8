"""`umpire tournament GAME --players bot,bot,... --format swiss`: an event of built-in bots
run by the event runner through the full service, like `umpire demo` (real store, clocks,
outbox), printing the event's number, each round's pairings and every result (draws and
replays too), then the bracket (elimination), the final standings and, with `--db`, the
command that exports the record. The entrants are seeded in `--players` order, or by the
event's committed random draw with `--shuffle`.

With `--db FILE`, an event left running in that database (the process was killed) is
resumed instead of starting a new one.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from bot.console.demo import PrintTransport, bot_settings, demo_players
from bot.console.runtime import local_service
from bot.live import LiveMatch
from bot.store.settle import run_settled
from bot.tournament import event as ev
from bot.tournament import store
from bot.tournament.event import Entrant, Event, EventError, named_state
from bot.tournament.formats.base import Format, Pairing
from bot.tournament.formats.bracket import BracketFormat
from bot.tournament.render import bracket_text, standings_text
from bot.tournament.runner import EventRunner, default_formats
from bot.transport import PlayerRef
from bot.umpire import MatchService, UmpireError
from games.registry import get_game

NAMES = ("Ada", "Bea", "Cal", "Dot", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kit", "Lou",
         "Max", "Ned", "Oli", "Pam")


def entrants(game_name: str, bots: list[str]) -> list[Entrant]:
    """One entrant per bot name (checked as `umpire demo --bots` checks them)."""
    game = get_game(game_name)
    out = []
    for i, bot in enumerate(bots):
        [ref] = demo_players(game, [bot])
        name = NAMES[i] if i < len(NAMES) else f"Bot {i + 1}"
        label = ref.name.split(" ", 1)[1]  # "(heuristic)"
        out.append(Entrant(id=f"bot:{i + 1}", name=f"{name} {label}", bot=ref.bot))
    return out


def local_starter(service: MatchService, seed: int | None) -> Any:
    """Start a pairing's match on the service, as `umpire demo` does (no host)."""
    async def start(event: Event, pairing: Pairing, players: list[PlayerRef],
                    transport: dict[str, Any]) -> LiveMatch:
        game = get_game(event.game)
        settings = {**(bot_settings(game) or {}), **event.settings}
        match_seed = None
        if seed is not None:  # the event's seed and the pairing's place, never a counter
            earlier = await store.pairing_matches(service.repo.engine, event.id)
            match_seed = ev.match_seed(event, pairing, len(earlier.get(pairing.id, [])))
        return await service.start_match(event.game, players, settings=settings,
                                         seed=match_seed, transport=transport)
    return start


async def run_tournament(game_name: str, bots: list[str], format_name: str, *,
                         rounds: int | None = None, seed: int | None = None,
                         db: str | None = None, out: TextIO = sys.stdout,
                         timeout: float = 600.0, bot_think: float = 0.0,
                         formats: Any = default_formats, shuffle: bool = False) -> Event:
    game = get_game(game_name)
    fmt: Format = formats(format_name)
    players = entrants(game.slug, bots)
    transport = PrintTransport(out, quiet=True)
    made: list[EventRunner] = []

    def hook(service: MatchService) -> None:  # before resumed matches can end
        made.append(EventRunner(service, local_starter(service, seed), formats=formats))
    async with local_service(transport, db=db, bot_think=bot_think, setup=hook) as service:
        [runner] = made

        async def show(event: Event, note: str | None) -> None:
            if note:
                print(note, file=out, flush=True)
        runner.listeners.append(show)
        if db is None:
            print("No --db: the event is kept in a temporary database and thrown away at the "
                  "end (give --db FILE to keep its record and export it).", file=out,
                  flush=True)
        try:
            waiting = await store.running(service.repo.engine)
            for found in waiting:  # said before the resumed event's next round is shown
                print(f"Resuming event #{found.id} ({found.name}).", file=out, flush=True)
            resumed = await runner.resume()
            event: Event | None
            if resumed:
                event = resumed[0]
            else:
                event = await _interrupted(service, game.slug, fmt.name, players)
                if event is not None:
                    print(f"Continuing event #{event.id} ({event.name}), interrupted before "
                          f"its start.", file=out, flush=True)
                else:
                    event = await runner.create(
                        name=f"{game.title} {fmt.name}", game=game.slug, format=fmt.name,
                        rated=False, rounds=rounds, seed=None if seed is None else str(seed))
                    print(f"Event #{event.id}: {event.name}, {len(players)} players seeded "
                          f"{'in random order (--shuffle)' if shuffle else 'in --players order'}"
                          ".", file=out, flush=True)
                if not event.entrants:
                    event, _ = await runner.change(
                        event.id, lambda e: (_signed_up(e, players, shuffle), None))
                await runner.start_event(event.id)
            event = await runner.wait_ended(event.id, timeout)
            await service.delivery.drain()
        finally:
            await runner.stop()
    named = named_state(event, fmt)
    if isinstance(fmt, BracketFormat):
        print(f"Bracket of {event.name}:", file=out)
        print(bracket_text(named), file=out)
    print(f"Standings of {event.name}:", file=out)
    print(standings_text(named), file=out)
    if db is not None:
        print(f"The record: umpire export --event {event.id} --db {db_shown(db)} -o "
              f"event-{event.id}.json (then umpire verify event-{event.id}.json)", file=out)
    return event


def db_shown(db: str) -> str:
    """The --db value as the user would type it again (a SQLite URL as its file path)."""
    prefix = "sqlite+aiosqlite:///"
    return db[len(prefix):] if db.startswith(prefix) else db


async def _interrupted(service: MatchService, game: str, format_name: str,
                       players: list[Entrant]) -> Event | None:
    """A local event of the same game, format and players that a kill or Ctrl-C stopped
    between its creation and its start (its steps are stored one by one): taken up again,
    so that a second run does not leave it behind and begin another."""
    for event in await store.of_guild(service.repo.engine, 0, open_only=True):
        if (event.status == "signup" and event.game == game and event.format == format_name
                and [e.id for e in event.entrants] in ([], [p.id for p in players])):
            return event
    return None


def _signed_up(event: Event, players: list[Entrant], shuffle: bool = False) -> Event:
    """Sign-ups closed with `players`, seeded in that order (`--players` order), or by the
    committed random draw with `shuffle`."""
    event = ev.open_signups(event)
    for player in players:
        event = ev.join(event, player)
    event = ev.close_signups(event)
    return ev.seed_at_random(event) if shuffle else ev.seed_in_order(event)


def main(game: str, players: str, format_name: str, rounds: int | None, seed: int | None,
         db: str | None, shuffle: bool = False) -> int:
    bots = [b.strip() for b in players.split(",") if b.strip()]
    if len(bots) < 2:
        print("umpire tournament: --players takes at least two bot names, e.g. "
              "--players heuristic,random,heuristic,random", file=sys.stderr)
        return 2
    try:
        run_settled(run_tournament(game, bots, format_name, rounds=rounds, seed=seed, db=db,
                                   shuffle=shuffle))
    except (KeyError, UmpireError, EventError, ValueError) as exc:
        print(f"umpire tournament: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    return 0
