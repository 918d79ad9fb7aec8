"""Match records at hand: `umpire matches`, `umpire export ID`, `umpire verify RECORD.json`.

`verify` checks an exported record the way a suspicious player would. The record is read
through a schema (`Record`: a malformed one is one sentence naming the first wrong field);
its status must say the match ended, in agreement with its result; its times must be in
order, none before the start or after the end. The revealed salt and seed hash to the
commitment (the seed alone for a match stored before salting), and the commitment is the one
published when the match started (once the room's messages were pruned, the one the match
row keeps). The match commitment, published and kept the same way, covers the game, the
players (names are only placeholders in the messages), the settings, the start time and the
seed commitment: each one changed is named (bot/match_commitment.py). A record from before
match commitments is checked without it and says so. The opening dealt with the record's
settings tells what the start told, and its first deadline is one of the timers; replaying
every recorded action from that seed with the game's own rules is accepted step by step,
tells what the record says was told, and ends with the recorded result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from bot.match_commitment import COVERED, commitment_of, parts_of
from bot.messages import outcome_line
from bot.status import MatchStatus
from bot.transport import PlayerRef, render_names, render_text, seconds_left
from games.core import IllegalMove
from games.core.chance import seed_commitment
from games.core.feed import end_reveal
from games.registry import all_games, get_game

COMMITMENT = re.compile(r"\b([0-9a-f]{64})\b")


class RecordError(ValueError):
    """A record that cannot be read or checked (one sentence)."""


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class RecordPlayer(_Part):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    bot: str | None = None


class RecordAction(_Part):
    seq: int = Field(ge=1)
    seat: Literal[0, 1]
    command: dict[str, Any]
    source: str | None = None
    at: AwareDatetime


class RecordMessage(_Part):
    seq: int | None = None
    audience: str
    text: str
    at: AwareDatetime


class RecordResult(_Part):
    winner: Literal[0, 1] | None = None
    reason: str = ""
    score: list[int | float] | None = Field(default=None, min_length=2, max_length=2)
    host: bool | None = None


class RecordCommitment(_Part):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    parts: dict[str, str]


class Record(_Part):
    """What `umpire export ID` writes, as verify requires it: a wrong shape is one sentence."""

    match: int
    game: str
    status: Literal["finished", "aborted", "active", "paused"]
    players: list[RecordPlayer] = Field(min_length=2, max_length=2)
    settings: dict[str, Any]
    seed_commitment: str = Field(pattern=r"^[0-9a-f]{64}$")
    seed: str | None = None
    seed_salt: str | None = None
    match_commitment: RecordCommitment | None = None
    started_at: AwareDatetime | None = None
    ended_at: AwareDatetime | None = None
    result: RecordResult | None = None
    actions: list[RecordAction]
    messages: list[RecordMessage] = Field(default_factory=list)
    reveal: str | None = None  # the game's declared reveal at the end (games.core.feed)

    @field_validator("players")
    @classmethod
    def _two_people(cls, players: list[RecordPlayer]) -> list[RecordPlayer]:
        if players[0].id == players[1].id:
            raise ValueError("both seats name the same player")
        return players


def read_record(data: Any) -> Record:
    """`data` as a Record, or a RecordError naming the first field that is wrong."""
    try:
        return Record.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(x) for x in error["loc"]) or "the record"
        if error["type"] == "missing":
            raise RecordError(f"this is not a well-formed match record: it has no {where}; "
                              "give a record written by `umpire export ID`, "
                              "unchanged.") from None
        got = error.get("input")
        shown = repr(got) if not isinstance(got, dict | list) or len(repr(got)) < 60 else \
            type(got).__name__
        raise RecordError(f"this is not a well-formed match record: {where} = {shown}: "
                          f"{error['msg'].lower()}; give a record written by "
                          "`umpire export ID`, unchanged.") from None


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
    head = ("id", "game", "players", "status", "started (UTC)", "result")
    widths = [max(len(r[i]) for r in [head, *table]) for i in range(5)]
    return "\n".join(
        f"{r[0]:>{widths[0]}}  " + "  ".join(f"{c:<{w}}" for c, w in zip(r[1:5], widths[1:],
                                                                        strict=True)) + f"  {r[5]}"
        for r in [head, *table])


def event_rows(events: Sequence[Any]) -> str:
    """The table printed by `umpire events`, with the command that exports each."""
    if not events:
        return "No events in this database yet (`umpire tournament --db FILE` runs one)."
    head = ("id", "name", "game", "format", "status", "players", "where")
    table = [head] + [
        (str(e.id), e.name, e.game, e.format, e.status, str(len(e.entrants)),
         "local" if not e.guild else f"server {e.guild}")
        for e in events]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) if i == 0 else c.ljust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
             for r in table]
    return "\n".join([*lines, "", "Export one with `umpire export --event ID --db ...`."])


def salt_words(record: dict[str, Any]) -> str:
    """The salt line of a transcript: the salt, or why there is none."""
    if record.get("seed_salt"):
        return str(record["seed_salt"])
    if record.get("seed"):
        return "none (the match was stored before commitments were salted)"
    return "revealed with the seed when the match ends"


def transcript(record: dict[str, Any], names: Sequence[str] | None = None) -> str:
    """A readable transcript of an exported record: every message, where it went, in order,
    every placeholder rendered (names; deadlines as UTC and how long after the message).
    `names`: the players' names (default: the record's)."""
    names = list(names or [p["name"] for p in record["players"]])
    settings = record.get("settings") or {}
    covering = record.get("match_commitment") or {}
    head = [f"Match #{record['match']}: {record['game']}, {names[0]} vs {names[1]}",
            f"Status: {record['status']}; result: {result_words(record.get('result'), names)}",
            when_words(record),
            "Settings: " + (", ".join(f"{k} = {v}" for k, v in settings.items()) or "none"),
            f"Seed commitment (SHA-256): {record.get('seed_commitment')}",
            f"Seed: {record.get('seed') or 'not revealed yet (the match is not over)'}",
            f"Salt: {salt_words(record)}"]
    if covering.get("sha256"):
        head.append(f"Match commitment (SHA-256 of the players, settings, start time and "
                    f"seed commitment): {covering['sha256']}")
    head += ["Times are UTC.", ""]
    places = {"public": "room", "umpire": "host log"}
    body = []
    day = str(record.get("started_at") or "")[:10]
    for m in record.get("messages", []):
        if str(m.get("at", ""))[:10] not in ("", day):  # a match that runs past midnight
            day = m["at"][:10]
            body.append(f"-- {day}")
        audience = m["audience"]
        place = places.get(audience) or (f"table of {names[int(audience[4:])]}"
                                         if audience.startswith("seat") else audience)
        sent = message_time(m.get("at"))
        text = render_text(m["text"], lambda seat: names[seat] if seat < len(names) else None,
                           lambda when, sent=sent: deadline_words(when, sent))  # type: ignore[misc]  # (mypy infers no lambda with defaults)
        lines = text.splitlines() or [""]
        at = m.get("at", "")[11:19]
        body.append(f"{at} [{place}] {lines[0]}")
        body += [" " * (len(at) + len(place) + 4) + line for line in lines[1:]]
    if record.get("reveal"):  # what the rules kept from each player, shown at the end
        body += ["", "Revealed at the end of the match:",
                 render_names(str(record["reveal"]), names)]
    return "\n".join(head + body)


def transcript_text(record: dict[str, Any], players: tuple[PlayerRef, ...]) -> str:
    """The readable transcript, as `umpire export --text` writes it (every placeholder, the
    result's included, rendered)."""
    return transcript(record, [p.name for p in players]) + "\n"


def when_words(record: dict[str, Any]) -> str:
    """"Started: 2026-11-26 14:12:55 UTC; ended: 2026-11-26 14:20:03 UTC, 7 min 8 s later"
    (from the first message's time for a record exported before it had `started_at`)."""
    started = message_time(record.get("started_at"))
    if started is None:
        started = next((t for m in record.get("messages", [])
                        if (t := message_time(m.get("at"))) is not None), None)
    ended = message_time(record.get("ended_at"))
    text = "Started: " + (utc_words(started) if started else "unknown")
    if ended is not None:
        text += f"; ended: {utc_words(ended)}"
        if started is not None:
            text += f", {span_words((ended - started).total_seconds())} later"
    return text


def utc_words(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def span_words(seconds: float) -> str:
    """A length of time: "3 d 2 h", "2 h 5 min", "7 min 8 s", "4 s"."""
    left = max(0, round(seconds))
    units = [("d", 86400), ("h", 3600), ("min", 60), ("s", 1)]
    parts: list[str] = []
    for name, size in units:
        amount, left = divmod(left, size)
        if amount or parts:
            parts.append(f"{amount} {name}")
    shown = [p for p in parts[:2] if not p.startswith("0 ")]
    return " ".join(shown) or "0 s"


def message_time(text: Any) -> datetime | None:
    """A record's ISO time, None if it is not one."""
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        return None


def deadline_words(when: datetime, sent: datetime | None) -> str:
    """A deadline in a transcript: the UTC time, and how long after the message it was
    ("12:08:28 UTC, 30 s after this message")."""
    absolute = utc_words(when)
    if sent is None:
        return absolute
    left = seconds_left(when, sent)
    return absolute + (", at once" if left == "now" else
                       f", {left.removeprefix('in ')} after this message")


def verify(data: dict[str, Any]) -> str:
    """"verified: ..." or raise RecordError saying exactly where the record differs."""
    rec = read_record(data)
    record = rec.model_dump(mode="python")
    try:
        game = get_game(rec.game)
    except KeyError:
        raise RecordError(f"the record's game {rec.game!r} is not a game this umpire knows "
                          "(its games: " + ", ".join(all_games()) + ").") from None
    seed, commitment = rec.seed, rec.seed_commitment
    actions = record["actions"]
    messages = record["messages"]
    names = [p.name for p in rec.players]
    if not seed:
        raise RecordError("the seed is not revealed in this record (the match was not over "
                          "when it was exported): export it again after the match ends.")
    _check_status(rec, names)
    _check_times(rec)
    salt = record.get("seed_salt")
    digest = seed_commitment(seed, salt)
    if digest != commitment:
        what = f"{seed!r}" if salt is None else f"{salt}:{seed} (salt:seed)"
        raise RecordError(f"the revealed seed does not match the commitment: SHA-256 of "
                          f"{what} is {digest}, the record's commitment is {commitment}.")
    start = [m for m in messages if m["seq"] == 0 and m["audience"] == "public"]
    published = next((COMMITMENT.search(m["text"]) for m in start
                      if COMMITMENT.search(m["text"])), None)
    pruned = not start  # the room's messages were pruned: the match row's commitment stands
    if published is None and not pruned:
        raise RecordError("no commitment was published in the room at the start of the match.")
    if published is not None and published.group(1) != commitment:
        raise RecordError(f"the commitment published at the start ({published.group(1)}) is "
                          f"not the record's ({commitment}).")
    try:
        settings = game.load_settings(data["settings"])
    except Exception as exc:
        raise RecordError(f"the record's settings are not settings of {game.title} "
                          f"({_first(exc)}).") from None
    committed = _check_match_commitment(rec, data, start)
    if not pruned:
        _check_deadline(settings, start)
    state = game.setup(settings, seed)
    by_seq: dict[int, dict[str, list[str]]] = {}
    for m in messages:
        if "seq" in m:
            by_seq.setdefault(m["seq"], {}).setdefault(m["audience"], []).append(m["text"])
    # the opening as the record's settings deal it: what the start told (settings such as
    # chips, rounds or hand sizes show there)
    told: dict[int, Told] = {}  # seq -> what the replay tells each audience there
    opening = game.opening_events(state)
    _check_told(opening, by_seq.get(0), "the start", names)
    _replayed(told, 0, opening, game.prompts(state), "the start")
    for n, action in enumerate(actions, 1):
        where = f"action {n} ({names[action['seat']]}: {action['command']})"
        if rec.players[action["seat"]].bot is None and action.get("source") == "bot":
            raise RecordError(f"{where}: the record says a bot made it, but "
                              f"{names[action['seat']]} is not a bot.")
        try:
            command = game.load_command(action["command"])
            game.check(state, action["seat"], command)
        except IllegalMove as exc:
            raise RecordError(f"{where}: the rules refuse it in the replay: {exc}") from None
        except Exception as exc:  # a malformed command
            raise RecordError(f"{where}: not a command of {game.title} ({_first(exc)}).") from None
        events = game.apply(state, action["seat"], command)
        _check_told(events, by_seq.get(action.get("seq", n)), where, names)
        _replayed(told, action.get("seq", n), events,
                  game.prompts(state) if game.outcome(state) is None else [], where)
    outcome = game.outcome(state)
    result = record.get("result") or {}
    _check_message_list(messages, told, names)
    if outcome is not None and not result.get("host"):
        _check_end_told(messages, outcome_line(outcome, seed, salt), names)
    revealed = record.get("reveal")
    if revealed is not None and revealed != end_reveal(game, state, True):
        raise RecordError("the reveal at the end of the record is not what the replay "
                          "reveals: " + _short_text(render_names(revealed, names)))
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
            + ("stored with the match (its room messages were pruned)" if pruned else
               "published at the start") + ", and replaying its "
            f"{len(actions)} actions gives the same messages and result: "
            f"{result_words(result, names)}." +
            (f" Its match commitment {rec.match_commitment.sha256} covers its players, settings "
             "and start time" + (": compare it with the one the room was given at the start."
                                 if pruned else ".") if committed and rec.match_commitment else
             " This match predates match commitments, so its players' names, its settings "
             "and its start time could be checked only as far as its messages show them.") +
            (" This match predates salted commitments: its commitment is SHA-256 of the seed "
             "alone, which a short seed does not hide." if salt is None else ""))


#: The match commitment as the start message publishes it.
PUBLISHED = re.compile(r"Match commitment \([^)]*\): `([0-9a-f]{64})`")


def _check_match_commitment(rec: Record, data: dict[str, Any],
                            start: Sequence[dict[str, Any]]) -> bool:
    """The record's game, players, settings, start time and seed commitment are those the
    match committed to at the start (bot/match_commitment.py). False: the record has no
    match commitment (stored before there was one), so this could not be checked."""
    announced = next((found.group(1) for m in start if (found := PUBLISHED.search(m["text"]))),
                     None)
    covering = rec.match_commitment
    if covering is None:
        if announced is not None:
            raise RecordError(f"the room was told the match commitment {announced} at the "
                              "start, but the record carries none.")
        return False
    if start and announced is None:
        raise RecordError("the record carries a match commitment, but none was published in "
                          "the room at the start.")
    if announced is not None and announced != covering.sha256:
        raise RecordError(f"the match commitment published at the start ({announced}) is not "
                          f"the record's ({covering.sha256}).")
    if commitment_of(covering.parts) != covering.sha256:
        raise RecordError(f"the parts of the record's match commitment do not hash to it "
                          f"({covering.sha256}): they were changed.")
    if rec.started_at is None:
        raise RecordError("the record carries a match commitment but no start time "
                          "(started_at), which the commitment covers.")
    parts = parts_of(game=data["game"], players=data["players"], settings=data["settings"],
                     started_at=rec.started_at, seed_commitment=rec.seed_commitment)
    names = " vs ".join(p.name for p in rec.players)
    differs = {
        "game": f"the game {rec.game!r} is not the one the match committed to at the start.",
        "players": f"the players ({names}) are not the ones the match committed to at the "
                   "start: a name, an id, a bot or the seat order was changed.",
        "settings": "the settings are not the ones the match committed to at the start: a "
                    "setting was changed after the match began.",
        "started_at": f"the start time {rec.started_at.isoformat()} is not the one the match "
                      "committed to at the start: the record's times were changed.",
        "seed_commitment": "the seed commitment is not the one the match commitment covers.",
    }
    for key in COVERED:
        if parts[key] != covering.parts.get(key):
            raise RecordError(differs[key])
    return True


def _check_told(events: Sequence[Any], told: dict[str, list[str]] | None, where: str,
                names: Sequence[str]) -> None:
    """Each replayed event is in a message the record says went to its audience (nothing to
    compare where that step's message to the audience was pruned: a step writes one message
    per audience, and pruning deletes the delivered ones, so others of the step may stay)."""
    if told is None:
        return
    for event in events:
        audience = event.audience.kind
        place = "public" if audience == "public" else \
            f"seat{event.audience.seat}" if audience == "seat" else "umpire"
        if place in told and not any(event.text in text for text in told[place]):
            shown = render_names(event.text, names)
            raise RecordError(f"{where}: the replay tells {place!r} \"{shown}\", which "
                              "the record's messages do not say.")


def _short_text(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


@dataclass
class Told:
    """What the replay of one step tells each audience: its events' lines, and the lines of
    the decisions open after it (a message of that step may show them), and where it is."""

    where: str
    events: dict[str, list[str]] = field(default_factory=dict)
    prompts: dict[str, set[str]] = field(default_factory=dict)


def _place(audience: Any) -> str:
    return "public" if audience.kind == "public" else \
        f"seat{audience.seat}" if audience.kind == "seat" else "umpire"


def _replayed(told: dict[int, Told], seq: int, events: Sequence[Any], prompts: Sequence[Any],
              where: str) -> None:
    step = told.setdefault(seq, Told(where))
    for event in events:
        step.events.setdefault(_place(event.audience), []).append(event.text)
    for p in prompts:
        lines = step.prompts.setdefault(f"seat{p.seat}" if p.private else "public", set())
        for text in (p.text, p.brief):
            lines.update(line.strip() for line in text.splitlines())


#: Where a message went, in a sentence.
_TO = {"public": "the room", "seat0": "{P0}'s table", "seat1": "{P1}'s table",
       "umpire": "the host log"}


def _check_message_list(messages: Sequence[dict[str, Any]], told: dict[int, Told],
                        names: Sequence[str]) -> None:
    """The record's messages are exactly the ones the replay makes, as far as a record
    shows them: in the order they were stored (ids and step numbers never go back); every
    step's message to each audience its replay tells something is there (unless the
    audience's messages before it were all pruned: retention deletes the oldest); and no
    line in the room or at a table reads like a move or an event that the replay of its
    step does not tell (the umpire's own lines start with a sign: ▶ ⏳ 🏁 ⏰ ⏸ ...)."""
    last_id, last_seq = None, 0
    for n, m in enumerate(messages, 1):
        what = f"message {n} (to {render_names(_TO.get(m['audience'], m['audience']), names)})"
        mid = m.get("id")
        if isinstance(mid, int) and last_id is not None and mid <= last_id:
            raise RecordError(f"{what} was stored before the message listed ahead of it (id "
                              f"{mid} after {last_id}): the messages were reordered.")
        last_id = mid if isinstance(mid, int) else last_id
        seq = m.get("seq")
        if isinstance(seq, int):
            if seq < last_seq:
                raise RecordError(f"{what} belongs to step {seq}, after a message of step "
                                  f"{last_seq}: the messages were reordered.")
            last_seq = seq
    kept: dict[str, list[int]] = {}
    for m in messages:
        if isinstance(m.get("seq"), int):
            kept.setdefault(m["audience"], []).append(m["seq"])
    for seq, step in sorted(told.items()):
        for audience, texts in step.events.items():
            seqs = kept.get(audience, [])
            if seq in seqs or not seqs or min(seqs) > seq:  # there, or pruned with the older
                continue
            raise RecordError(f"{step.where}: the record has no message to "
                              f"{render_names(_TO.get(audience, audience), names)}, though "
                              f"the replay tells it \"{render_names(texts[0], names)}\": a "
                              "message was deleted.")
    for n, m in enumerate(messages, 1):
        audience, seq = m["audience"], m.get("seq")
        if audience not in ("public", "seat0", "seat1") or not isinstance(seq, int):
            continue
        step = told.get(seq, Told(f"step {seq}"))
        prompts = step.prompts.get(audience, set())
        lines = {line.strip() for text in step.events.get(audience, ())
                 for line in text.splitlines()} | prompts
        for line in m["text"].splitlines():
            line = line.strip()
            if line and (line[0].isalnum() or line.startswith("{P")) and line not in lines \
                    and not any(line.startswith(f"{p} ") for p in prompts if p):  # its clock
                raise RecordError(
                    f"message {n} (to {render_names(_TO[audience], names)}, at {step.where}) "
                    f"says \"{render_names(line, names)}\", which the replay does not tell "
                    "there: a message was added or changed.")


def _check_end_told(messages: Sequence[dict[str, Any]], line: str,
                    names: Sequence[str]) -> None:
    """A match the rules ended told the room so, with the seed (unless the room's messages
    were pruned)."""
    room = [m for m in messages if m["audience"] == "public"]
    head = line.split(" (", 1)[0]  # "🏁 Match over: {P0} wins 6-4": older records word the
    if room and not any(head in m["text"] for m in room):  # rest (the seed's part) otherwise
        raise RecordError(f"the room was never told how the match ended "
                          f"(\"{render_names(line, names)[:80]}…\"): a message was deleted.")


def _first(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        return f"{'.'.join(str(x) for x in error['loc'])}: {error['msg'].lower()}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _check_status(rec: Record, names: Sequence[str]) -> None:
    """A revealed seed means the match ended: its status and result must say how."""
    if rec.status not in ("finished", "aborted"):
        raise RecordError(f"the record says the match is {rec.status}, but it reveals the "
                          "seed, which is revealed only when a match ends.")
    # the hosts abort (no winner: "aborted") or award the match (a winner: "finished")
    result = rec.result.model_dump() if rec.result else None
    aborted = bool(rec.result and rec.result.host and rec.result.winner is None)
    if result is None or (rec.status == MatchStatus.ABORTED) != aborted:
        raise RecordError(f"the record's status {rec.status!r} does not agree with its "
                          f"result ({result_words(result, names)}).")


def _check_times(rec: Record) -> None:
    """Actions and messages in the order they were stored, none before the first message."""
    for what, times in (("action", [a.at for a in rec.actions]),
                        ("message", [m.at for m in rec.messages])):
        for n, (before, after) in enumerate(zip(times, times[1:], strict=False), 2):
            if after < before:
                raise RecordError(f"the record's {what} times are out of order: {what} {n} "
                                  f"({after}) comes after {what} {n - 1} ({before})"
                                  + (": the messages were reordered." if what == "message"
                                     else "."))
    seqs = [a.seq for a in rec.actions]
    if seqs != sorted(set(seqs)):
        raise RecordError("the record's actions are not numbered in order (seq "
                          f"{', '.join(map(str, seqs[:10]))}...).")
    if rec.messages and rec.actions and rec.messages[0].seq == 0 and \
            rec.actions[0].at < rec.messages[0].at:
        raise RecordError(f"the record's first action ({rec.actions[0].at}) is before the "
                          f"match started ({rec.messages[0].at}).")
    began, ended = rec.started_at, rec.ended_at
    first = min([*(a.at for a in rec.actions), *(m.at for m in rec.messages)], default=None)
    if began is not None and first is not None and first < began:
        raise RecordError(f"the record's times are out of order: {first} is before the match "
                          f"started ({began}).")
    last = rec.actions[-1].at if rec.actions else began
    if ended is not None and last is not None and ended < last:
        raise RecordError(f"the record's times are out of order: the match ended ({ended}) "
                          f"before {'its last action' if rec.actions else 'it started'} "
                          f"({last}).")


UNTIL = re.compile(r"\{until:([^}]+)\}")


def _check_deadline(settings: Any, start: Sequence[dict[str, Any]]) -> None:
    """The first deadline announced at the start is one of the record's timer settings
    away: a record whose first timer was changed afterwards does not agree."""
    timers = {k: float(v) for k, v in settings.model_dump().items()
              if isinstance(v, int | float) and not isinstance(v, bool)
              and k.endswith(("_seconds", "_time"))}
    found = next(((m, until) for m in start if (until := UNTIL.search(m["text"]))), None)
    if not timers or found is None:
        return
    message, until = found
    try:
        deadline = datetime.fromisoformat(until.group(1))
    except ValueError:
        raise RecordError(f"the start message's deadline {until.group(1)!r} is not a "
                          "time.") from None
    announced = (deadline - message["at"]).total_seconds()
    if not any(abs(announced - v) <= 0.01 for v in timers.values()):  # the same `now`
        listed = ", ".join(f"{k} = {v:g}" for k, v in timers.items())
        raise RecordError(f"the start announced a first deadline {announced:g} s away, which "
                          f"none of the record's timer settings gives ({listed}).")


def _outcome_words(outcome: Any, names: Sequence[str]) -> str:
    return result_words({"winner": outcome.winner, "reason": outcome.reason,
                         "score": list(outcome.score) if outcome.score else None}, names)
