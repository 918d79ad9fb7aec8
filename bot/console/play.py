"""`umpire play GAME`: a person plays a whole match in the terminal against a built-in bot.

The terminal shows what the public game room and the person's own table channel would show;
the real clocks run (a decision not made in time gets its timeout outcome). Typed lines go
where the pending decision is made (the table channel for private decisions, else the room);
lines starting with "/" are console commands (/help).

The match is stored (by default in a file in the user's data folder), so a match left with
Ctrl-C can be continued with `umpire play --resume ID`: on start the service shifts every
clock by the time it was away, so the clocks are as they were. The command ends as soon as
the match ends or the person types /quit; it never waits for another line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from bot.arena.names import registered_name
from bot.bots import known_bot
from bot.clock import wall_clock
from bot.console.render import (
    DEFAULT_WIDTH,
    place_label,
    reflow,
    render_text,
    terminal_width,
    wrap,
    wrap_lines,
)
from bot.console.runtime import local_service, watched_bot_files
from bot.live import LiveMatch
from bot.status import RUNNING, MatchStatus
from bot.store.repository import StoredMessage
from bot.store.settle import run_settled
from bot.transport import MatchInfo, PlayerRef, render_names, seconds_left
from bot.umpire import MatchService, UmpireError
from games.core import BotFactory, Game
from games.registry import get_game

HUMAN_ID = "console:you"
#: The label of what the umpire tells only the person (a refusal, an error).
TOLD = "[umpire → you] "
#: Lines per /rules page when the terminal's height cannot be known.
RULES_PAGE_LINES = 40


def rules_height() -> int:
    """A /rules page: the terminal's height, less room for the prompt line."""
    return max(15, shutil.get_terminal_size((DEFAULT_WIDTH, RULES_PAGE_LINES + 2)).lines - 2)
#: The console's own commands (every game), after the game's moves in /help.
CONSOLE_COMMANDS = """Console commands:
  /help            this text
  /rules [PAGE]    the whole rules page of this game, as the umpire applies it, a page at a time
  /view, /mine     what you know now: your pool, hand, tanks... (private)
  /json            the same, as the full JSON view
  /status          whose decision it is and the clocks
  /room TEXT       send TEXT to the public game room
  /table TEXT      send TEXT to your private table channel
  /fix TEXT        replace your move while it waits to be taken (Decoder: 3 s after typing)
  /undo            withdraw your move while it waits to be taken
  /pause, /resume  stop and restart every clock (as a host)
  /quit            abort the match and leave
Ctrl-C leaves the match as it is: continue it later with `umpire play --resume ID`."""

NOTHING_WAITING = ("No move of yours is waiting to be taken: a move waits only for a decision "
                   "with a fix window (Decoder's moves in the room), until its seconds are up.")


def help_text(game: Game, now: str | None) -> str:
    """/help: what to type in this game (`now`: the usage of the decision open to the
    person, None when nothing is asked of them), from the game's own grammar, then the
    console's commands."""
    lines = [f"{game.title}: type your move and press Enter; it goes where it belongs (your "
             "table or the room)."]
    lines.append(f"Now: {now.removeprefix('Type: ')}" if now else "Nothing is asked of you now; your next decision "
                 "is shown when it comes.")
    moves = game.move_help()
    if moves:
        lines.append(f"What {game.title} reads:")
        lines += [f"  - {move}" for move in moves]
    return "\n".join([*lines, CONSOLE_COMMANDS])


def default_db() -> Path:
    """The default database (bot.database_choice), its folder made; `umpire play` is
    given the chosen database by the command line, this is for callers that give none."""
    from bot.database_choice import default_file

    path = default_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:  # no writable home: a file in the temporary folder still allows --resume
        return Path(tempfile.gettempdir()) / path.name
    return path


class TerminalTransport:
    """Prints the room and one seat's table channel of one match; the opponent's table
    (and any other match in the database) stays hidden."""

    def __init__(self, seat: int, out: TextIO, show_log: bool = False,
                 width: int | None = None) -> None:
        self.seat = seat
        self.out = out
        self.show_log = show_log
        self.width = width or terminal_width()  # wrapped like `umpire demo`
        self.match_id: int | None = None  # ours, once known
        self.others: set[int] = set()  # matches that are not ours

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        if match.id in self.others or self.match_id not in (None, match.id):
            return
        visible = {"public", f"seat{self.seat}"} | ({"umpire"} if self.show_log else set())
        if message.audience not in visible:
            return
        label = "your table" if message.audience == f"seat{self.seat}" else \
            place_label(match, message.audience)
        with contextlib.suppress(BrokenPipeError):  # nobody reads us: the match is still stored
            print(wrap(f"[{label}] ", render_text(match, message, wall_clock), self.width),
                  file=self.out, flush=True)


