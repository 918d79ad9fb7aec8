"""Rebuilding a match from its settings, seed and command log (the source of truth)."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from games.core.contract import Command, Event, Game


def replay(
    game: Game,
    settings: BaseModel,
    seed: str,
    log: Iterable[tuple[int, Command]],
    state: BaseModel | None = None,
) -> tuple[BaseModel, list[Event]]:
    """Apply `log` to a fresh match (or to `state`, a snapshot) and return state and events.

    Commands in a log were accepted once, so they are applied without a check; a log that
    no longer applies (a changed rule) raises instead of silently diverging.
    """
    events: list[Event] = []
    if state is None:
        state = game.setup(settings, seed)
        events.extend(game.opening_events(state))
    for seat, command in log:
        events.extend(game.apply(state, seat, command))
    return state, events
