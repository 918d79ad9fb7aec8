"""`umpire arena --check BOT`: load one bot, play a few matches against every built-in bot
with every call logged, and say first what would disqualify it in a tournament (which call,
what it returned or raised, with the bot's traceback, what was expected), then the warnings;
or "ok" with the time of each kind of call.

The disqualifications are the arena's (a bot that does not load, a call that raises,
returns an invalid index, or runs past the time limit or never returns; a process that
dies). The warning is what an author wants to hear about before a tournament though it
disqualifies nothing: a call that printed to standard output (never an answer in the arena,
so a printed answer is lost).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from bot.arena.calllog import Call, Logged
from bot.arena.jsbot import NodeMissing
from bot.arena.loader import BotLoadError, resolve
from bot.arena.match import Deal, Disqualified, match_key, play_match
from games.rps_poker.players import PLAYERS

DEALS = 2  # per built-in opponent, each played from both seats
EXPECTED = {
    "draft_pick": "an int, 0 or 1 (the index of the card to keep)",
    "main_play": "an int from 0 to {top} (the index of a card of the hand)",
    "draft_receive": "the call to return (its value is ignored)",
    "main_postprocess": "the call to return (its value is ignored)",
}


@dataclass
class CheckResult:
    ok: bool
    text: str  # the disqualifying problem first (one paragraph), then the warnings
    calls: list[Call] = field(default_factory=list)  # every call of every match played
    disqualified: bool = False  # whether a tournament would disqualify the bot
    traceback: str = ""  # the bot's frames of the disqualifying error, when its code raised

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "disqualified": self.disqualified, "report": self.text,
                "traceback": self.traceback, "calls": [c.to_json() for c in self.calls]}


def _bot_object(spec: Any, limit: float) -> tuple[Any, Any]:
    """(a maker of the object playing each match, what to close afterwards)."""
    if spec.kind == "builtin":
        return spec.load(limit).for_match, None
    if spec.kind == "python":
        from bot.arena.process import PyBot

        bot = PyBot(spec.arg, limit, capture_output=True)
        return bot.new_match, bot
    from bot.arena.jsbot import JsBot

    js = JsBot(spec.arg, limit, capture_output=True)
    return js.new_match, js


def check(arg: str, limit: float = 1.0, seed: int = 0, deals: int = DEALS) -> CheckResult:
    """Check the bot `arg` (a built-in name, .py or .js file). The matches are played to
    the first disqualification (or all of them); what would disqualify the bot comes first
    in the report, then what only an author would want to know (a call that printed)."""
    try:
        spec = resolve(arg, limit)
        maker, process = _bot_object(spec, limit)
    except (BotLoadError, NodeMissing) as exc:
        return CheckResult(False, f"{arg}: the bot does not load: {exc}. Expected: a file "
                                  "that defines a bot with draft_pick, draft_receive, main_play "
                                  "and main_postprocess (see docs/arena.md).",
                           disqualified=True)
    except Exception as exc:  # the process could not start
        reason = getattr(exc, "arena_reason", None) or f"{type(exc).__name__}: {exc}"
        return CheckResult(False, f"{arg}: the bot does not load: {reason}.", disqualified=True)
    calls: list[Call] = []
    own: list[Call] = []  # the checked bot's calls
    printed: list[tuple[str, int, Call]] = []  # the calls that printed: (where, number, call)
    problem: str | None = None
    trace = ""
    played = 0
    try:
        for opponent, cls in PLAYERS.items():
            for deal in range(deals):
                board = Deal(match_key(seed, deal))
                for seat in (0, 1):
                    log: list[Call] = []
                    mine = Logged(maker(), seat, spec.name, log, noise=True)
                    theirs = Logged(cls(), 1 - seat, opponent, log)
                    pair = (mine, theirs) if seat == 0 else (theirs, mine)
                    played += 1
                    where = (f"match {played} ({spec.name} in seat {seat} against {opponent}, "
                             f"deal {deal})")
                    try:
                        play_match(*pair, board, limit, [0.0, False])
                    except Disqualified as dq:
                        problem, trace = _problem(arg, where, dq, log, seat, limit)
                    calls += log
                    own += [c for c in log if c.seat == seat]
                    printed += [(where, n, c) for n, c in enumerate(log, 1)
                                if c.seat == seat and c.printed]
                    if problem is not None:
                        break
                if problem is not None:
                    break
            if problem is not None:
                break
    finally:
        if process is not None:
            process.close()
    warnings = _printed(arg, printed)
    if problem is not None:
        return CheckResult(False, "\n\n".join([problem, *([trace] if trace else []),
                                                *warnings]), calls, True, trace)
    if warnings:
        return CheckResult(False, "\n\n".join(warnings), calls)
    return CheckResult(True, _ok(arg, own, played), calls)


def _problem(arg: str, where: str, dq: Disqualified, log: list[Call], seat: int,
             limit: float) -> tuple[str, str]:
    """(the paragraph about the disqualifying problem: the call, what came back, what was
    expected; the bot's traceback when its code raised, else "")."""
    mine = [c for c in log if c.seat == seat]
    failed = next((c for c in reversed(mine) if c.error), None)
    if failed is None and dq.reason.startswith("exceeded"):  # a call timed slow by the loop
        failed = next((c for c in mine if c.seconds > limit), None)
    failed = failed or (mine[-1] if mine else None)
    where = f"{arg}: problem in {where}"
    if failed is None:
        return f"{where}: {dq.reason}.", ""
    number = log.index(failed) + 1
    came = failed.error or f"returned {failed.returned or 'nothing'} after {failed.seconds:.3f} s"
    text = (f"{where}: call {number} of the match, {failed.signature()}, {came}. Expected "
            f"{_expected(failed, limit)}. In a tournament the bot would be disqualified: "
            f"{dq.reason}.")
    return text, failed.traceback


def _printed(arg: str, printed: list[tuple[str, int, Call]]) -> list[str]:
    """The warning about calls that printed to standard output (none: no warning)."""
    if not printed:
        return []
    where, number, call = printed[0]
    others = (f" ({len(printed) - 1} more call{'s' if len(printed) > 2 else ''} of the "
              f"matches checked printed too)" if len(printed) > 1 else "")
    return [f"{arg}: warning, in {where}: call {number} of the match, {call.signature()}, "
            f"printed {call.printed[:80]!r}{others}. Expected nothing on standard output: "
            "the arena discards it and never takes it for an answer (return the index; "
            "write debugging output to standard error, shown with --show-output). In a "
            "tournament the output is discarded and the bot plays on."]


def _expected(call: Call, limit: float) -> str:
    text = EXPECTED[call.method]
    if call.method == "main_play":
        text = text.format(top=len(call.args[0]) - 1)
    return f"{text}, within the time limit of {limit:g} s"


def _ok(arg: str, own: list[Call], played: int) -> str:
    parts = []
    for method in EXPECTED:
        times = [c.seconds * 1000 for c in own if c.method == method]
        if times:
            parts.append(f"{method} {len(times)} calls, median {statistics.median(times):.3f} "
                         f"ms, max {max(times):.3f} ms")
    return (f"{arg}: ok. {played} matches against {', '.join(PLAYERS)} from both seats "
            f"without a problem. Time per call (as the arena sees it, with the round trip "
            f"to the bot's process): {'; '.join(parts)}.")
