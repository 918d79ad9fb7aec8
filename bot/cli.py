"""The `umpire` command: run the Discord bot, play or demo locally, migrate, run the arena,
list, export and verify match records.

A user's mistake (a bad option, config value, database URL or file) ends with one sentence
on standard error and a non-zero exit code, never a traceback; output piped into a reader
that stops early (`| head`) ends quietly; Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.store.problems import database_problem, first_line, scrubbed


class UserError(Exception):
    """A mistake the user can fix: printed as one sentence, exit code 2 (or `code`)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def _games_help() -> str:
    from games.registry import all_games  # here, not at the top: `umpire arena` needs no game

    return ", ".join(all_games()) or "none installed"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # only for --help, --version

    try:
        return version("umpire")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


#: --db of every command that has one (bot.database_choice says why these three).
_DB_HELP = ("database path or URL (default: the configured one, else "
            "~/.local/share/umpire/umpire.db: the one database every command uses)")


class _VersionAction(argparse.Action):
    """--version: the version and the arena core that runs. pip shows the build's note
    about a core it could not compile only with -v, so this is where a user sees it."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from bot.arena.match import CORE

        print(f"umpire {_version()} (arena core: {CORE})")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="umpire",
        description="Umpires two-player card and deduction games on Discord and locally.")
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="the installed version, and which arena core runs")
    parser.add_argument("--config", help="config file (default: config.toml or $UMPIRE_CONFIG)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser("run", help="run the Discord bot (needs a token)")
    run.add_argument("--check", action="store_true",
                     help="check the token, the intents, the database and each server's "
                     "permissions, one line each, then exit (non-zero if any fails); the "
                     "same checks run at every start")

    sub.add_parser("health", help="is `umpire run` well: its process, its database and its "
                   "Discord connection, one line each (exit 1 if not; the container's "
                   "HEALTHCHECK)")

    sub.add_parser("invite", help="the link that adds the bot to a server, with the "
                   "permissions the configured channel mode needs and why")

    demo = sub.add_parser("demo", help="bot-vs-bot matches of every game, one at a time: a "
                          "first look of each (--full: every message)")
    demo.add_argument("games", nargs="*", metavar="GAME", help=f"games to play ({_games_help()}); "
                      "default: all")
    demo.add_argument("--seed", type=int, help="seed for reproducible matches")
    demo.add_argument("--bots", metavar="A,B", help="the two bots (default: the game's first "
                      "two): names, or for rps-poker arena bot files, e.g. `umpire demo "
                      "rps-poker --bots heuristic,random` or `--bots mybot.py,random`")
    demo.add_argument("--full", action="store_true", help="print every message of every "
                      "match (default: a first look of each, a few moves and the result)")
    demo.add_argument("--quiet", action="store_true", help="print only the result lines")
    demo.add_argument("--width", type=_width, default=None, metavar="N",
                      help="wrap lines at N characters (default: the terminal's width, or 100)")
    demo.add_argument("--db", help="database path or URL (default: a temporary SQLite file)")

    tour = sub.add_parser("tournament", help="an event of built-in bots (single, double, "
                          "roundrobin or swiss), run round by round through the full service")
    tour.add_argument("game", metavar="GAME", help=f"the game ({_games_help()})")
    tour.add_argument("--players", required=True, metavar="BOT,BOT,...",
                      help="one built-in bot name per entrant, in seed order (the first is "
                           "seed 1), e.g. heuristic,random,heuristic,random")
    tour.add_argument("--shuffle", action="store_true",
                      help="seed the players by the event's committed random draw instead "
                           "of in --players order")
    tour.add_argument("--format", default="single", dest="event_format",
                      help="single (default), double, roundrobin or swiss")
    tour.add_argument("--rounds", type=int, help="Swiss: the number of rounds")
    tour.add_argument("--seed", type=int, help="seed for a reproducible event")
    tour.add_argument("--db", help="database path or URL (default: a temporary SQLite file); "
                      "an event left running there is resumed")

    play = sub.add_parser("play", help="play a match in the terminal against a built-in bot")
    play.add_argument("game", metavar="GAME", nargs="?",
                      help=f"the game ({_games_help()}); not needed with --resume")
    play.add_argument("--bot", help="the opponent bot (default: the game's strongest); for "
                      "rps-poker also an arena bot file, e.g. --bot mybot.py")
    play.add_argument("--seat", type=int, choices=(0, 1), default=0,
                      help="0: you hold the advantage (default); 1: the bot does")
    play.add_argument("--seed", help="seed for a reproducible match")
    play.add_argument("--db", help=_DB_HELP + "; a match left with Ctrl-C can be resumed")
    play.add_argument("--resume", type=int, metavar="ID",
                      help="continue match ID (left with Ctrl-C), clocks as they were")
    play.add_argument("--name", default="Player", help="your name in the match (default: Player)")
    play.add_argument("--show-log", action="store_true",
                      help="also show the host log (every secret: for learning the rules)")

    migrate = sub.add_parser("migrate", help="create or upgrade the database")
    migrate.add_argument("--db", help=_DB_HELP)

    matches = sub.add_parser("matches", help="list the matches in a database")
    matches.add_argument("--db", help=_DB_HELP)
    matches.add_argument("--limit", type=int, default=50, help="at most N matches (default 50)")

    events = sub.add_parser("events", help="list the events (tournaments) in a database")
    events.add_argument("--db", help="database path or URL (default: the configured one, else "
                        "~/.local/share/umpire/play.db, where play keeps its matches)")
    events.add_argument("--limit", type=int, default=50, help="at most N events (default 50)")

    export = sub.add_parser("export", help="a match's record as JSON (or --text: a transcript); "
                            "--event N: an event's, with every match of it")
    export.add_argument("match_id", type=int, metavar="ID", nargs="?")
    export.add_argument("--event", type=int, metavar="N", help="the event N's record instead "
                        "(`umpire tournament --db FILE` runs one)")
    export.add_argument("--db", help=_DB_HELP)
    export.add_argument("--text", action="store_true", help="a readable transcript instead")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")

    verify = sub.add_parser("verify", help="replay an exported record from its revealed seed "
                            "and check it against the commitments published at the start (the "
                            "seed's, and the match's: players, settings, start time); an "
                            "event's record: every match, and each pairing's result")
    verify.add_argument("record", metavar="RECORD.json")

    vacuum = sub.add_parser("vacuum", help="prune delivered messages, and the old snapshots "
                            "and clock rows of ended matches, then give the space back "
                            "(SQLite VACUUM)")
    vacuum.add_argument("--db", help=_DB_HELP)
    vacuum.add_argument("--retention-days", type=_retention_days, metavar="DAYS|forever",
                        default=_CONFIGURED,
                        help="delete messages delivered more than DAYS days ago (0: every "
                        "delivered message; forever: none). Default: "
                        "database.outbox_retention_days, where 0 keeps them forever")

    arena = sub.add_parser("arena", help="RPS Poker bot tournament (umpire arena --help)",
                           add_help=False)
    arena.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def _width(value: str) -> int:
    """--width: a whole number of characters, at least 40 (a narrower line cannot hold a
    label and a word)."""
    try:
        width = int(value)
    except ValueError:
        width = 0
    if width < 40:
        raise argparse.ArgumentTypeError(f"{value!r} is not a width: give a whole number of "
                                         "characters, at least 40")
    return width


#: --retention-days not given: the configured retention applies.
_CONFIGURED = object()


def _retention_days(value: str) -> float | None:
    """--retention-days: a number of days (0 or more), or "forever" (None)."""
    if value.strip().lower() == "forever":
        return None
    try:
        days = float(value)
    except ValueError:
        days = -1.0
    if not days >= 0 or days == float("inf"):
        raise argparse.ArgumentTypeError(f"{value!r} is neither a number of days (0 or more) "
                                         "nor 'forever'")
    return days


def main(argv: list[str] | None = None) -> int:
    """Run one command; every way out is an exit code (see the module docstring)."""
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        print("umpire: interrupted", file=sys.stderr)
        return 130
    except UserError as exc:
        print(f"umpire: {exc}", file=sys.stderr)
        return exc.code
    except Exception as exc:  # a bug: one sentence, the traceback only when asked for
        args = list(sys.argv[1:] if argv is None else argv)
        if "-v" in args or "--verbose" in args:
            import traceback

            traceback.print_exc()
        where = " ".join(a for a in args[:1] if not a.startswith("-")) or "umpire"
        print(f"umpire: an internal error stopped `{where}` ({type(exc).__name__}: "
              f"{str(exc).splitlines()[0] if str(exc) else 'no details'}); this is a bug: "
              "please report it with the output of the same command with -v.", file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """The reader of our output has gone (`| head`): drop the rest quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _main(argv: list[str]) -> int:
    if argv[:1] == ["arena"]:
        from bot.arena.cli import main as arena_main

        return arena_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    from bot.logs import setup

    setup(args.command, args.verbose)
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "verify":
        return _verify(args.record)
    if args.command == "demo":
        from bot.console.demo import main as demo_main

        url = _url(args.db) if args.db else None
        if url:
            _check_sqlite_folder(url)
        with database_errors(url or "sqlite+aiosqlite:///demo.db"):
            return demo_main(args.games, args.seed, args.quiet, url, bots=args.bots,
                             width=args.width, full=args.full)
    if args.command == "tournament":
        from bot.console.tournament import main as tournament_main

        url = _url(args.db) if args.db else None
        if url:
            _check_sqlite_folder(url)
        with database_errors(url or "sqlite+aiosqlite:///tournament.db"):
            return tournament_main(args.game, args.players, args.event_format, args.rounds,
                                   args.seed, url, shuffle=args.shuffle)
    if args.command == "play":
        from bot.console.play import main as play_main

        if args.game is None and args.resume is None:
            raise UserError("name the game to play (e.g. `umpire play rps-poker`) or "
                            "--resume ID.")
        url = _chosen_url(_settings(args.config), args.db, creates=True)
        with database_errors(url):
            return play_main(args.game, args.bot, args.seat, args.seed, url, args.name,
                             args.show_log, resume=args.resume, shown_db=args.db)
    settings = _settings(args.config)
    if args.command == "run":
        return _run(settings, check=args.check)
    if args.command == "health":
        return _health(settings)
    if args.command == "invite":
        from bot.discord.invite import invite_text

        print(invite_text(settings))
        return 0
    url = _chosen_url(settings, args.db, creates=args.command == "migrate")
    if args.command == "migrate":
        return _database(_migrate(url), url)
    if args.command == "vacuum":
        days = args.retention_days
        retention = (settings.database.outbox_retention if days is _CONFIGURED
                     else None if days is None else timedelta(days=days))
        return _database(_vacuum(url, retention), url, must_exist=True)
    if args.command == "matches":
        return _database(_matches(url, args.limit), url, must_exist=True)
    if args.command == "events":
        return _database(_events(url, args.limit), url, must_exist=True)
    if args.command == "export":
        if (args.match_id is None) == (args.event is None):
            raise UserError("name one match (`umpire export ID`) or one event "
                            "(`umpire export --event N`).")
        if args.event is not None and args.text:
            raise UserError("--text is for a match: an event's record is JSON only.")
        return _database(_export(url, args.match_id, args.text, args.output, args.event), url,
                         must_exist=True)
    parser.print_help()
    return 2