def _start_reader(queue: asyncio.Queue[str | None], stream: TextIO) -> None:
    """Read lines in a daemon thread: a blocked read never holds up the end of the program."""
    loop = asyncio.get_running_loop()

    def read() -> None:
        while True:
            try:
                line = stream.readline()
            except (OSError, ValueError):
                line = ""
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line or None)
            except RuntimeError:  # the loop is closed: the program is ending
                return
            if not line:
                return

    threading.Thread(target=read, name="console-input", daemon=True).start()


def status_words(service: MatchService, match: LiveMatch, seat: int) -> str:
    """/status in the players' words: whose decision it is, what it is, the clocks. The
    opponent's private decisions are only said to be pending (their text is theirs)."""
    names = match.names
    state = {"active": "running", "paused": "paused (every clock stopped)",
             "finished": "over", "aborted": "aborted"}.get(match.status, match.status)
    lines = [f"Match #{match.id}: {match.game.title}, {names[0]} vs {names[1]}: {state}."]
    for p in match.prompts:
        clock = match.clocks.get(p.key)
        left = ""
        if clock and clock.limit_at and match.status == MatchStatus.ACTIVE:
            left = f" (time runs out {seconds_left(clock.limit_at, service.now())}" + \
                (f", then a bank of {int(p.bank)} s)" if p.bank else ")")
        if p.seat == seat:
            what = render_names(p.text, names).split("\n")[0]
            lines.append(f"Your decision{left}: {what}")
        elif p.private:
            lines.append(f"Waiting for {names[p.seat]} to decide privately{left}.")
        else:
            lines.append(f"Waiting for {names[p.seat]}{left}: "
                         f"{render_names(p.text, names).splitlines()[0]}")
    if match.result:
        from bot.console.records import result_words

        lines.append(f"Result: {result_words(match.result, names)}.")
    return "\n".join(lines)


