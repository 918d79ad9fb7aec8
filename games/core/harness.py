"""The conformance harness: seeded random-play matches of any game, checked at every step.

After every accepted command it checks that:
- every pending prompt has a legal command (the game's random player finds one and `check`
  accepts it), and prompt keys are unique;
- no secret reaches an audience that may not know it: public events, public prompts and the
  spectator view never contain a `Secret.value`; a seat's events, prompts and view contain
  only secrets that seat knows;
- bad input changes nothing: random text through `parse` and `check` either raises
  ParseError / IllegalMove or is a legal command, and the state is unchanged either way;
- a move is read only as a word of the decision pending now: another decision's words and
  ready-made answers with a mismatched amount are refused, changing nothing
  (`check_other_words`);
- the game's own invariants hold (chips and cards conserved...);
- states and commands survive a JSON round trip (snapshots and the action log);
- the match ends within `max_steps`, with an outcome exactly when no prompt is pending;
- replaying the log from the seed reproduces the final state and every event.
"""

from __future__ import annotations

import contextlib
import gc
import json
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel

from games.core.contract import (
    Command,
    Event,
    Game,
    IllegalMove,
    OnTimeout,
    Outcome,
    ParseError,
    Prompt,
    Secret,
    Timeout,
)
from games.core.replay import replay

VIEWERS: tuple[int | None, ...] = (None, 0, 1)

_FUZZ_WORDS = [
    "", " ", "?", "help", "yes", "no", "call", "raise", "raise 999", "raise -1", "fold",
    "keep", "play", "take", "discard", "#0", "#99", "1", "0", "-3", "R0", "R9", "S5", "P10",
    "G12", "B0", "🟥7", "red 3", "x", "ask", "guess", "restore", "aside:", "|", "/", "\n",
    "lorem ipsum", "ZZZZ", "Q", "999999999999999999999", "play 5-6-7", "draw", "joker",
]


class ConformanceError(AssertionError):
    """An invariant broke; the message names the seed and step to reproduce it."""


