"""The two-world information harness: what a viewer can *infer*, not only what they read.

A secret is anything one seat may know and the other may not, including *whether* something
happened. Searching outgoing text for the secret's tokens (the conformance harness's leak
check) misses a public prompt that lists a pool, a refusal that depends on a hidden card, a
step that happens only when a player earned something, or a clock that is shorter in one
world. So this harness asks the question directly:

1. Play a seeded random match (world A). At random steps, and at the start, ask the game for
   a twin: `game.twin(state, X, rng)`, a world B that differs only in seat X's secrets.
2. Run both worlds in lock-step. The opponent Y plays the same commands in both worlds (a
   command legal for Y in one world must be legal in the other: a refusal would tell Y the
   difference). X's command in world B is chosen among X's legal commands to look the same
   from outside, if one does.
3. Before and after every step, everything Y and a spectator can observe must be identical in
   both worlds (`observe`): the events they may see, `view`, `describe`, `status`, the
   outcome, every prompt they can read (text, buttons, clock, bank, reminders, default), the
   existence, order, kind and clock of X's private prompts, Y's answer to typed input
   (the ParseError / IllegalMove message, or the accepted command), and the spectator feed
   of the step (`games.core.feed`: the room's lines, which are the public events above, and
   what the step reveals beyond them), which anyone may read, until the match is over (its
   last message then shows what the game declares it reveals at the end).

When the worlds differ:
- at the twin's creation, or after a step in which none of X's secrets was revealed: a leak
  (`InformationLeak`, naming the seed, step, viewer and the first differing item);
- after X's own move, or after a step that revealed one of X's secrets (it left
  `game.secrets` as X's secret, e.g. a showdown triggered by Y's call, or an event of the
  step says so with `reveals: X` in its data, e.g. an automatic pass): a legitimate
  reveal; that comparison ends and a later step starts another.

A quiet prompt (`Prompt.quiet`) is not observed by anyone but its seat, and X's answer to one
that world B never asked leaves B as it is.

Refusals of X's own input are not compared: the runtime sends a refusal only to the player
who typed the input (tested in the bot's tests), so Y never reads them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from games.core.contract import (
    Command,
    Event,
    Game,
    IllegalMove,
    OnTimeout,
    ParseError,
    Prompt,
    Timeout,
)
from games.core.feed import feed_reveals
from games.core.harness import _FUZZ_WORDS, ConformanceError

#: Prompt fields a viewer reads when the prompt is theirs or public.
_READABLE = ("key", "seat", "kind", "private", "text", "timeout_text", "time_limit", "bank",
             "bank_step", "reminders", "bank_reminder_every", "on_timeout", "resubmittable",
             "choices", "quiet", "brief")
#: What anyone can tell of another seat's private prompt: that it exists, whose it is, what
#: kind of decision it is and how its clock runs (the room shows whose decision it is and when
#: its clock ends).
_EXTERNAL = ("seat", "kind", "private", "time_limit", "bank", "bank_step", "reminders",
             "bank_reminder_every", "on_timeout", "resubmittable")


class InformationLeak(ConformanceError):
    """Two worlds that differ only in one seat's secret look different to someone else."""


@dataclass
class TwinReport:
    """What one match's two-world check covered."""

    seed: str
    twins: int = 0  # twin worlds made
    compared_steps: int = 0  # lock-step steps compared (every one identical from outside)
    probes: int = 0  # typed inputs of the opponent answered in both worlds
    reveals: int = 0  # comparisons ended by a legitimate reveal
    steps: int = 0  # steps of the match


@dataclass
class _Comparison:
    owner: int  # X: the seat whose secrets differ
    twin: BaseModel  # world B
    started: int  # step of world A at which the twin was made
    steps: int = 0


@dataclass
class InformationSummary:
    """Totals over many matches (what the CI test prints)."""

    matches: int = 0
    twins: int = 0
    compared_steps: int = 0
    probes: int = 0
    reveals: int = 0
    reports: list[TwinReport] = field(default_factory=list)

    def add(self, report: TwinReport) -> None:
        self.matches += 1
        self.twins += report.twins
        self.compared_steps += report.compared_steps
        self.probes += report.probes
        self.reveals += report.reveals
        self.reports.append(report)

    def __str__(self) -> str:
        return (f"{self.matches} matches, {self.twins} twin worlds, {self.compared_steps} "
                f"lock-step steps compared, {self.probes} typed inputs probed, "
                f"{self.reveals} comparisons ended by a reveal")