def _settings(config: str | None) -> Any:
    from bot.config import ConfigError, load_settings

    try:
        return load_settings(config)
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def _url(db: str) -> str:
    """The database as the bot's async URL (bot.store.database.database_url); a setting it
    cannot use is one sentence, exit 2."""
    from bot.store.database import DatabaseURLError, database_url

    try:
        return database_url(db)
    except DatabaseURLError as exc:
        raise UserError(str(exc)) from None


def _chosen_url(settings: Any, db: str | None = None, *, creates: bool = False) -> str:
    """The database of every command (bot.database_choice.choose) as an async URL; with
    `creates`, the default file's folder is made and a missing folder of a named file is one
    sentence."""
    from bot.database_choice import OldDefaultFound, choose, ensure_folder

    try:
        choice = choose(settings, db)
    except OldDefaultFound as exc:
        raise UserError(str(exc)) from None
    url = _url(choice.db)
    if creates:
        try:
            ensure_folder(choice)
        except OSError as exc:
            raise UserError(f"the database {choice.db} cannot be created: its folder cannot "
                            f"be made ({exc.strerror}); name another file with --db.") from None
        _check_sqlite_folder(url)
    return url


@contextlib.contextmanager
def database_errors(url: str) -> Iterator[None]:
    """Turn a database failure inside the block into a UserError (database_problem)."""
    try:
        yield
    except (UserError, BrokenPipeError):
        raise
    except Exception as exc:
        problem = database_problem(exc, url)
        if problem is None:
            raise
        raise UserError(problem[0], code=problem[1]) from None


