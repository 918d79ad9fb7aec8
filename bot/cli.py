"""The `umpire` command: run the Discord bot, play or demo locally, migrate, run the arena,
list, export and verify match records.

A user's mistake (a bad option, config value, database URL or file) ends with one sentence
on standard error and a non-zero exit code, never a traceback; output piped into a reader
that stops early (`| head`) ends quietly; Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import sys
from datetime import timedelta
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from games.registry import all_games


class UserError(Exception):
    """A mistake the user can fix: printed as one sentence, exit code 2 (or `code`)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def _games_help() -> str:
    return ", ".join(all_games()) or "none installed"


def _version() -> str:
    try:
        return version("umpire")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="umpire",
        description="Umpires two-player card and deduction games on Discord and locally.")
    parser.add_argument("--version", action="version", version=f"umpire {_version()}")
    parser.add_argument("--config", help="config file (default: config.toml or $UMPIRE_CONFIG)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("run", help="run the Discord bot (needs a token)")

    demo = sub.add_parser("demo", help="bot-vs-bot matches of every game, one at a time")
    demo.add_argument("games", nargs="*", metavar="GAME", help=f"games to play ({_games_help()}); "
                      "default: all")
    demo.add_argument("--seed", type=int, help="seed for reproducible matches")
    demo.add_argument("--bots", metavar="A,B", help="the two bots (default: the game's first "
                      "two), e.g. --bots heuristic,random")
    demo.add_argument("--quiet", action="store_true", help="print only the result lines")
    demo.add_argument("--width", type=int, default=None, metavar="N",
                      help="wrap lines at N characters (default: the terminal's width, or 100)")
    demo.add_argument("--db", help="database path or URL (default: a temporary SQLite file)")

    play = sub.add_parser("play", help="play a match in the terminal against a built-in bot")
    play.add_argument("game", metavar="GAME", nargs="?",
                      help=f"the game ({_games_help()}); not needed with --resume")
    play.add_argument("--bot", help="the opponent bot (default: the game's strongest); for "
                      "rps-poker also an arena bot file, e.g. --bot mybot.py")
    play.add_argument("--seat", type=int, choices=(0, 1), default=0,
                      help="0: you hold the advantage (default); 1: the bot does")
    play.add_argument("--seed", help="seed for a reproducible match")
    play.add_argument("--db", help="database path or URL (default: umpire-play.db, so that a "
                      "match left with Ctrl-C can be resumed)")
    play.add_argument("--resume", type=int, metavar="ID",
                      help="continue match ID (left with Ctrl-C), clocks as they were")
    play.add_argument("--name", default="Player", help="your name in the match (default: Player)")
    play.add_argument("--show-log", action="store_true",
                      help="also show the host log (every secret: for learning the rules)")

    migrate = sub.add_parser("migrate", help="create or upgrade the database")
    migrate.add_argument("--db", help="database path or URL (default: the configured one)")

    matches = sub.add_parser("matches", help="list the matches in a database")
    matches.add_argument("--db", help="database path or URL (default: the configured one)")
    matches.add_argument("--limit", type=int, default=50, help="at most N matches (default 50)")

    export = sub.add_parser("export", help="a match's record as JSON (or --text: a transcript)")
    export.add_argument("match_id", type=int, metavar="ID")
    export.add_argument("--db", help="database path or URL (default: the configured one)")
    export.add_argument("--text", action="store_true", help="a readable transcript instead")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")

    verify = sub.add_parser("verify", help="replay an exported record from its revealed seed "
                            "and check it against the commitment published at the start")
    verify.add_argument("record", metavar="RECORD.json")

    vacuum = sub.add_parser("vacuum", help="prune delivered messages, and the old snapshots "
                            "and clock rows of ended matches, then give the space back "
                            "(SQLite VACUUM)")
    vacuum.add_argument("--db", help="database path or URL (default: the configured one)")
    vacuum.add_argument("--retention-days", type=_retention_days, metavar="DAYS|forever",
                        default=_CONFIGURED,
                        help="delete messages delivered more than DAYS days ago (0: every "
                        "delivered message; forever: none). Default: "
                        "database.outbox_retention_days, where 0 keeps them forever")

    arena = sub.add_parser("arena", help="RPS Poker bot tournament (umpire arena --help)",
                           add_help=False)
    arena.add_argument("args", nargs=argparse.REMAINDER)
    return parser


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
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "verify":
        return _verify(args.record)
    if args.command == "demo":
        from bot.console.demo import main as demo_main

        return demo_main(args.games, args.seed, args.quiet, args.db, bots=args.bots,
                         width=args.width)
    if args.command == "play":
        from bot.console.play import main as play_main

        if args.game is None and args.resume is None:
            raise UserError("name the game to play (e.g. `umpire play rps-poker`) or "
                            "--resume ID.")
        return play_main(args.game, args.bot, args.seat, args.seed, args.db, args.name,
                         args.show_log, resume=args.resume)
    settings = _settings(args.config)
    url = _url(args.db if "db" in args and args.db else settings.database.url)
    if args.command == "migrate":
        return _database(_migrate(url), url)
    if args.command == "vacuum":
        days = args.retention_days
        retention = (settings.database.outbox_retention if days is _CONFIGURED
                     else None if days is None else timedelta(days=days))
        return _database(_vacuum(url, retention), url, must_exist=True)
    if args.command == "matches":
        return _database(_matches(url, args.limit), url, must_exist=True)
    if args.command == "export":
        return _database(_export(url, args.match_id, args.text, args.output), url,
                         must_exist=True)
    if args.command == "run":
        return _run(settings)
    parser.print_help()
    return 2


def _settings(config: str | None) -> Any:
    from bot.config import ConfigError, load_settings

    try:
        return load_settings(config)
    except ConfigError as exc:
        raise UserError(str(exc)) from None


def _url(db: str) -> str:
    """The database as a URL; `postgresql://` (no driver named) gets the async driver the bot
    ships with (asyncpg)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    from bot.console.runtime import database_url

    url = database_url(db)
    try:
        parsed = make_url(url)
    except ArgumentError:
        return url  # refused with a sentence by _database
    if parsed.drivername in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    return url


def shown_url(url: str) -> str:
    """A database URL as it may be printed or logged: the password replaced by ***
    (SQLAlchemy's render_as_string(hide_password=True); a URL it cannot read loses
    everything between `://` and `@`)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return re.sub(r"(://)[^/@]*@", r"\1***@", url)


def _scrubbed(text: str, url: str) -> str:
    """A driver's error message with the URL's password (if it appears) replaced by ***."""
    from sqlalchemy.engine import make_url

    try:
        password = make_url(url).password
    except Exception:
        password = None
    text = text.replace(url, shown_url(url))
    return text.replace(str(password), "***") if password else text


def _database(work: Any, url: str, *, must_exist: bool = False) -> int:
    """Run a coroutine on a database; its errors as one sentence naming the database."""
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    from bot.console.runtime import sqlite_file
    from bot.store.errors import StoreUnavailable

    shown = shown_url(url)
    try:
        path = sqlite_file(url)
    except (ArgumentError, NoSuchModuleError, ValueError):
        work.close()
        raise UserError(_bad_url(url)) from None
    if must_exist and path is not None and not path.exists():
        work.close()
        raise UserError(f"there is no database at {path} (nothing was played there yet); "
                        "name one with --db.")
    try:
        return asyncio.run(work)
    except (ArgumentError, NoSuchModuleError):
        raise UserError(_bad_url(url)) from None
    except SQLAlchemyError as exc:
        first = _scrubbed(str(getattr(exc, "orig", None) or exc).splitlines()[0], url)
        raise UserError(f"the database {shown} cannot be used: {first}.") from None
    except OSError as exc:
        why = _scrubbed(str(exc.strerror or exc), url)
        raise UserError(f"the database {shown} cannot be reached: {why}.") from None
    except StoreUnavailable as exc:  # a server out of reach, after the store's retries
        raise UserError(_unreachable(exc, url)) from None
    except ImportError as exc:  # a driver named in the URL that is not installed
        raise UserError(f"the database {shown} needs the Python package {exc.name!r}, which "
                        "is not installed; use postgresql+asyncpg://... (installed with the "
                        "bot) or sqlite+aiosqlite:///file.db.") from None


def _unreachable(exc: BaseException, url: str) -> str:
    """A database the store could not reach in its wait, as one sentence (password hidden)."""
    cause = exc.__cause__
    why = str(getattr(cause, "strerror", None) or cause or exc).splitlines()[0]
    return f"the database {shown_url(url)} cannot be reached: {_scrubbed(why, url)}."


def _bad_url(url: str) -> str:
    return (f"{shown_url(url)!r} is not a database this bot can use: give a file path (games.db) or a URL "
            "such as sqlite+aiosqlite:///games.db or postgresql+asyncpg://user:password@host/db.")


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


class _NoTransport:
    async def send(self, match: Any, message: Any) -> None:  # pragma: no cover - never sent
        return None


async def _export(url: str, match_id: int, text: bool, output: str | None) -> int:
    from bot.console.records import transcript
    from bot.store.errors import StoreUnavailable
    from bot.store.repository import Repository
    from bot.umpire import MatchService, UmpireError

    if output and not Path(output).resolve().parent.is_dir():
        raise UserError(f"-o {output}: the folder {Path(output).parent} does not exist.")
    engine = _engine(url)
    try:
        service = MatchService(Repository(engine), _NoTransport())
        try:
            record = await service.export(match_id)
        except UmpireError as exc:
            if isinstance(exc.__cause__, StoreUnavailable):  # the database, not the match
                raise UserError(_unreachable(exc.__cause__, url)) from None
            raise UserError(f"{exc} (in {shown_url(url)}; `umpire matches --db ...` lists "
                            "them)") from None
    finally:
        await engine.dispose()
    body = transcript(record) if text else service.export_json(record)
    if output:
        Path(output).write_text(body + "\n", encoding="utf-8")
        print(f"Wrote match #{match_id} to {output}.", file=sys.stderr)
    else:
        print(body)
    return 0


def _verify(path: str) -> int:
    from bot.console.records import RecordError, verify

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
    try:
        print(verify(record))
    except RecordError as exc:
        print(f"NOT verified: {path}: {exc}", file=sys.stderr)
        return 1
    return 0


def _run(settings: Any) -> int:
    from bot.discord.runner import main as run_main

    try:
        return run_main(settings)
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