# --- observation ---------------------------------------------------------------------------
def _prompt_seen(prompt: Prompt, viewer: int | None) -> dict[str, Any] | None:
    readable = not prompt.private or prompt.seat == viewer
    if prompt.quiet and not readable:
        return None  # nobody else is told it exists (see `Prompt.quiet`)
    data = prompt.model_dump(mode="json")
    return {name: data[name] for name in (_READABLE if readable else _EXTERNAL)}


def _event_seen(event: Event) -> dict[str, Any]:
    return {"kind": event.kind, "text": event.text, "data": event.data}


def observe(game: Game, state: BaseModel, events: Sequence[Event],
            viewer: int | None, before: BaseModel | None = None) -> dict[str, Any]:
    """Everything `viewer` (a seat, or None for a spectator) can observe of this moment:
    the events of the last step they may see, and the state as shown to them now; with
    `before` (the state before the step), what the step's feed message reveals beyond the
    room's lines, until the match is over."""
    return _Moment(game, state, events, before).seen_by(viewer)


#: What a viewer observes of a moment (`observe`), in the order it is compared; "feed" comes
#: first when the state before the step is known.
_PARTS = ("events", "prompts", "view", "describe", "status", "outcome")


class _Moment:
    """One world at one moment, as each viewer observes it (`observe`), a part at a time:
    each part is computed once, when a comparison first reads it, so a comparison that
    finds a difference in the events (most of the moves tried in a twin world) never
    renders the views."""

    def __init__(self, game: Game, state: BaseModel, events: Sequence[Event],
                 before: BaseModel | None = None) -> None:
        self.game, self.state, self.events, self.before = game, state, events, before
        self.parts = ("feed", *_PARTS) if before is not None else _PARTS
        self._seen: dict[tuple[str, int | None], Any] = {}
        self._outcome: list[Any] = []  # [the outcome] once asked
        self._prompts: list[Prompt] | None = None

    def seen_by(self, viewer: int | None) -> dict[str, Any]:
        return {part: self.part(part, viewer) for part in self.parts}

    def part(self, part: str, viewer: int | None) -> Any:
        key = (part, None if part in ("feed", "status", "outcome") else viewer)
        if key not in self._seen:
            self._seen[key] = self._observe(part, viewer)
        return self._seen[key]

    def _observe(self, part: str, viewer: int | None) -> Any:
        game, state = self.game, self.state
        if not self._outcome:
            self._outcome.append(game.outcome(state))
        outcome = self._outcome[0]
        if part == "feed":
            assert self.before is not None
            return feed_reveals(game, self.before, state, False) if outcome is None else "over"
        if part == "events":
            return [_event_seen(e) for e in self.events if e.audience.allows(viewer)]
        if part == "prompts":
            if self._prompts is None:
                self._prompts = game.prompts(state)
            return [seen for p in self._prompts if (seen := _prompt_seen(p, viewer)) is not None]
        if part == "view":
            return game.view(state, viewer).model_dump(mode="json")
        if part == "describe":
            return game.describe(state, viewer)
        if part == "status":
            return game.status(state)
        return outcome.model_dump(mode="json") if outcome is not None else None