def _check_sqlite_folder(url: str) -> None:
    """An SQLite file whose folder does not exist: one sentence before anything runs."""
    from bot.console.runtime import sqlite_file

    path = sqlite_file(url)
    if path is not None and not path.parent.is_dir():
        raise UserError(f"the database {path} cannot be created: the folder {path.parent} "
                        "does not exist; create it or name another file with --db.")


def shown_url(url: str) -> str:
    """A database URL with its password hidden (bot.store.database.shown_url)."""
    from bot.store.database import shown_url as shown

    return shown(url)


def _database(work: Any, url: str, *, must_exist: bool = False) -> int:
    """Run a coroutine on a database; its errors as one sentence naming the database."""
    from bot.console.runtime import sqlite_file

    path = sqlite_file(url)
    if must_exist and path is not None and not path.exists():
        work.close()
        raise UserError(f"there is no database at {path} (nothing was played there yet); "
                        "name one with --db.")
    try:
        _check_sqlite_folder(url)
    except UserError:
        work.close()
        raise
    from bot.store.settle import run_settled

    with database_errors(url):
        return run_settled(work)


def _engine(url: str) -> Any:
    from bot.store.database import create_engine

    return create_engine(url)


async def _migrate(url: str) -> int:
    from sqlalchemy import inspect

    from bot.store.migrate import migrate

    engine = _engine(url)
    try:
        async with engine.connect() as conn:
            existed = await conn.run_sync(lambda c: inspect(c).has_table("alembic_version"))
        await migrate(engine)
    finally:
        await engine.dispose()
    print(f"{'Database is up to date' if existed else 'Created the database'}: {shown_url(url)}")
    return 0


