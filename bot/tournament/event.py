"""An event (a tournament) as a pure state machine: sign-ups, seeding, start, pause, the
results of its matches, replacements and the end. No Discord, database or clock: every
transition takes the event and returns a new one (the input is never changed), so that the
runner can store first and apply after, as the service does for matches; a refusal is an
`EventError` whose message tells the host what is wrong and what to do.

Seeding at random is committed to before anyone signs up: the event is created with a
secret seed and a salt, and only their SHA-256 commitment is published. The draw is
`random.Random(<seed>:<entrant ids, sorted>)`, so once the seed and salt are revealed (when
the event starts) anyone can check both the commitment and the order.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel

from bot.tournament.formats.base import Format, FormatState, Pairing, Result
from games.core.chance import seed_commitment

Status = Literal["signup", "running", "paused", "ended"]
#: The rating of a player with none yet (openskill's default, as an ordinal: mu - 3 sigma).
UNRATED = 0.0


class EventError(Exception):
    """A request the event refuses; the message is for the host or member who made it."""


class Entrant(BaseModel):
    id: str  # the player's id, as in a match ("discord:123", "bot:1:heuristic")
    name: str
    bot: str | None = None  # a built-in bot plays for this entrant
    withdrawn: bool = False
    replaces: str | None = None  # the entrant this one came in for


class Event(BaseModel):
    id: int = 0
    guild: int = 0  # the Discord server (0: local)
    name: str
    game: str
    settings: dict[str, Any] = {}
    format: str
    rated: bool = True
    break_seconds: int = 0
    cap: int | None = None  # the most entrants sign-ups take
    rounds: int | None = None  # Swiss: how many rounds (None: the format's own count)
    status: Status = "signup"
    signups_open: bool = False
    entrants: list[Entrant] = []  # sign-up order; seed order once seeded
    seeded: str = ""  # "", "rating", "random", "order" (as signed up)
    seed: str  # secret until the event starts (the draw and the format's seed)
    salt: str
    commitment: str
    state: dict[str, Any] | None = None  # the format's state (JSON)
    matches: dict[str, int] = {}  # pairing id -> the match that plays it (the latest one)
    round_opens_at: datetime | None = None  # the next round opens then (after the break)
    version: int = 0  # +1 per stored change
    place: dict[str, Any] = {}  # where it is shown (Discord: channel, show message)

    # --- reading ----------------------------------------------------------------------------
    def entrant(self, player_id: str) -> Entrant | None:
        return next((e for e in self.entrants if e.id == player_id), None)

    def name_of(self, player_id: str | None) -> str:
        found = self.entrant(player_id) if player_id else None
        return found.name if found else "(bye)"

    def pairings(self, fmt: Format) -> list[Pairing]:
        return list(self.format_state(fmt).pairings) if self.state else []

    def format_state(self, fmt: Format) -> FormatState:
        if self.state is None:
            raise EventError("The event has not started yet.")
        return fmt.load(self.state)

    def undecided(self, fmt: Format) -> list[Pairing]:
        """Pairings opened and not decided yet: each needs a match (byes are decided)."""
        if self.state is None:
            return []
        state = fmt.load(self.state)
        return [p for p in state.pairings if p.player1 is not None and p.id not in state.results]

    def pairing_of(self, fmt: Format, pairing_id: str) -> Pairing | None:
        return next((p for p in self.pairings(fmt) if p.id == pairing_id), None)

    def format_seed(self) -> int:
        return format_seed(self.seed)


def format_seed(seed: str) -> int:
    """The format's own seed (Swiss's pairing draw), from the event's revealed seed."""
    return int(hashlib.sha256(f"format:{seed}".encode()).hexdigest()[:12], 16)


def match_seed(event: Event, pairing: Pairing, replay: int) -> str:
    """A match's seed for a local event (`umpire tournament --seed`): the event's seed and the
    pairing's place (round, id: table or bracket slot, and how many times it was played
    before), so that the same command gives the same event, replays included, whichever
    concurrent match ends first."""
    return f"{event.seed}:r{pairing.round}:{pairing.id}:{replay}"


def new_event(*, name: str, game: str, format: str, seed: str, salt: str,
              settings: Mapping[str, Any] | None = None, rated: bool = True,
              break_seconds: int = 0, cap: int | None = None, guild: int = 0,
              rounds: int | None = None) -> Event:
    """A new event, sign-ups closed, with the commitment to its secret seed."""
    if not name.strip():
        raise EventError("Give the event a name.")
    if cap is not None and cap < 2:
        raise EventError("An event needs room for at least 2 players: raise the cap.")
    if break_seconds < 0:
        raise EventError("The break between rounds cannot be negative.")
    return Event(name=name.strip()[:100], game=game, format=format, seed=seed, salt=salt,
                 commitment=seed_commitment(seed, salt), settings=dict(settings or {}),
                 rated=rated, break_seconds=break_seconds, cap=cap, guild=guild,
                 rounds=rounds)


def _changed(event: Event, **fields: Any) -> Event:
    return event.model_copy(update={**fields, "version": event.version + 1}, deep=True)


