"""`umpire arena`: a round-robin tournament of RPS Poker bots (Python and JavaScript)."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

from bot.arena.faults import BotProcessError, NodeMissing
from bot.arena.loader import BotLoadError, resolve_all
from bot.arena.match import CORE
from bot.arena.report import leaderboard_text, to_json
from bot.arena.tournament import default_jobs, run
from games.rps_poker.players import PLAYERS


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="umpire arena",
        description="Run a Turn-based RPS Poker bot tournament as the seed's controller does: "
                    "round-robin cycles, one match per pair of bots per cycle, 10 points per "
                    "match, totals over all cycles; a bot that raises, returns an invalid "
                    "index or runs past the call time limit is disqualified.",
        epilog="Bots: a built-in name (" + ", ".join(PLAYERS) + "), a Python file (bot.py or "
               "bot.py:ClassName) or a JavaScript file in the seed's object format (bot.js, "
               "needs Node.js). Matches run on the compiled core when it is built and "
               f"current (here: {CORE}), else in pure Python, with the same results; "
               "UMPIRE_PURE_PYTHON=1 forces pure Python. See docs/arena.md.")
    p.add_argument("bots", nargs="*", metavar="BOT", help="two or more bots (the same bot may "
                   "appear twice); a built-in name with or without `arena:`")
    p.add_argument("--check", metavar="BOT", help="check one bot: play a few matches against "
                   "each built-in bot with every call logged and report first what would "
                   "disqualify it in a tournament (which call, what it returned or raised, "
                   "with the bot's traceback, what was expected), then the warnings (a call "
                   "that printed); or ok with the time per call; with --json FILE also "
                   "every call")
    p.add_argument("--replay", nargs=2, metavar=("FILE", "MATCH"),
                   help="replay match MATCH of a tournament recorded with --json FILE, call "
                        "by call with both bots' answers")
    p.add_argument("--rounds", type=int, default=100, metavar="N",
                   help="round-robin cycles to play (default: 100, as the seed's leaderboard)")
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="tournament seed; the same seed, bots and --jobs give the same results "
                        "(default: a random seed, printed)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help=f"worker processes (default: all cores, here {default_jobs()})")
    p.add_argument("--json", metavar="FILE", help="also write every figure and every match "
                   "result to FILE as JSON ('-' for standard output)")
    p.add_argument("--call-timeout", type=float, default=1.0, metavar="SECONDS",
                   help="time limit of one bot call; a bot over it is disqualified "
                        "(default: 1.0)")
    p.add_argument("--show-output", action="store_true",
                   help="show what bot files print (print, console.log) on standard error; "
                        "by default it is discarded (it never counts as an answer)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar on standard error")
    return p


class Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal or forced)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.perf_counter()
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < 0.1 and done < total:
            return
        self.last = now
        frac = done / total if total else 1.0
        bar = "#" * int(30 * frac)
        rate = done / max(now - self.start, 1e-9)
        sys.stderr.write(f"\r[{bar:<30}] {100 * frac:5.1f}%  {done}/{total} matches  "
                         f"{rate:,.0f}/s ")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def check_output(path: str) -> str | None:
    """Why `--json path` could not be written, checked before any match is played."""
    if path == "-":
        return None
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        return f"--json {path}: that is a folder; name a file"
    if not folder.is_dir():
        return f"--json {path}: the folder {folder} does not exist"
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return f"--json {path}: no permission to write there"
    return None


def _check(args: argparse.Namespace) -> int:
    from bot.arena.check import check

    if args.bots:
        print("umpire arena: --check takes one bot; leave out the others", file=sys.stderr)
        return 2
    result = check(args.check, args.call_timeout, args.seed or 0)
    if args.json:
        problem = check_output(args.json)
        if problem:
            print(f"umpire arena: {problem}.", file=sys.stderr)
            return 2
        with open(args.json if args.json != "-" else "/dev/stdout", "w",
                  encoding="utf-8") as f:
            json.dump(result.to_json(), f, indent=1)
    print(result.text, file=sys.stderr if args.json == "-" else sys.stdout)
    return 0 if result.ok else 1


def _replay(args: argparse.Namespace) -> int:
    from bot.arena.replay import ReplayError, replay

    path, number = args.replay
    try:
        if not number.isdigit():
            raise ReplayError(f"MATCH must be a match number, as in the JSON, not {number!r}")
        shown = replay(path, int(number))
    except (ReplayError, BotLoadError, NodeMissing, BotProcessError) as exc:
        print(f"umpire arena: {exc}", file=sys.stderr)
        return 2
    print(shown.text())
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.check:
        return _check(args)
    if args.replay:
        return _replay(args)
    if len(args.bots) < 2:
        print("umpire arena: name at least two bots", file=sys.stderr)
        return 2
    if args.rounds < 1 or args.call_timeout <= 0 or (args.jobs is not None and args.jobs < 1):
        print("umpire arena: --rounds and --jobs must be at least 1 and --call-timeout "
              "positive", file=sys.stderr)
        return 2
    problem = args.json and check_output(args.json)
    if problem:
        print(f"umpire arena: {problem}.", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    jobs = args.jobs or default_jobs()
    try:
        specs = resolve_all(args.bots, args.call_timeout, args.show_output)
    except (BotLoadError, NodeMissing, BotProcessError) as exc:
        print(f"umpire arena: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    progress = Progress(not args.no_progress and sys.stderr.isatty())
    start = time.perf_counter()
    try:
        results = run(specs, args.rounds, seed, jobs, args.call_timeout, progress)
    except NodeMissing as exc:
        print(f"umpire arena: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C while the workers were being stopped
        print("umpire arena: interrupted", file=sys.stderr)
        return 130
    seconds = time.perf_counter() - start
    if results.interrupted and progress.enabled:
        sys.stderr.write("\n")
    # The JSON first: a reader that stops early (| head) must not lose it.
    if args.json:
        data = to_json(specs, results, seed=seed, rounds=args.rounds, jobs=jobs,
                       call_timeout=args.call_timeout, seconds=seconds)
        if args.json == "-":
            json.dump(data, sys.stdout, indent=1)
            print(flush=True)
        else:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
    # With the JSON on standard output the table goes to standard error, so the output parses.
    table_out = sys.stderr if args.json == "-" else sys.stdout
    print(leaderboard_text(specs, results, seed=seed, rounds=args.rounds, jobs=jobs,
                           seconds=seconds), file=table_out, flush=True)
    return 130 if results.interrupted else 0


if __name__ == "__main__":
    raise SystemExit(main())