async def _matches(url: str, limit: int) -> int:
    from bot.console.records import match_rows
    from bot.store.repository import Repository

    engine = _engine(url)
    try:
        rows = await Repository(engine).list_matches(limit)
    finally:
        await engine.dispose()
    print(match_rows(rows))
    return 0


async def _events(url: str, limit: int) -> int:
    from bot.console.records import event_rows
    from bot.tournament import store

    engine = _engine(url)
    try:
        rows = await store.newest(engine, limit)
    finally:
        await engine.dispose()
    print(event_rows(rows))
    return 0


class _NoTransport:
    async def send(self, match: Any, message: Any) -> None:  # pragma: no cover - never sent
        return None


async def _export(url: str, match_id: int | None, text: bool, output: str | None,
                  event_id: int | None = None) -> int:
    from bot.console.records import transcript
    from bot.store.repository import Repository
    from bot.tournament.event import EventError
    from bot.tournament.record import event_record
    from bot.umpire import MatchService, UmpireError

    if output and not Path(output).resolve().parent.is_dir():
        raise UserError(f"-o {output}: the folder {Path(output).parent} does not exist.")
    engine = _engine(url)
    try:
        service = MatchService(Repository(engine), _NoTransport())
        try:
            record = await (event_record(service, event_id) if event_id is not None
                            else service.export(match_id))  # type: ignore[arg-type]  # (`export` is given a match or an event)
        except EventError as exc:
            raise UserError(f"{exc} (in {shown_url(url)})") from None
        except UmpireError as exc:
            if exc.__cause__ is not None:  # the store failed: database_errors says how
                raise
            raise UserError(f"{exc} (in {shown_url(url)}; `umpire matches --db ...` lists "
                            "them)") from None
    finally:
        await engine.dispose()
    body = transcript(record) if text else service.export_json(record)
    if output:
        Path(output).write_text(body + "\n", encoding="utf-8")
        what = f"event #{event_id}" if event_id is not None else f"match #{match_id}"
        print(f"Wrote {what} to {output}.", file=sys.stderr)
    else:
        print(body)
    return 0