def _in_signup(event: Event, what: str) -> None:
    if event.status != "signup":
        raise EventError(f"The event has started, so {what} is no longer possible.")


# --- sign-ups ------------------------------------------------------------------------------
def open_signups(event: Event) -> Event:
    _in_signup(event, "opening sign-ups")
    if event.signups_open:
        raise EventError("Sign-ups are open already.")
    return _changed(event, signups_open=True, seeded="")


def close_signups(event: Event) -> Event:
    _in_signup(event, "closing sign-ups")
    if not event.signups_open:
        raise EventError("Sign-ups are closed already.")
    return _changed(event, signups_open=False)


def join(event: Event, entrant: Entrant) -> Event:
    if event.status != "signup" or not event.signups_open:
        raise EventError(f"Sign-ups for {event.name} are closed; ask a host.")
    if event.entrant(entrant.id) is not None:
        raise EventError(f"You are signed up for {event.name} already.")
    if event.cap is not None and len(event.entrants) >= event.cap:
        raise EventError(f"{event.name} is full ({event.cap} players).")
    return _changed(event, entrants=[*event.entrants, entrant], seeded="")


def leave(event: Event, player_id: str) -> Event:
    _in_signup(event, "leaving (a host can replace you)")
    if event.entrant(player_id) is None:
        raise EventError(f"You are not signed up for {event.name}.")
    return _changed(event, entrants=[e for e in event.entrants if e.id != player_id],
                    seeded="")


# --- seeding -------------------------------------------------------------------------------
def _ready_to_seed(event: Event) -> None:
    _in_signup(event, "seeding")
    if event.signups_open:
        raise EventError("Close sign-ups first: the seeding is of the players signed up then.")
    if len(event.entrants) < 2:
        raise EventError("An event needs at least 2 players signed up.")


def seed_by_rating(event: Event, ratings: Mapping[str, float]) -> Event:
    """Best rating first (the displayed ordinal, as the leaderboard); players without a
    rating count as `UNRATED`; equal ratings keep their sign-up order."""
    _ready_to_seed(event)
    order = sorted(event.entrants, key=lambda e: -ratings.get(e.id, UNRATED))
    return _changed(event, entrants=order, seeded="rating")


def random_order(seed: str, ids: list[str]) -> list[str]:
    """The draw: the entrant ids, sorted, then shuffled by `Random(<seed>:<ids>)`."""
    ordered = sorted(ids)
    random.Random(f"{seed}:{','.join(ordered)}").shuffle(ordered)
    return ordered


def seed_in_order(event: Event) -> Event:
    """Seeded in sign-up order, the first to sign up first (`umpire tournament --players`)."""
    _ready_to_seed(event)
    return _changed(event, seeded="order")


def seed_at_random(event: Event) -> Event:
    _ready_to_seed(event)
    by_id = {e.id: e for e in event.entrants}
    order = [by_id[i] for i in random_order(event.seed, list(by_id))]
    return _changed(event, entrants=order, seeded="random")


def start(event: Event, fmt: Format) -> Event:
    """Start: unseeded entrants are seeded at random first (the committed draw)."""
    _ready_to_seed(event)
    seeded = event if event.seeded else seed_at_random(event)
    ids = [e.id for e in seeded.entrants]
    state = fmt.start(ids, seeded.format_seed(), rounds=event.rounds)
    return _changed(seeded, status="running", state=state.model_dump(mode="json"))


# --- running ----------------------------------------------------------------------------------
def pause(event: Event) -> Event:
    if event.status != "running":
        raise EventError(f"Only a running event can be paused; {event.name} is {event.status}.")
    return _changed(event, status="paused")


def resume(event: Event) -> Event:
    if event.status != "paused":
        raise EventError(f"{event.name} is not paused.")
    return _changed(event, status="running")


def end(event: Event) -> Event:
    if event.status == "ended":
        raise EventError(f"{event.name} has ended already.")
    return _changed(event, status="ended", round_opens_at=None, signups_open=False)


def open_round(event: Event, fmt: Format, now: datetime | None = None
               ) -> tuple[Event, list[Pairing]]:
    """The next round's pairings (none while a round is still played, or before the break
    ends at `now`); the event ends when the format is finished."""
    if event.status != "running" or (now is not None and event.round_opens_at is not None
                                     and event.round_opens_at > now):
        return event, []
    state, pairings = fmt.next_round(event.format_state(fmt))
    changed = _changed(event, state=state.model_dump(mode="json"), round_opens_at=None)
    if not pairings and fmt.finished(state):
        changed = _changed(changed, status="ended")
    return changed, pairings


def placed(event: Event, **place: Any) -> Event:
    """Where the event is shown (Discord: its channel, the show message)."""
    return _changed(event, place={**event.place, **place})


def link(event: Event, pairing_id: str, match_id: int) -> Event:
    return _changed(event, matches={**event.matches, pairing_id: match_id})


def unlink(event: Event, pairing_id: str) -> Event:
    """The pairing's match ended without a result (aborted, or a draw the format has no
    place for): it is played again."""
    return _changed(event, matches={k: v for k, v in event.matches.items() if k != pairing_id})