@dataclass
class MatchRecord:
    seed: str
    settings: BaseModel
    log: list[tuple[int, Command]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    outcome: Outcome | None = None
    steps: int = 0
    timeouts: int = 0


def _visible_text(game: Game, state: BaseModel, events: Sequence[Event], prompts: Sequence[Prompt],
                  viewer: int | None) -> str:
    parts: list[str] = []
    for e in events:
        if e.audience.allows(viewer):
            parts.append(e.text)
            parts.append(json.dumps(e.data, ensure_ascii=False))
    for p in prompts:
        if not p.private or p.seat == viewer:
            parts.append(p.text)
            parts.append(p.timeout_text)
            parts.extend(p.choices)  # buttons are seen where the decision is made
    parts.append(game.view(state, viewer).model_dump_json())
    parts.append(game.describe(state, viewer))
    parts.append(game.status(state) or "")
    return "\n".join(parts)


def _leaks(secrets: Sequence[Secret], text: str, viewer: int | None) -> list[Secret]:
    hidden = {s.value: s for s in secrets if viewer is None or viewer not in s.known_to}
    if not hidden:
        return []
    pattern = re.compile(r"(?<![A-Za-z0-9])(?:"
                         + "|".join(re.escape(v) for v in sorted(hidden, key=len, reverse=True))
                         + r")(?![A-Za-z0-9])")
    return [hidden[v] for v in dict.fromkeys(pattern.findall(text))]


def check_no_leaks(game: Game, state: BaseModel, events: Sequence[Event]) -> None:
    """Raise ConformanceError if a secret of `state` is visible to someone it is hidden from."""
    secrets = game.secrets(state)
    if not secrets:
        return
    prompts = game.prompts(state)
    for viewer in VIEWERS:
        text = _visible_text(game, state, events, prompts, viewer)
        leaked = _leaks(secrets, text, viewer)
        if leaked:
            who = "spectators" if viewer is None else f"seat {viewer}"
            names = ", ".join(f"{s.label or 'secret'} {s.value!r}" for s in leaked)
            raise ConformanceError(f"{names} visible to {who}")


def _check_prompts(game: Game, state: BaseModel, prompts: Sequence[Prompt], rng: random.Random) -> None:
    keys = [p.key for p in prompts]
    if len(set(keys)) != len(keys):
        raise ConformanceError(f"duplicate prompt keys {keys}")
    for p in prompts:
        command = game.random_command(state, p, rng)
        try:
            game.check(state, p.seat, command)
        except IllegalMove as exc:
            raise ConformanceError(f"prompt {p.key} has no legal command: random player chose "
                                   f"{command!r}, refused: {exc}") from exc


def _fuzz_input(game: Game, state: BaseModel, seat: int, rng: random.Random) -> None:
    """Random text must be refused cleanly or be legal, and never change the state."""
    before = state.model_dump_json()
    text = " ".join(rng.choice(_FUZZ_WORDS) for _ in range(rng.randint(1, 3)))
    try:
        command = game.parse(state, seat, text)
        game.check(state, seat, command)
    except (ParseError, IllegalMove) as exc:
        if not str(exc).strip():
            raise ConformanceError(f"empty error message for input {text!r}") from exc
    if state.model_dump_json() != before:
        raise ConformanceError(f"parse/check of {text!r} changed the state")


#: A number standing alone ("raise 3", "at 3", "4..5"), not part of a card ("R3", "📄1").
_ALONE = re.compile(r"(?<!\S)[0-9]+(?![0-9])")
_ANY_NUMBER = re.compile(r"[0-9]+")
_FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def amount_variants(choice: str) -> list[str]:
    """A ready-made answer with its first number typed as no rule allows: 1,000 more, in
    full-width digits, of 5,000 digits, and (standing alone) negative."""
    found = _ANY_NUMBER.search(choice)
    if found is None:
        return []
    n = found.group()
    out = [str(int(n) + 1000), n.translate(_FULL_WIDTH), "9" * 5000]
    alone = _ALONE.search(choice)
    if alone is not None and alone.start() == found.start() and int(n):  # "-0" is 0
        out.append(f"-{n}")
    return [choice[:found.start()] + v + choice[found.end():] for v in out]


def check_other_words(game: Game, state: BaseModel, rng: random.Random) -> int:
    """Every game reads a move only as a word of the decision pending now (house ruling):
    for each pending prompt, a word of each other decision kind (`Game.decision_words`) and
    each ready-made answer with a mismatched amount (`amount_variants`) must be refused,
    and nothing may change. Returns how many texts were typed."""
    before = state.model_dump_json()
    words = game.decision_words()
    prompts = game.prompts(state)
    typed = 0
    for prompt in prompts:
        pending = [p.kind for p in prompts if p.seat == prompt.seat]
        texts: list[tuple[str, str]] = []
        for kind, options in (words.kinds.items() if words is not None else ()):
            foreign = [w for w in options if kind not in pending
                       and words.kind_of(w, pending) == kind]  # type: ignore[union-attr]  # (words is not None inside this loop)
            if foreign:
                word = rng.choice(foreign)
                texts += [(word, f"a word of {kind}"), (f"{word} 1", f"a word of {kind}")]
        for choice in prompt.choices:
            texts += [(v, f"{choice!r} with another amount") for v in amount_variants(choice)]
        for text, why in texts:
            typed += 1
            try:
                command = game.parse(state, prompt.seat, text)
                game.check(state, prompt.seat, command)
            except (ParseError, IllegalMove) as exc:
                if not str(exc).strip():
                    raise ConformanceError(f"empty refusal for {text[:40]!r}") from exc
                continue
            raise ConformanceError(f"{text[:40]!r} ({why}) typed by seat {prompt.seat} while "
                                   f"{pending} is pending was accepted as {command!r}")
    if state.model_dump_json() != before:
        raise ConformanceError("typing another decision's words changed the state")
    return typed


def _roundtrip(game: Game, state: BaseModel, command: Command | None = None) -> None:
    dumped = state.model_dump_json()
    if game.load_state(dumped).model_dump_json() != dumped:
        raise ConformanceError("state does not survive a JSON round trip")
    if command is not None:
        data = command.model_dump(mode="json")
        if game.load_command(data) != command:
            raise ConformanceError(f"command {command!r} does not survive a JSON round trip")


def play_random_match(
    game: Game,
    seed: str,
    settings: BaseModel | None = None,
    *,
    timeout_rate: float = 0.05,
    fuzz_rate: float = 0.2,
    max_steps: int = 20_000,
) -> MatchRecord:
    """Play one checked random match; raise ConformanceError on the first broken invariant."""
    settings = settings if settings is not None else game.settings_model()
    rng = random.Random(f"harness:{seed}")
    state = game.setup(settings, seed)
    record = MatchRecord(seed=seed, settings=settings)
    opening = game.opening_events(state)
    record.events.extend(opening)
    try:
        check_no_leaks(game, state, opening)
        _roundtrip(game, state)
        while True:
            prompts = game.prompts(state)
            outcome = game.outcome(state)
            if not prompts:
                if outcome is None:
                    raise ConformanceError("no prompt pending but the match has no outcome")
                record.outcome = outcome
                break
            if outcome is not None:
                raise ConformanceError(f"outcome {outcome} while prompts are pending")
            if record.steps >= max_steps:
                raise ConformanceError(f"match did not end within {max_steps} steps")
            _check_prompts(game, state, prompts, rng)
            if rng.random() < fuzz_rate:
                _fuzz_input(game, state, rng.choice(prompts).seat, rng)
                # its own generator: the match's random path stays what it was without it
                check_other_words(game, state, random.Random(f"{seed}:{record.steps}"))
            prompt = rng.choice(prompts)
            command: Command
            if prompt.on_timeout != OnTimeout.NOTHING and rng.random() < timeout_rate:
                command = Timeout(prompt_key=prompt.key)
                record.timeouts += 1
            else:
                command = game.random_command(state, prompt, rng)
            game.check(state, prompt.seat, command)
            events = game.apply(state, prompt.seat, command)
            record.log.append((prompt.seat, command))
            record.events.extend(events)
            record.steps += 1
            game.invariants(state)
            check_no_leaks(game, state, events)
            if record.steps % 17 == 1:
                _roundtrip(game, state, command)
        _roundtrip(game, state)
        replayed, replay_events = replay(game, settings, seed, record.log)
        if replayed.model_dump_json() != state.model_dump_json():
            raise ConformanceError("replaying the log does not reproduce the final state")
        if replay_events != record.events:
            raise ConformanceError("replaying the log does not reproduce the events")
    except ConformanceError as exc:
        raise ConformanceError(f"{game.slug} seed {seed!r} step {record.steps}: {exc}") from exc
    return record


def run_conformance(game: Game, matches: int, *, first_seed: int = 0,
                    settings: BaseModel | None = None, **kwargs: float) -> list[MatchRecord]:
    """Play `matches` seeded random matches; return their records (raises on the first failure)."""
    return [
        play_random_match(game, f"conformance-{i}", settings, **kwargs)  # type: ignore[arg-type]  # (the caller's rates and max_steps)
        for i in range(first_seed, first_seed + matches)
    ]


def states_by_decision(game: Game, seeds: int = 8, max_steps: int = 300,
                       settings: BaseModel | None = None) -> dict[tuple[str, int], BaseModel]:
    """One state for each (decision kind, seat) that seeded random play reaches: the first
    seen. For checks that must cover every phase of a game (what a player may type in each)."""
    settings = settings if settings is not None else game.settings_model()
    found: dict[tuple[str, int], BaseModel] = {}
    for i in range(seeds):
        rng = random.Random(f"phases:{i}")
        state = game.setup(settings, f"phases-{i}")
        for _ in range(max_steps):
            prompts = game.prompts(state)
            if not prompts:
                break
            for p in prompts:
                if (p.kind, p.seat) not in found:
                    found[(p.kind, p.seat)] = game.load_state(state.model_dump_json())
            prompt = rng.choice(prompts)
            game.apply(state, prompt.seat, game.random_command(state, prompt, rng))
    return found


def reading_seconds(game: Game, state: BaseModel, seat: int, text: str, tries: int = 3,
                    clock: Callable[[], float] = time.thread_time) -> float:
    """The least time, over `tries`, that reading and checking `text` takes (refused or not):
    what a player's message costs the event loop, for the input-bounds test and bench.

    By default CPU time of this thread, with the garbage collector held off: other processes
    on a busy machine and collections of unrelated objects do not count."""
    best = float("inf")
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(tries):
            start = clock()
            with contextlib.suppress(ParseError, IllegalMove):
                game.check(state, seat, game.parse(state, seat, text))
            best = min(best, clock() - start)
    finally:
        if collecting:
            gc.enable()
    return best