def answer(game: Game, state: BaseModel, seat: int, text: str) -> str:
    """What `seat` is told when typing `text` now (the state is left as it was)."""
    try:
        command = game.parse(state, seat, text)
        game.check(state, seat, command)
    except ParseError as exc:
        return f"refused (usage): {exc}"
    except IllegalMove as exc:
        return f"refused: {exc}"
    return f"accepted: {command.model_dump_json(exclude={'elapsed'})}"


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two JSON-like values first differ, as 'path: A != B', or None if equal."""
    return None if _same(a, b) else _where(a, b, path)


def _same(a: Any, b: Any) -> bool:
    """Whether `first_difference` finds nothing, without building the paths it names (the
    worlds are almost always the same; the paths are made only for a difference)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return len(a) == len(b) and all(key in b and _same(value, b[key])
                                        for key, value in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


def _where(a: Any, b: Any, path: str) -> str | None:
    """`first_difference`, path by path."""
    if type(a) is not type(b):
        return f"{path or '.'}: {_short(a)} != {_short(b)}"
    if isinstance(a, dict):
        for key in list(dict.fromkeys([*a, *b])):
            if key not in a or key not in b:
                return f"{path}.{key}: present in one world only"
            found = _where(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _where(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)} items"
        return None
    return None if a == b else f"{path or '.'}: {_short(a)} != {_short(b)}"


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- the check -----------------------------------------------------------------------------
def _owned_secrets(game: Game, state: BaseModel, owner: int) -> set[str]:
    """The values of `owner`'s secrets that its opponent does not know."""
    other = 1 - owner
    return {s.value for s in game.secrets(state) if owner in s.known_to
            and other not in s.known_to}


def _differences(game: Game, a: BaseModel | _Moment, b: BaseModel, events_a: Sequence[Event],
                 events_b: Sequence[Event], owner: int, before_a: BaseModel | None = None,
                 before_b: BaseModel | None = None) -> str | None:
    """The first thing the opponent or a spectator sees differently in the two worlds (the
    feed of the step too, given the states before it). World A may come as a `_Moment`
    already observed (its events and state before are then its own)."""
    seen_a = a if isinstance(a, _Moment) else _Moment(game, a, events_a, before_a)
    seen_b = _Moment(game, b, events_b, before_b)
    for viewer in (1 - owner, None):
        if seen_a.parts == seen_b.parts:  # part by part, in order: the first difference
            found = next((found for part in seen_a.parts if (found := first_difference(
                seen_a.part(part, viewer), seen_b.part(part, viewer), f".{part}"))), None)
        else:
            found = first_difference(seen_a.seen_by(viewer), seen_b.seen_by(viewer))
        if found:
            who = "a spectator" if viewer is None else f"seat {viewer}"
            return f"{who} sees {found}"
    return None


def _probe_texts(game: Game, a: BaseModel, b: BaseModel, rng: random.Random,
                 count: int) -> list[str]:
    """Inputs the opponent might type: fuzz words and every button text of either world
    (typing the other seat's choices is exactly how a refusal would leak them)."""
    pool = list(_FUZZ_WORDS)
    for state in (a, b):
        for prompt in game.prompts(state):
            pool.extend(prompt.choices)
    return [" ".join(rng.choice(pool) for _ in range(rng.randint(1, 2))) for _ in range(count)]


def _probe(game: Game, a: BaseModel, b: BaseModel, seat: int, rng: random.Random,
           count: int) -> tuple[int, str | None]:
    texts = _probe_texts(game, a, b, rng, count)
    for text in texts:
        said_a, said_b = answer(game, a, seat, text), answer(game, b, seat, text)
        if said_a != said_b:
            return len(texts), (f"seat {seat} typing {text!r} is told {said_a!r} in one world "
                                f"and {said_b!r} in the other")
    return len(texts), None


def _reveals(events: Sequence[Event], owner: int) -> bool:
    """Whether an event says the rules show something of `owner`'s secrets here (its data
    holds `reveals: owner`), as Double or Nothing's automatic pass shows that no set of the
    hand beats the table: a legitimate reveal, not a leak."""
    return any(e.data.get("reveals") == owner for e in events)


def _counterpart(game: Game, b: BaseModel, prompt_a: Prompt, index: int) -> Prompt | None:
    """World B's prompt for the one world A answers: the same place in the list, or, for a
    quiet prompt (which may exist in one world only: games list them last), B's quiet prompt
    of the same seat and kind."""
    prompts_b = game.prompts(b)
    if prompt_a.quiet:
        return next((p for p in prompts_b if p.quiet and p.seat == prompt_a.seat
                     and p.kind == prompt_a.kind), None)
    if index < len(prompts_b) and prompts_b[index].seat == prompt_a.seat:
        return prompts_b[index]
    return None


def _owner_move(game: Game, a_after: BaseModel, events_a: Sequence[Event], b: BaseModel,
                prompt_b: Prompt, command_a: Command, rng: random.Random,
                candidates: int, a_before: BaseModel | None = None
                ) -> tuple[BaseModel, list[Event]] | None:
    """X's command in world B that looks the same from outside as `command_a` did in A."""
    owner = prompt_b.seat
    tries: list[Command] = []
    if isinstance(command_a, Timeout):
        tries.append(Timeout(prompt_key=prompt_b.key))
    else:
        tries.append(command_a)
        tries.extend(game.random_command(b, prompt_b, rng) for _ in range(candidates))
    seen_a = _Moment(game, a_after, events_a, a_before)  # observed once, for every try
    for command in tries:
        try:  # on B itself: `check` never changes the state, and most tries are refused
            game.check(b, owner, command)
        except IllegalMove:
            continue
        trial = b.model_copy(deep=True)
        events_b = game.apply(trial, owner, command)
        if _differences(game, seen_a, trial, events_a, events_b, owner,
                        before_b=b if a_before is not None else None) is None:
            return trial, events_b
    return None


def check_two_worlds(
    game: Game,
    seed: str,
    settings: BaseModel | None = None,
    *,
    twin_rate: float = 0.15,
    probes: int = 4,
    candidates: int = 24,
    timeout_rate: float = 0.05,
    max_steps: int = 20_000,
) -> TwinReport:
    """Play one seeded random match with twin worlds along the way; raise InformationLeak on
    the first thing a viewer could tell apart."""
    settings = settings if settings is not None else game.settings_model()
    rng = random.Random(f"information:{seed}")
    state = game.setup(settings, seed)
    report = TwinReport(seed=seed)
    comparison: _Comparison | None = None

    def fail(message: str) -> InformationLeak:
        assert comparison is not None
        return InformationLeak(
            f"{game.slug} seed {seed!r} step {report.steps}: two worlds differing only in seat "
            f"{comparison.owner}'s secrets (twin made at step {comparison.started}): {message}")

    def start(events: Sequence[Event], twin_events: Any = None) -> None:
        """Twin one seat's secrets (a random seat first, the other if it has none)."""
        nonlocal comparison
        first = rng.randrange(2)
        for owner in (first, 1 - first):
            twin = game.twin(state, owner, rng)
            if twin is not None:
                break
        else:
            return
        report.twins += 1
        comparison = _Comparison(owner=owner, twin=twin, started=report.steps)
        found = _differences(game, state, twin, events,
                             twin_events(twin) if twin_events else events, owner)
        if found:
            raise fail(f"{found} (at the twin's creation, before anyone moved)")

    start(game.opening_events(state), game.opening_events)
    while report.steps < max_steps:
        prompts = game.prompts(state)
        if not prompts:
            return report
        if comparison is None and rng.random() < twin_rate:
            start(())
        if comparison is not None:
            other = 1 - comparison.owner
            count, leak = _probe(game, state, comparison.twin, other, rng, probes)
            report.probes += count
            if leak:
                raise fail(leak)
        index = rng.randrange(len(prompts))
        prompt = prompts[index]
        if prompt.on_timeout != OnTimeout.NOTHING and rng.random() < timeout_rate:
            command: Command = Timeout(prompt_key=prompt.key)
        else:
            command = game.random_command(state, prompt, rng)
        game.check(state, prompt.seat, command)
        before = state.model_copy(deep=True) if comparison is not None else None
        events = game.apply(state, prompt.seat, command)
        report.steps += 1
        if comparison is None:
            continue
        comparison = _step_twin(game, comparison, before, state, events, prompt, index,
                                command, rng, candidates, report, fail)
    raise ConformanceError(f"{game.slug} seed {seed!r}: match did not end within {max_steps} steps")


def _step_twin(game: Game, comparison: _Comparison, before: BaseModel | None, state: BaseModel,
               events: Sequence[Event], prompt: Prompt, index: int, command: Command,
               rng: random.Random, candidates: int, report: TwinReport,
               fail: Any) -> _Comparison | None:
    """Advance world B by the step world A just took; None when the comparison ends."""
    owner, twin = comparison.owner, comparison.twin
    assert before is not None
    counterpart = _counterpart(game, twin, prompt, index)
    if counterpart is None and prompt.quiet and prompt.seat == owner:
        # X answered a question that world B never asked: B stays as it is, and nobody
        # else may see a difference.
        found = _differences(game, state, twin, events, [], owner, before, twin)
        if found:
            raise fail(f"{found} (after seat {owner}'s answer to a quiet question)")
        report.compared_steps += 1
        comparison.steps += 1
        return comparison
    if counterpart is None:  # already compared equal, so this cannot happen for a sound game
        raise fail(f"prompt {index} of world A has no counterpart in world B")
    if prompt.seat == owner:
        moved = _owner_move(game, state, events, twin, counterpart, command, rng, candidates,
                            before)
        if moved is None:  # X's own move showed something: a legitimate reveal
            report.reveals += 1
            return None
        comparison.twin, events_b = moved
    else:
        mirrored = (Timeout(prompt_key=counterpart.key) if isinstance(command, Timeout)
                    else command)
        try:
            game.check(twin, prompt.seat, mirrored)
        except IllegalMove as exc:
            raise fail(f"seat {prompt.seat}'s move {command!r} is legal in one world and "
                       f"refused in the other ({exc})") from exc
        twin_before = twin.model_copy(deep=True)
        events_b = game.apply(twin, prompt.seat, mirrored)
        found = _differences(game, state, twin, events, events_b, owner, before, twin_before)
        if found:
            revealed = (_owned_secrets(game, before, owner) - _owned_secrets(game, state, owner)
                        or _owned_secrets(game, twin_before, owner)
                        - _owned_secrets(game, twin, owner)
                        or _reveals(events, owner) or _reveals(events_b, owner))
            if revealed:
                report.reveals += 1
                return None
            raise fail(f"{found} (after seat {prompt.seat}'s move {command!r})")
    report.compared_steps += 1
    comparison.steps += 1
    return comparison


def run_information(game: Game, matches: int, settings: BaseModel | None = None, *,
                    first_seed: int = 0, **kwargs: Any) -> InformationSummary:
    """The two-world check over `matches` seeded matches. A game that never makes a twin,
    or whose twins never get compared, fails: the check must not pass by doing nothing."""
    summary = InformationSummary()
    for i in range(first_seed, first_seed + matches):
        summary.add(check_two_worlds(game, f"information-{i}", settings, **kwargs))
    if summary.twins == 0:
        raise ConformanceError(f"{game.slug}: `twin` never made a second world in {matches} "
                               "matches; the two-world check cannot run")
    if summary.compared_steps == 0 and summary.probes == 0:
        raise ConformanceError(f"{game.slug}: twin worlds were made but nothing was compared")
    return summary


def check_world_pair(game: Game, a: BaseModel, b: BaseModel, owner: int,
                     moves: Sequence[tuple[int, Command]], *, probes: int = 8,
                     seed: str = "pair") -> int:
    """A chosen pair of worlds that differ only in `owner`'s secrets (a hand that held the
    played set twice, or once), played through the same `moves` (each legal in both): raise
    InformationLeak on the first moment the opponent or a spectator could tell them apart,
    or the opponent's answer to typed input differs. Returns the moments compared."""
    rng = random.Random(f"pair:{seed}")
    a, b = a.model_copy(deep=True), b.model_copy(deep=True)
    events_a: list[Event] = []
    events_b: list[Event] = []
    before_a: BaseModel | None = None
    before_b: BaseModel | None = None
    for step in range(len(moves) + 1):
        found = _differences(game, a, b, events_a, events_b, owner, before_a, before_b)
        if found is None:
            _, found = _probe(game, a, b, 1 - owner, rng, probes)
        if found:
            raise InformationLeak(f"{game.slug} {seed}: worlds differing only in seat {owner}'s "
                                  f"secrets, after {step} of {len(moves)} moves: {found}")
        if step == len(moves):
            return step + 1
        seat, command = moves[step]
        for world in (a, b):
            game.check(world, seat, command)
        before_a, before_b = a.model_copy(deep=True), b.model_copy(deep=True)
        events_a, events_b = game.apply(a, seat, command), game.apply(b, seat, command)
    return len(moves) + 1