def rules_pages(slug: str, width: int, height: int,
                names: tuple[str, str] | None = None) -> list[str]:
    """The game's whole rules page (`Game.rules_page`), wrapped to `width` and cut into pages
    of at most `height` lines, each cut at a blank line where one is near; the page's seat
    names ({P0}, {P1}) as the match's players' `names`."""
    body = get_game(slug).rules_page()
    if body is None:
        return [f"No rules page is installed for {slug}."]
    lines = reflow(render_names(body, list(names)) if names else body, width)
    pages: list[str] = []
    while lines:
        cut = len(lines) if len(lines) <= height else height
        if cut < len(lines):  # at the last blank line of the page's second half, a
            # heading going with what follows it
            blank = max((n for n in range(height // 2, height) if not lines[n].strip()),
                        default=None)
            if blank is None:  # else before the last list item that starts in it
                blank = max((n - 1 for n in range(height // 2, height)
                             if lines[n].lstrip().startswith(("- ", "* "))), default=None)
            cut = blank + 1 if blank is not None else height
            while cut > height // 2 and lines[cut - 1].startswith("#") or \
                    (cut > height // 2 and not lines[cut - 1].strip() and
                     lines[cut - 2].startswith("#")):
                cut -= 1
        pages.append("\n".join(lines[:cut]).strip("\n"))
        lines = lines[cut:]
    return pages


def rules_text(slug: str, page: str = "", width: int = DEFAULT_WIDTH,
               height: int = RULES_PAGE_LINES, names: tuple[str, str] | None = None) -> str:
    """/rules [PAGE]: one page of the rules, with where the others are."""
    pages = rules_pages(slug, width, height, names)
    try:
        number = int(page) if page.strip() else 1
    except ValueError:
        number = 0
    if not 1 <= number <= len(pages):
        return f"There is no rules page {page.strip()!r}: give a page from 1 to {len(pages)}."
    more = (f"/rules {number + 1} for the next" if number < len(pages) else "the last page")
    return f"{pages[number - 1]}\n\n(Rules page {number} of {len(pages)}: {more}.)"


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
            live = service.matches[match_id]
            if cmd == "help":
                now = live.game.usage(live.state, seat) if any(
                    p.seat == seat for p in live.prompts) else None
                print(wrap_lines(help_text(live.game, now), terminal_width()), file=out)
            elif cmd == "rules":
                print(rules_text(live.game.slug, rest, terminal_width(), rules_height(),
                                 (live.names[0], live.names[1])), file=out)
            elif cmd in ("view", "mine"):
                print(wrap_lines(service.describe(match_id, HUMAN_ID), terminal_width()),
                      file=out)
            elif cmd == "json":
                print(render_names(json.dumps(service.view(match_id, seat), indent=2,
                                              ensure_ascii=False), live.names), file=out)
            elif cmd == "status":
                print(wrap_lines(status_words(service, live, seat), terminal_width()),
                      file=out)
            elif cmd == "pause":
                await service.pause(match_id)
            elif cmd == "resume":
                await service.resume(match_id)
            elif cmd in ("fix", "undo"):
                reply = (await service.fix(match_id, HUMAN_ID, rest) if cmd == "fix" else
                         await service.withdraw(match_id, user_id=HUMAN_ID))
                if reply.ignored:
                    print(f"[umpire → you] {NOTHING_WAITING}", file=out)
            elif cmd in ("room", "table"):
                reply = await service.submit(match_id, HUMAN_ID, rest,
                                             table_of=seat if cmd == "table" else None)
                if not reply.accepted and reply.message:
                    print(wrap(TOLD, reply.message, terminal_width()), file=out)
            else:
                print(f"Unknown console command /{cmd}; /help lists them.", file=out)
        except UmpireError as exc:
            print(wrap(TOLD, str(exc), terminal_width()), file=out)
        out.flush()
        return True
    match = service.matches[match_id]
    private = any(p.private for p in match.prompts if p.seat == seat)
    # (a ref of its own: a decision with a fix window lets `/fix` and `/undo` change it)
    reply = await service.submit(match_id, HUMAN_ID, text, table_of=seat if private else None,
                                 message_ref=f"console-{time.monotonic_ns()}")
    if not reply.accepted and reply.message:
        print(wrap(TOLD, reply.message, terminal_width()), file=out, flush=True)
    return True


def told_failures(out: TextIO) -> Callable[[Game, str], BotFactory | None]:
    """`resolve_bot`, with each failure of a bot file (an error, an invalid answer: the
    arena plays a random card instead) told to the person, instead of passing in silence."""
    def tell(file: str, why: str) -> None:
        with contextlib.suppress(BrokenPipeError):
            print(f"[umpire → you] The bot file {file} failed on this decision ("
                  f"{why or 'it raised an error or gave an invalid answer'}), so a random "
                  "card was played for it.", file=out, flush=True)
    return watched_bot_files(tell)


def _opponent(game_slug: str, bot: str | None) -> str:
    """The bot's name as the service knows it; a bot file is loaded now, so that a broken
    one is an error here instead of a bot that plays at random."""
    game = get_game(game_slug)
    bots = game.bots()
    bot_name = bot or next(iter(bots), None)
    if bot_name:
        bot_name = registered_name(bots, bot_name)  # `saver` or `arena:saver`
    if bot_name and bot_name.endswith((".py", ".js")) and not bot_name.startswith("file:"):
        bot_name = f"file:{bot_name}"  # an arena bot file (RPS Poker)
    if bot_name is None or not known_bot(game, bot_name):
        raise UmpireError(f"Unknown bot {bot!r} for {game.title}. Bots: {', '.join(bots)}"
                          + (", or an arena bot file (.py/.js)." if game.slug == "rps-poker" else "."))
    if bot_name.startswith("file:"):
        from bot.arena.jsbot import NodeMissing
        from bot.arena.loader import BotLoadError
        from bot.bots import resolve_bot

        try:
            resolve_bot(game, bot_name)  # loads the file once (kept for the match)
        except (BotLoadError, NodeMissing) as exc:
            raise UmpireError(f"--bot {bot_name[len('file:'):]}: {exc}") from None
    return bot_name


async def run_play(game_name: str | None, *, bot: str | None, seat: int, seed: str | None,
                   db: str | None, name: str, show_log: bool = False,
                   stream: TextIO = sys.stdin, out: TextIO = sys.stdout,
                   bot_think: float = 0.5, resume: int | None = None,
                   started: list[int] | None = None) -> dict | None:
    """Play (or with `resume`, continue) one match; its result, None if left unfinished.
    `started` receives the match id as soon as it is known."""
    if resume is None:
        game = get_game(game_name or "")
        bot_name = _opponent(game.slug, bot)
    transport = TerminalTransport(seat, out, show_log)
    async with local_service(transport, db=db, bot_think=bot_think) as service:
        service.resolve_bot = told_failures(out)
        if resume is not None:
            live = service.matches.get(resume)
            if live is None:
                raise UmpireError(f"There is no running match #{resume} to resume in this "
                                  "database (it ended, or was never started here).")
            found = live.seat_of(HUMAN_ID)
            if found is None:
                raise UmpireError(f"Match #{resume} is not a console match.")
            seat = transport.seat = found
            transport.match_id = live.id
            match_id = live.id
            print(f"{live.game.title}: continuing match #{live.id}, {live.names[0]} vs "
                  f"{live.names[1]}; the clocks are as they were. Type /help for help.",
                  file=out, flush=True)
            print(status_words(service, live, seat), file=out, flush=True)
        else:
            human = PlayerRef(id=HUMAN_ID, name=name)
            label = bot_name.rsplit("/", 1)[-1] if bot_name.startswith("file:") else bot_name
            opponent = PlayerRef(id=f"bot:{bot_name}", name=f"{label} (bot)", bot=bot_name)
            print(f"{game.title}: you ({name}) against the {bot_name} bot. You hold "
                  f"{'the advantage (seat 0)' if seat == 0 else 'seat 1'}. Type /help for help.",
                  file=out, flush=True)
            transport.others = set(service.matches)  # older matches in the database
            # No host in the console: Decoder's setup locks once both are ready (house option).
            hostless = ({"lock_when_ready": True}
                        if "lock_when_ready" in game.settings_model.model_fields else None)
            match = await service.start_match(game.slug, [human, opponent], advantage=seat,
                                              seed=seed, settings=hostless)
            transport.match_id = match_id = match.id
            await service.delivery.drain()
        if started is not None:
            started.append(match_id)
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        piped = not _isatty(stream)  # moves read ahead wait for their decision
        _start_reader(queue, stream)
        finished = asyncio.create_task(service.wait_finished([match_id]))
        try:
            while not finished.done():
                getter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait({getter, finished},
                                             return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    break
                line = getter.result()
                if line is None:  # end of input: the match stays as it is, to be resumed
                    if service.matches[match_id].status in RUNNING:
                        raise InputEnded(match_id)
                    break
                if piped and not line.strip().startswith("/"):
                    await _your_turn(service, match_id, seat, finished)
                    if finished.done():
                        break
                if not await _handle(service, match_id, seat, line, out):
                    break
        finally:
            finished.cancel()
        await service.delivery.drain()
        return service.matches[match_id].result


class InputEnded(Exception):
    """The input ended while the match was still running: it stays stored, to be resumed."""

    def __init__(self, match_id: int) -> None:
        super().__init__(match_id)
        self.match_id = match_id


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


async def _your_turn(service: MatchService, match_id: int, seat: int,
                     finished: asyncio.Future[None]) -> None:
    """Wait until the person has a decision open (or the match ends): a move piped in ahead
    of its prompt is applied when the prompt comes, not refused."""
    while not finished.done():
        match = service.matches[match_id]
        if match.status not in RUNNING or \
                (match.status == MatchStatus.ACTIVE and any(p.seat == seat for p in match.prompts)):
            return
        await asyncio.sleep(0.02)


def main(game_name: str | None, bot: str | None, seat: int, seed: str | None, db: str | None,
         name: str, show_log: bool, resume: int | None = None,
         shown_db: str | None = None) -> int:
    """`shown_db`: the --db the person gave (None: the default database, which the commands
    they are told to run find without it)."""
    started: list[int] = []
    database = db or str(default_db())
    where = f" --db {shown_db}" if shown_db else ""
    try:
        run_settled(run_play(game_name, bot=bot, seat=seat, seed=seed, db=database, name=name,
                             show_log=show_log, resume=resume, started=started))
    except (KeyError, UmpireError) as exc:
        print(f"umpire play: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except InputEnded as ended:
        print(f"The input ended: match #{ended.match_id} is left as it is. Continue it with: "
              f"umpire play --resume {ended.match_id}{where}", file=sys.stderr)
        return 0
    except KeyboardInterrupt:
        if started:
            print(f"\nLeft match #{started[0]} as it is. Continue it with: "
                  f"umpire play --resume {started[0]}{where}", file=sys.stderr)
        return 130
    if started:
        print(f"The match is kept as #{started[0]}: `umpire export {started[0]}{where}` "
              f"writes its record, `umpire export {started[0]}{where} --text` its transcript.",
              file=sys.stdout)
    return 0