def record(event: Event, fmt: Format, result: Result, now: datetime) -> Event:
    """A pairing's result. Recording a decided pairing again changes nothing (a retried
    transaction, a walkover's match that ends after all). When it closes the round, the
    next one opens after the break (`round_opens_at`); the event ends with the format."""
    state = event.format_state(fmt)
    if result.pairing in state.results:
        return event
    state = fmt.record(state, result)
    changed = _changed(event, state=state.model_dump(mode="json"))
    if not changed.undecided(fmt) and event.status in ("running", "paused"):
        if fmt.finished(state):
            return _changed(changed, status="ended", round_opens_at=None)
        opens = now + timedelta(seconds=event.break_seconds)
        changed = _changed(changed, round_opens_at=opens)
    return changed


def _decided_by_walkover(event: Event, fmt: Format, player_id: str) -> tuple[Event, list[str]]:
    """Every pairing `player_id` is playing now (a match started, no result) is lost by
    walkover: (the event, the pairings decided so)."""
    decided = []
    for pairing in event.undecided(fmt):
        if player_id in (pairing.player0, pairing.player1) and pairing.id in event.matches:
            other = pairing.player1 if pairing.player0 == player_id else pairing.player0
            event = record(event, fmt, Result(pairing=pairing.id, winner=other, walkover=True),
                           _NO_TIME)
            decided.append(pairing.id)
    return event, decided


def withdraw(event: Event, fmt: Format, player_id: str, now: datetime) -> tuple[Event, list[str]]:
    """A player drops out: the match they play now is lost by walkover, and so is every
    later pairing (the format's `withdraw`). Returns the event and the pairings whose
    running match is now decided (the runner stops those matches)."""
    found = _running_entrant(event, player_id)
    event, decided = _decided_by_walkover(event, fmt, found.id)
    state = fmt.withdraw(event.format_state(fmt), found.id)
    entrants = [e.model_copy(update={"withdrawn": True}) if e.id == found.id else e
                for e in event.entrants]
    return _after_change(_changed(event, state=state.model_dump(mode="json"),
                                  entrants=entrants), fmt, now), decided


def replace(event: Event, fmt: Format, player_id: str, substitute: Entrant,
            now: datetime) -> tuple[Event, list[str]]:
    """A substitute takes over every pairing `player_id` has not played; the match they
    play now (if any) is lost by walkover, recorded as such."""
    found = _running_entrant(event, player_id)
    if event.entrant(substitute.id) is not None:
        raise EventError(f"{substitute.name} is in {event.name} already.")
    event, decided = _decided_by_walkover(event, fmt, found.id)
    state = fmt.replace(event.format_state(fmt), found.id, substitute.id)
    entrants = [e.model_copy(update={"withdrawn": True}) if e.id == found.id else e
                for e in event.entrants]
    entrants.append(substitute.model_copy(update={"replaces": found.id}))
    return _after_change(_changed(event, state=state.model_dump(mode="json"),
                                  entrants=entrants), fmt, now), decided


def _running_entrant(event: Event, player_id: str) -> Entrant:
    if event.status not in ("running", "paused"):
        raise EventError("Only a player of a running event can be replaced or withdrawn; "
                         "before the start, they leave (or are left out when seeding).")
    found = event.entrant(player_id)
    if found is None or found.withdrawn:
        raise EventError("That player is not (or no longer) in the event.")
    return found


def _after_change(event: Event, fmt: Format, now: datetime) -> Event:
    """After walkovers: a round with nothing left to play closes (the next one opens
    after the break), and a finished format ends the event."""
    if event.undecided(fmt) or event.round_opens_at is not None and event.round_opens_at > now:
        return event
    if fmt.finished(event.format_state(fmt)):
        return _changed(event, status="ended", round_opens_at=None)
    return _changed(event, round_opens_at=now + timedelta(seconds=event.break_seconds))


_NO_TIME = datetime(1970, 1, 1, tzinfo=UTC)  # (a walkover inside `withdraw`: the round's end is set after)


def named_state(event: Event, fmt: Format) -> FormatState:
    """The format's state with every player id shown as the player's name (unique: a
    repeated name gets " (2)"), for the pictures of bot/tournament/render.py."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for e in event.entrants:
        name, n = e.name, 1
        while name in taken:
            n += 1
            name = f"{e.name} ({n})"
        taken.add(name)
        names[e.id] = name

    def shown(value: Any) -> Any:
        if isinstance(value, str):
            return names.get(value, value)
        if isinstance(value, list):
            return [shown(v) for v in value]
        if isinstance(value, dict):
            return {names.get(k, k): shown(v) for k, v in value.items()}
        return value
    return fmt.load(shown(event.format_state(fmt).model_dump(mode="json")))


def champion(event: Event, fmt: Format) -> str | None:
    """The winner of an ended event: the first of the standings, if alone at rank 1."""
    if event.status != "ended" or event.state is None:
        return None
    table = fmt.standings(fmt.load(event.state))
    firsts = [s for s in table if s.rank == 1]
    return firsts[0].player if len(firsts) == 1 else None
