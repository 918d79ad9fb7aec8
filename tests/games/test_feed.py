"""The spectator feed's two-world rule, for every game (games/<game>/feed.py).

Twin worlds differ only in one seat's secrets (`Game.twin`); both are played in lock-step
through the same moves, as in the information harness (games.core.information). While the
unit of play in progress (a Renounce Fate round, a Double or Nothing bout, the whole match
for the other games) has not ended, the feed's output, the room's public lines plus its
reveals, must be the same in both worlds, and it reveals nothing. When the unit ends the
reveal appears, and it shows the secret the worlds differ in (the reveals differ).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from games.core.contract import Game, OnTimeout, Timeout
from games.core.feed import feed_reveals
from games.core.information import _counterpart, _owner_move, observe
from games.registry import all_games, installed_games

UnitEnded = Callable[[Any, Any, bool], bool]


def _round_changed(field: str) -> UnitEnded:
    return lambda before, after, ended: getattr(before, field) > 0 and (
        ended or getattr(after, field) != getattr(before, field))


#: What a unit of play is, per game, written down here independently of the feed modules
#: (a game missing here fails the tests below, it is not skipped).
UNIT_ENDED: dict[str, UnitEnded] = {
    "renounce-fate": _round_changed("round"),
    "double-or-nothing": _round_changed("bout"),
    "rps-poker": lambda before, after, ended: ended,
    "devils-deal": lambda before, after, ended: ended,
    "decoder": lambda before, after, ended: ended,
}
#: Matches played per game (Decoder's are long); a game not named: 20.
MATCHES = {"decoder": 6, "rps-poker": 30, "devils-deal": 30}


def unit_ended_of(slug: str) -> UnitEnded:
    assert slug in UNIT_ENDED, f"{slug}: write down in UNIT_ENDED what its unit of play is"
    return UNIT_ENDED[slug]


@dataclass
class FeedReport:
    compared: int = 0  # steps compared inside a unit (the feed identical in both worlds)
    reveals: int = 0  # units ended with both worlds compared up to there
    differing: int = 0  # ...whose reveal showed the secret (the two worlds' reveals differ)


def _public(game: Game[Any], state: BaseModel, events: list[Any]) -> Any:
    return observe(game, state, events, None)


def play(game: Game[Any], seed: str, report: FeedReport, *, twin_rate: float = 0.2,
         max_steps: int = 20_000) -> None:
    rng = random.Random(f"feed:{seed}")
    unit_ended = unit_ended_of(game.slug)
    state = game.setup(game.settings_model(), seed)
    twin: BaseModel | None = None
    owner = 0
    for _ in range(max_steps):
        prompts = game.prompts(state)
        if not prompts:
            return
        if twin is None and rng.random() < twin_rate:
            owner = rng.randrange(2)
            twin = game.twin(state, owner, rng)
        index = rng.randrange(len(prompts))
        prompt = prompts[index]
        if prompt.on_timeout != OnTimeout.NOTHING and rng.random() < 0.05:
            command: Any = Timeout(prompt_key=prompt.key)
        else:
            command = game.random_command(state, prompt, rng)
        game.check(state, prompt.seat, command)
        before = state.model_copy(deep=True)
        events = game.apply(state, prompt.seat, command)
        ended = game.outcome(state) is not None
        feed_a = feed_reveals(game, before, state, ended)
        if not unit_ended(before, state, ended):
            assert feed_a == [], f"{game.slug} {seed}: a reveal while the unit goes on: {feed_a}"
        if twin is None:
            continue
        twin_before = twin
        counterpart = _counterpart(game, twin, prompt, index)
        if counterpart is None:
            twin = None
            continue
        if prompt.seat == owner:
            moved = _owner_move(game, state, events, twin, counterpart, command, rng, 24)
            if moved is None:  # the owner's move itself showed the secret (a showdown...)
                twin = None
                continue
            twin, events_b = moved
        else:
            twin = twin.model_copy(deep=True)
            mirrored = Timeout(prompt_key=counterpart.key) if isinstance(command, Timeout) \
                else command
            game.check(twin, prompt.seat, mirrored)
            events_b = game.apply(twin, prompt.seat, mirrored)
        ended_b = game.outcome(twin) is not None
        feed_b = feed_reveals(game, twin_before, twin, ended_b)
        if unit_ended(before, state, ended):
            assert feed_a and feed_b, f"{game.slug} {seed}: the unit ended without a reveal"
            report.reveals += 1
            report.differing += feed_a != feed_b
            twin = None
            continue
        if _public(game, state, events) != _public(game, twin, events_b):
            twin = None  # the rules showed the secret in the room (the harness's business)
            continue
        assert feed_a == feed_b == [], f"{game.slug} {seed}: the feed tells the worlds apart"
        report.compared += 1
    raise AssertionError(f"{game.slug} {seed}: the match did not end")


@pytest.mark.parametrize("slug", installed_games())
def test_feed_of_a_unit_in_progress_is_the_same_in_two_worlds(slug: str) -> None:
    game = all_games()[slug]
    report = FeedReport()
    for i in range(MATCHES.get(slug, 20)):
        play(game, f"feed-{i}", report)
    print(slug, report)
    assert report.compared > 0, "no step was compared inside a unit"
    assert report.reveals > 0, "no unit ended while two worlds were compared"
    assert report.differing > 0, "no reveal ever showed the secret the worlds differ in"


def test_every_game_reveals_at_its_end() -> None:
    """A match the hosts end midway (before and after the same state, ended) reveals the
    unit in progress; a step that ends nothing reveals nothing."""
    for slug in installed_games():
        game = all_games()[slug]
        state = game.setup(game.settings_model(), "end")
        rng = random.Random(0)
        for _ in range(8):
            prompt = game.prompts(state)[0]
            game.apply(state, prompt.seat, game.random_command(state, prompt, rng))
        assert game.prompts(state), f"{game.slug}: still running"
        assert feed_reveals(game, state, state, False) == [], game.slug
        shown = feed_reveals(game, state, state, True)
        assert len(shown) == 1 and shown[0].startswith("🔓"), (game.slug, shown)
