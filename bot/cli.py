"""The `umpire` command: run the Discord bot, play or demo locally, migrate, run the arena."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from games.registry import all_games


def _games_help() -> str:
    return ", ".join(all_games()) or "none installed"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="umpire",
        description="Umpires two-player card and deduction games on Discord and locally.")
    parser.add_argument("--config", help="config file (default: config.toml or $UMPIRE_CONFIG)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sub.add_parser("run", help="run the Discord bot (needs a token)")

    demo = sub.add_parser("demo", help="bot-vs-bot matches of every game, printed channel by channel")
    demo.add_argument("games", nargs="*", metavar="GAME", help=f"games to play ({_games_help()}); "
                      "default: all")
    demo.add_argument("--seed", type=int, help="seed for reproducible matches")
    demo.add_argument("--quiet", action="store_true", help="print only the result lines")
    demo.add_argument("--db", help="database path or URL (default: a temporary SQLite file)")

    play = sub.add_parser("play", help="play a match in the terminal against a built-in bot")
    play.add_argument("game", metavar="GAME", help=f"the game ({_games_help()})")
    play.add_argument("--bot", help="the opponent bot (default: the game's strongest); for "
                      "rps-poker also an arena bot file, e.g. --bot mybot.py")
    play.add_argument("--seat", type=int, choices=(0, 1), default=0,
                      help="0: you hold the advantage (default); 1: the bot does")
    play.add_argument("--seed", help="seed for a reproducible match")
    play.add_argument("--db", help="database path or URL (default: a temporary SQLite file)")
    play.add_argument("--name", default="Player", help="your name in the match (default: Player)")
    play.add_argument("--show-log", action="store_true",
                      help="also show the host log (every secret: for learning the rules)")

    migrate = sub.add_parser("migrate", help="create or upgrade the database")
    migrate.add_argument("--db", help="database URL (default: the configured one)")

    vacuum = sub.add_parser("vacuum", help="prune delivered messages and old snapshots, then "
                            "give the space back (SQLite VACUUM)")
    vacuum.add_argument("--db", help="database URL (default: the configured one)")
    vacuum.add_argument("--retention-days", type=float, help="delete messages delivered more "
                        "than this many days ago (default: database.outbox_retention_days)")

    arena = sub.add_parser("arena", help="RPS Poker bot tournament (umpire arena --help)",
                           add_help=False)
    arena.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
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
    if args.command == "demo":
        from bot.console.demo import main as demo_main

        return demo_main(args.games, args.seed, args.quiet, args.db)
    if args.command == "play":
        from bot.console.play import main as play_main

        return play_main(args.game, args.bot, args.seat, args.seed, args.db, args.name,
                         args.show_log)
    from bot.config import load_settings

    settings = load_settings(args.config)
    if args.command == "migrate":
        return asyncio.run(_migrate(args.db or settings.database.url))
    if args.command == "vacuum":
        days = args.retention_days
        return asyncio.run(_vacuum(args.db or settings.database.url,
                                   settings.database.outbox_retention_days if days is None else days))
    if args.command == "run":
        from bot.discord.runner import main as run_main

        return run_main(settings)
    parser.print_help()
    return 2


async def _migrate(url: str) -> int:
    from bot.store.database import create_engine
    from bot.store.migrate import migrate

    engine = create_engine(url)
    try:
        await migrate(engine)
    finally:
        await engine.dispose()
    print(f"Database is up to date: {url}")
    return 0


async def _vacuum(url: str, retention_days: float) -> int:
    from datetime import UTC, datetime, timedelta

    from bot.store.housekeeping import vacuum

    retention = timedelta(days=retention_days) if retention_days > 0 else None
    pruned = await vacuum(url, retention, datetime.now(UTC))
    print(f"Deleted {pruned.messages} delivered messages and {pruned.snapshots} old snapshots; "
          f"vacuumed {url}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
