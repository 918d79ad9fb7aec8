"""`umpire play GAME`: a person plays a whole match in the terminal against a built-in bot.

The terminal shows what the public game room and the person's own table channel would show;
the real clocks run (a decision not made in time gets its timeout outcome). Typed lines go
where the pending decision is made (the table channel for private decisions, else the room);
lines starting with "/" are console commands (/help).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TextIO

from bot.bots import known_bot
from bot.clock import wall_clock
from bot.console.render import indent, place_label, render_text
from bot.console.runtime import local_service
from bot.store.repository import StoredMessage
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import MatchService, UmpireError
from games.registry import get_game

HUMAN_ID = "console:you"
HELP = """Type your move as you would in Discord (e.g. `keep R3`, `play 2`, `raise 3`).
Console commands:
  /help            this text
  /view            what you know now: your pool, hand, tanks... (private)
  /json            the same, as the full JSON view
  /status          whose decision it is and the clocks
  /room TEXT       send TEXT to the public game room
  /table TEXT      send TEXT to your private table channel
  /pause, /resume  stop and restart every clock (as a host)
  /quit            abort the match and leave"""


class TerminalTransport:
    """Prints the room and one seat's table channel; the opponent's table stays hidden."""

    def __init__(self, seat: int, out: TextIO, show_log: bool = False) -> None:
        self.seat = seat
        self.out = out
        self.show_log = show_log

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        visible = {"public", f"seat{self.seat}"} | ({"umpire"} if self.show_log else set())
        if message.audience not in visible:
            return
        label = "your table" if message.audience == f"seat{self.seat}" else \
            place_label(match, message.audience)
        print(indent(label, render_text(match, message, wall_clock)), file=self.out, flush=True)


async def _read_lines(queue: asyncio.Queue[str | None], stream: TextIO) -> None:
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, stream.readline)
        await queue.put(line if line else None)
        if not line:
            return


async def _handle(service: MatchService, match_id: int, seat: int, line: str,
                  out: TextIO) -> bool:
    """Handle one typed line; False when the person wants to leave."""
    text = line.strip()
    if not text:
        return True
    if text.startswith("/"):
        cmd, _, rest = text[1:].partition(" ")
        cmd = cmd.lower()
        try:
            if cmd in ("quit", "exit", "q"):
                await service.abort(match_id, "the player left the console")
                return False
            if cmd == "help":
                print(HELP, file=out)
            elif cmd == "view":
                print(service.describe(match_id, HUMAN_ID), file=out)
            elif cmd == "json":
                print(json.dumps(service.view(match_id, seat), indent=2, ensure_ascii=False),
                      file=out)
            elif cmd == "status":
                print(service.status_text(match_id), file=out)
            elif cmd == "pause":
                await service.pause(match_id)
            elif cmd == "resume":
                await service.resume(match_id)
            elif cmd in ("room", "table"):
                reply = await service.submit(match_id, HUMAN_ID, rest,
                                             table_of=seat if cmd == "table" else None)
                if not reply.accepted and reply.message:
                    print(f"[umpire → you] {reply.message}", file=out)
            else:
                print(f"Unknown console command /{cmd}; /help lists them.", file=out)
        except UmpireError as exc:
            print(f"[umpire → you] {exc}", file=out)
        return True
    match = service.matches[match_id]
    private = any(p.private for p in match.prompts if p.seat == seat)
    reply = await service.submit(match_id, HUMAN_ID, text, table_of=seat if private else None)
    if not reply.accepted and reply.message:
        print(f"[umpire → you] {reply.message}", file=out)
    return True


async def run_play(game_name: str, *, bot: str | None, seat: int, seed: str | None,
                   db: str | None, name: str, show_log: bool = False,
                   stream: TextIO = sys.stdin, out: TextIO = sys.stdout,
                   bot_think: float = 0.5) -> dict | None:  # type: ignore[type-arg]
    game = get_game(game_name)
    bots = game.bots()
    bot_name = bot or next(iter(bots), None)
    if bot_name and bot_name.endswith((".py", ".js")) and not bot_name.startswith("file:"):
        bot_name = f"file:{bot_name}"  # an arena bot file (RPS Poker)
    if bot_name is None or not known_bot(game, bot_name):
        raise UmpireError(f"Unknown bot {bot!r} for {game.title}. Bots: {', '.join(bots)}"
                          + (", or an arena bot file (.py/.js)." if game.slug == "rps-poker" else "."))
    human = PlayerRef(id=HUMAN_ID, name=name)
    label = bot_name.rsplit("/", 1)[-1] if bot_name.startswith("file:") else bot_name
    opponent = PlayerRef(id=f"bot:{bot_name}", name=f"{label} (bot)", bot=bot_name)
    players = [human, opponent]
    transport = TerminalTransport(seat, out, show_log)
    print(f"{game.title}: you ({name}) against the {bot_name} bot. You hold "
          f"{'the advantage (seat 0)' if seat == 0 else 'seat 1'}. Type /help for help.",
          file=out, flush=True)
    async with local_service(transport, db=db, bot_think=bot_think) as service:
        match = await service.start_match(game.slug, players, advantage=seat if seat == 0 else 1,
                                          seed=seed)
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        reader = asyncio.create_task(_read_lines(queue, stream))
        finished = asyncio.create_task(service.wait_finished([match.id]))
        try:
            while not finished.done():
                getter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait({getter, finished}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    break
                line = getter.result()
                if line is None:  # end of input: the person is gone
                    if service.matches[match.id].status in ("active", "paused"):
                        await service.abort(match.id, "the console input ended")
                    break
                if not await _handle(service, match.id, seat, line, out):
                    break
        finally:
            reader.cancel()
            finished.cancel()
        await service.delivery.drain()
        return service.matches[match.id].result


def main(game_name: str, bot: str | None, seat: int, seed: str | None, db: str | None,
         name: str, show_log: bool) -> int:
    try:
        asyncio.run(run_play(game_name, bot=bot, seat=seat, seed=seed, db=db, name=name,
                             show_log=show_log))
    except (KeyError, UmpireError) as exc:
        print(exc.args[0] if exc.args else exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