def _verify(path: str) -> int:
    from bot.console.records import RecordError, verify
    from bot.tournament.record import is_event_record, verify_event

    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: no such file.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot be read ({exc}).") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not JSON ({exc}); give a record written by "
                        "`umpire export ID`.") from None
    if not isinstance(record, dict):
        raise UserError(f"{path}: not a match record written by `umpire export ID`.")
    if is_event_record(record):
        lines, ok = verify_event(record)
        for line in lines:
            print(line, file=sys.stdout if line.startswith("verified") else sys.stderr)
        return 0 if ok else 1
    try:
        print(verify(record))
    except RecordError as exc:
        print(f"NOT verified: {path}: {exc}", file=sys.stderr)
        return 1
    return 0


def _health(settings: Any) -> int:
    """`umpire health`: one line per check on stdout; 0 if all are well, else 1."""
    from bot.health import database_check, default_status_file, process_checks
    from bot.store.settle import run_settled

    url = _chosen_url(settings)
    checks = process_checks(settings.health.status_file or default_status_file())
    checks.append(run_settled(database_check(url)))
    for check in checks:
        print(check.line())
    return 0 if all(c.ok for c in checks) else 1


def _run(settings: Any, check: bool = False) -> int:
    from bot.discord.runner import StoreStartFailed
    from bot.discord.runner import main as run_main

    url = _chosen_url(settings, creates=True)  # (--check too: the default's folder is made)
    settings.database.url = url  # the one answer, for the runner and its checks
    try:
        return run_main(settings, check=check)
    except StoreStartFailed as exc:
        cause = exc.__cause__ or exc
        message, code = database_problem(cause, url) or (
            f"the database {shown_url(url)} cannot be used: "
            f"{scrubbed(first_line(cause), url)}.", 1)
        raise UserError(message, code=code) from None
    except OSError as exc:  # aiohttp's connection errors are OSErrors too
        raise UserError(f"cannot reach Discord ({type(exc).__name__}: {exc}); check the "
                        "network connection and try again.", code=1) from None
    except Exception as exc:
        import aiohttp

        if isinstance(exc, aiohttp.ClientError):
            raise UserError(f"cannot reach Discord ({type(exc).__name__}: {exc}); check the "
                            "network connection and try again.", code=1) from None
        raise


async def _vacuum(url: str, retention: timedelta | None) -> int:
    """Prune (`retention` None: keep every delivered message), then VACUUM."""
    from datetime import UTC, datetime

    from bot.store.housekeeping import vacuum

    pruned = await vacuum(url, retention, datetime.now(UTC))
    print(f"Deleted {pruned.messages} delivered messages, and {pruned.snapshots} old snapshots "
          f"and {pruned.clocks} clock rows of ended matches; vacuumed {shown_url(url)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
