"""Match records at hand: `umpire matches`, `umpire export ID`, `umpire verify RECORD.json`.

`verify` checks an exported record the way a suspicious player would: the revealed salt and
seed hash to the commitment (the seed alone for a match stored before salting), the commitment is the one published when the match started, and
replaying every recorded action from that seed with the game's own rules is accepted step
by step, tells what the record says was told, and ends with the recorded result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.transport import render_names
from games.core import IllegalMove
from games.core.chance import seed_commitment
from games.registry import get_game

COMMITMENT = re.compile(r"\b([0-9a-f]{64})\b")


class RecordError(ValueError):
    """A record that cannot be read or checked (one sentence)."""


def result_words(result: dict[str, Any] | None, names: Sequence[str]) -> str:
    """"Bea wins 6-4 (reason)", winner first; "a draw 5-5"; "aborted (reason)"."""
    if not result:
        return "not over"
    winner = result.get("winner")
    score = result.get("score")
    reason = render_names(str(result.get("reason") or ""), list(names))
    if winner is None:
        text = "a draw" if not result.get("host") else "aborted"
        if score:
            text += f" {score[0]}-{score[1]}"
    else:
        text = f"{names[winner]} wins"
        if score:
            text += f" {score[winner]}-{score[1 - winner]}"
    return f"{text} ({reason})" if reason else text


def match_rows(rows: Sequence[Any]) -> str:
    """The table printed by `umpire matches`."""
    if not rows:
        return "No matches in this database yet."
    table = []
    for row in rows:
        names = [p.get("name", "?") for p in row.players]
        started = row.created_at.strftime("%Y-%m-%d %H:%M") if row.created_at else ""
        result = result_words(row.result, names) if row.result else ""
        table.append((str(row.id), row.game, " vs ".join(names), row.status, started, result))
    head = ("id", "game", "players", "status", "started", "result")
    widths = [max(len(r[i]) for r in [head, *table]) for i in range(5)]
    return "\n".join(
        f"{r[0]:>{widths[0]}}  " + "  ".join(f"{c:<{w}}" for c, w in zip(r[1:5], widths[1:],
                                                                        strict=True)) + f"  {r[5]}"
        for r in [head, *table])


def salt_words(record: dict[str, Any]) -> str:
    """The salt line of a transcript: the salt, or why there is none."""
    if record.get("seed_salt"):
        return str(record["seed_salt"])
    if record.get("seed"):
        return "none (the match was stored before commitments were salted)"
    return "revealed with the seed when the match ends"


def transcript(record: dict[str, Any]) -> str:
    """A readable transcript of an exported record: every message, where it went, in order."""
    names = [p["name"] for p in record["players"]]
    head = [f"Match #{record['match']}: {record['game']}, {names[0]} vs {names[1]}",
            f"Status: {record['status']}; result: {result_words(record.get('result'), names)}",
            f"Seed commitment (SHA-256): {record.get('seed_commitment')}",
            f"Seed: {record.get('seed') or 'not revealed yet (the match is not over)'}",
            f"Salt: {salt_words(record)}", ""]
    places = {"public": "room", "umpire": "host log"}
    body = []
    for m in record.get("messages", []):
        audience = m["audience"]
        place = places.get(audience) or (f"table of {names[int(audience[4:])]}"
                                         if audience.startswith("seat") else audience)
        text = render_names(m["text"], names)
        lines = text.splitlines() or [""]
        at = m.get("at", "")[11:19]
        body.append(f"{at} [{place}] {lines[0]}")
        body += [" " * (len(at) + len(place) + 4) + line for line in lines[1:]]
    return "\n".join(head + body)


def verify(record: dict[str, Any]) -> str:
    """"verified: ..." or raise RecordError saying exactly where the record differs."""
    try:
        game = get_game(record["game"])
        seed = record.get("seed")
        commitment = record["seed_commitment"]
        actions = record["actions"]
        messages = record.get("messages", [])
        names = [p["name"] for p in record["players"]]
    except (KeyError, TypeError) as exc:
        raise RecordError(f"this is not an exported match record (no {exc}).") from None
    if not seed:
        raise RecordError("the seed is not revealed in this record (the match was not over "
                          "when it was exported): export it again after the match ends.")
    salt = record.get("seed_salt")
    digest = seed_commitment(seed, salt)
    if digest != commitment:
        what = f"{seed!r}" if salt is None else f"{salt}:{seed} (salt:seed)"
        raise RecordError(f"the revealed seed does not match the commitment: SHA-256 of "
                          f"{what} is {digest}, the record's commitment is {commitment}.")
    published = next((COMMITMENT.search(m["text"]) for m in messages
                      if m["audience"] == "public" and COMMITMENT.search(m["text"])), None)
    if published is None:
        raise RecordError("no commitment was published in the room at the start of the match.")
    if published.group(1) != commitment:
        raise RecordError(f"the commitment published at the start ({published.group(1)}) is "
                          f"not the record's ({commitment}).")
    state = game.setup(game.load_settings(record["settings"]), seed)
    by_seq: dict[int, dict[str, list[str]]] = {}
    for m in messages:
        if "seq" in m:
            by_seq.setdefault(m["seq"], {}).setdefault(m["audience"], []).append(m["text"])
    for n, action in enumerate(actions, 1):
        where = f"action {n} ({names[action['seat']]}: {action['command']})"
        try:
            command = game.load_command(action["command"])
            game.check(state, action["seat"], command)
        except IllegalMove as exc:
            raise RecordError(f"{where}: the rules refuse it in the replay: {exc}") from None
        except Exception as exc:  # a malformed command
            raise RecordError(f"{where}: not a command of {game.title} ({exc}).") from None
        events = game.apply(state, action["seat"], command)
        told = by_seq.get(action.get("seq", n))
        if told is None:
            continue
        for event in events:
            audience = event.audience.kind
            place = "public" if audience == "public" else \
                f"seat{event.audience.seat}" if audience == "seat" else "umpire"
            if not any(event.text in text for text in told.get(place, [])):
                shown = render_names(event.text, names)
                raise RecordError(f"{where}: the replay tells {place!r} \"{shown}\", which "
                                  "the record's messages do not say.")
    outcome = game.outcome(state)
    result = record.get("result") or {}
    if result.get("host"):
        if outcome is not None:
            raise RecordError("the record says the hosts ended the match, but the replay "
                              "ends by the rules: " + _outcome_words(outcome, names) + ".")
    elif outcome is None:
        raise RecordError(f"the replay of all {len(actions)} actions does not end the match, "
                          f"but the record says {result_words(result, names)}.")
    else:
        replayed = {"winner": outcome.winner, "reason": outcome.reason,
                    "score": list(outcome.score) if outcome.score else None}
        recorded = {k: result.get(k) for k in replayed}
        if replayed != recorded:
            raise RecordError(f"the result differs: the record says "
                              f"{result_words(recorded, names)}, the replay gives "
                              f"{result_words(replayed, names)}.")
    return (f"verified: match #{record['match']} ({game.title}, {names[0]} vs {names[1]}): "
            f"the {'seed' if salt is None else 'salt and seed'} match the commitment "
            f"published at the start, and replaying its "
            f"{len(actions)} actions gives the same messages and result: "
            f"{result_words(result, names)}." +
            (" This match predates salted commitments: its commitment is SHA-256 of the seed "
             "alone, which a short seed does not hide." if salt is None else ""))


def _outcome_words(outcome: Any, names: Sequence[str]) -> str:
    return result_words({"winner": outcome.winner, "reason": outcome.reason,
                         "score": list(outcome.score) if outcome.score else None}, names)
