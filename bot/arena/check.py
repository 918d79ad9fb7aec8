"""`umpire arena --check BOT`: load one bot, play a few matches against every built-in bot
with every call logged, and say in one paragraph what the first problem was (which call,
what it returned, what was expected), or "ok" with the time of each kind of call.

The problems are the arena's disqualifications (a call that raises, returns an invalid
index, or runs past the time limit or never returns; a process that dies) plus two an
author wants to hear about before a tournament: a bot that does not load, and a call that
prints to standard output (never an answer in the arena, so a printed answer is lost).
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
    text: str  # the paragraph
    calls: list[Call] = field(default_factory=list)  # every call of every match played

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "report": self.text, "calls": [c.to_json() for c in self.calls]}


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
    """Check the bot `arg` (a built-in name, .py or .js file)."""
    try:
        spec = resolve(arg, limit)
        maker, process = _bot_object(spec, limit)
    except (BotLoadError, NodeMissing) as exc:
        return CheckResult(False, f"{arg}: the bot does not load: {exc}. Expected: a file "
                                  "that defines a bot with draft_pick, draft_receive, main_play "
                                  "and main_postprocess (see docs/arena.md).")
    except Exception as exc:  # the process could not start
        reason = getattr(exc, "arena_reason", None) or f"{type(exc).__name__}: {exc}"
        return CheckResult(False, f"{arg}: the bot does not load: {reason}.")
    calls: list[Call] = []
    own: list[Call] = []  # the checked bot's calls
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
                    try:
                        play_match(*pair, board, limit, [0.0, False])
                    except Disqualified as dq:
                        calls += log
                        return CheckResult(False, _problem(spec.name, arg, dq, log, seat,
                                                           opponent, deal, played, limit),
                                           calls)
                    calls += log
                    own += [c for c in log if c.seat == seat]
    finally:
        if process is not None:
            process.close()
    return CheckResult(True, _ok(arg, own, played), calls)


def _problem(name: str, arg: str, dq: Disqualified, log: list[Call], seat: int,
             opponent: str, deal: int, played: int, limit: float) -> str:
    """The paragraph about the first problem: the call, what came back, what was expected."""
    mine = [c for c in log if c.seat == seat]
    failed = next((c for c in reversed(mine) if c.error or c.printed), None)
    if failed is None and dq.reason.startswith("exceeded"):  # a call timed slow by the loop
        failed = next((c for c in mine if c.seconds > limit), None)
    failed = failed or (mine[-1] if mine else None)
    where = (f"{arg}: problem in match {played} ({name} in seat {seat} against {opponent}, "
             f"deal {deal})")
    if failed is None:
        return f"{where}: {dq.reason}."
    number = log.index(failed) + 1
    if failed.printed:
        came = f"returned {failed.returned or 'nothing'} and printed {failed.printed[:80]!r}"
        wanted = ("nothing on standard output: the arena discards it and never takes it for "
                  "an answer (return the index; write debugging output to standard error, "
                  "shown with --show-output)")
    elif failed.error:
        came = failed.error
        wanted = _expected(failed, limit)
    else:
        came = f"returned {failed.returned} after {failed.seconds:.3f} s"
        wanted = _expected(failed, limit)
    verdict = ("In a tournament the output is discarded and the bot plays on" if failed.printed
               else f"In a tournament the bot would be disqualified: {dq.reason}")
    return (f"{where}: call {number} of the match, {failed.signature()}, {came}. Expected "
            f"{wanted}. {verdict}.")


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
