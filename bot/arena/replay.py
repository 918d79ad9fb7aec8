"""`umpire arena --replay FILE.json MATCH`: play one recorded match again, call by call.

A tournament's JSON (`--json`) records each match's seed (the key of its deal: the deal's
shuffles) and the bots' sources. A match depends on nothing else for bots that start fresh
each match (built-ins, Python classes, JavaScript bots), so the replay is the match as it
was played. A bot that is one object for the whole tournament (a Python object or module)
is replayed from a fresh start: what it had learnt from earlier matches is not there, which
the replay says.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.arena.calllog import Call, Logged
from bot.arena.loader import resolve
from bot.arena.match import Deal, Disqualified, match_key, play_match
from bot.arena.tournament import Schedule


class ReplayError(ValueError):
    """The file or match number cannot be replayed (the message says why and what to do)."""


@dataclass
class Replay:
    match: int
    seats: tuple[str, str]
    score: tuple[int, int] | None  # None: a bot was disqualified
    reason: str
    calls: list[Call]
    recorded: list[int] | None  # the score in the file, if the match was counted
    fresh_note: str

    def text(self) -> str:
        lines = [f"Match {self.match}: {self.seats[0]} (seat 0) against {self.seats[1]} "
                 f"(seat 1)"]
        if self.fresh_note:
            lines.append(self.fresh_note)
        width = max(len(s) for s in self.seats)
        for n, c in enumerate(self.calls, 1):
            answer = c.error or (f"-> {c.returned}" if c.returned else "")
            printed = f"  printed {c.printed[:60]!r}" if c.printed else ""
            lines.append(f"{n:>4}. seat {c.seat} {c.bot:<{width}}  {c.signature()}  {answer}"
                         f"  ({c.seconds * 1000:.3f} ms){printed}")
        if self.score is None:
            lines.append(f"Disqualified: {self.reason}")
        else:
            lines.append(f"Score: {self.score[0]}-{self.score[1]}"
                         + ("" if self.recorded is None else
                            " (as recorded)" if list(self.score) == self.recorded else
                            f" (recorded: {self.recorded[0]}-{self.recorded[1]})"))
        return "\n".join(lines)


def load_record(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError:
        raise ReplayError(f"{path} is not JSON: give the file written by "
                          "`umpire arena ... --json FILE`") from None
    if not isinstance(data, dict) or "bots" not in data or "seed" not in data:
        raise ReplayError(f"{path} is not an arena record: give the file written by "
                          "`umpire arena ... --json FILE`")
    return data


def replay(path: str, match: int, limit: float | None = None) -> Replay:
    """Play match `match` (numbered from 1, as in the table and the JSON) of the record."""
    data = load_record(path)
    bots = data["bots"]
    schedule = Schedule(len(bots), int(data["rounds"]))
    if not 1 <= match <= schedule.matches:
        raise ReplayError(f"{path} has matches 1 to {schedule.matches}; match {match} is not "
                          "one of them")
    a, b, deal = schedule.match(match - 1)
    entry = next((m for m in data.get("matches", ()) if m.get("match") == match), None)
    key = bytes.fromhex(entry["match_seed"]) if entry and "match_seed" in entry else \
        match_key(int(data["seed"]), deal)
    limit = limit or float(data.get("call_timeout", 1.0))
    log: list[Call] = []
    players, closers, shared = [], [], []
    for seat, index in enumerate((a, b)):
        info = bots[index]
        spec = resolve(info["source"], limit)
        contestant = spec.load(limit)
        closers.append(contestant)
        if spec.kind == "python" and not getattr(contestant.target, "fresh_instances", True):
            shared.append(info["name"])
        players.append(Logged(contestant.for_match(), seat, info["name"], log))
    try:
        try:
            s0 = play_match(players[0], players[1], Deal(key), limit, [0.0, False])
            score, reason = (s0, 10 - s0), ""
        except Disqualified as dq:
            score, reason = None, f"{players[dq.side].name}: {dq.reason}"
    finally:
        for c in closers:
            c.close()
    note = "" if not shared else (
        f"Note: {', '.join(shared)} keeps one object for the whole tournament; it is replayed "
        "from a fresh start, so what it learnt in earlier matches is missing.")
    return Replay(match, (bots[a]["name"], bots[b]["name"]), score, reason, log,
                  entry["score"] if entry else None, note)

