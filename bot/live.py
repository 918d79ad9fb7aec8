"""A match held in memory by the service, rebuilt from the store on start.

A resumed match starts *dormant*: who plays, where, its status and clocks are known at once,
while its game state (snapshot + replay of the later actions) is rebuilt the first time
anything reads `state`, `settings` or `prompts`, or when the service's background hydrator
reaches it. So a restart with thousands of running matches is ready in the time it takes to
read their rows, and no reader needs to know whether a match was woken yet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from bot.status import ENDED, RUNNING, MatchStatus
from bot.store.repository import ClockData, StoredMatch
from bot.transport import MatchInfo, PlayerRef
from games.core import Game, Outcome, Prompt
from games.registry import get_game


class LiveMatch:
    """One match in memory: fixed facts (id, game, seed, players), the game state and the
    service's bookkeeping (status, clocks, pending prompts)."""

    def __init__(self, *, id: int, game: Game, settings: BaseModel | None, seed: str,
                 commitment: str, players: tuple[PlayerRef, ...], state: BaseModel | None,
                 seq: int, status: MatchStatus, transport: dict[str, Any] | None = None,
                 clocks: dict[str, ClockData] | None = None, paused_at: datetime | None = None,
                 result: dict[str, Any] | None = None,
                 prompts: list[Prompt] | None = None, salt: str | None = None) -> None:
        self.id = id
        self.game = game
        self.seed = seed
        self.commitment = commitment
        self.salt = salt  # what the commitment covers with the seed; None: stored unsalted
        self.players = players
        self.seq = seq
        self.status = MatchStatus(status)
        self.transport: dict[str, Any] = transport if transport is not None else {}
        self.clocks: dict[str, ClockData] = clocks if clocks is not None else {}
        self.paused_at = paused_at
        self.result = result
        self.lock = asyncio.Lock()
        self._settings = settings
        self._state = state
        self._prompts: list[Prompt] = prompts if prompts is not None else []
        #: (the live state, a copy of it) for the next step: see `draft`.
        self._spare: tuple[BaseModel, BaseModel] | None = None
        #: What a dormant match is rebuilt from; None once the state is in memory.
        self._source: StoredMatch | None = None
        #: Called once right after a dormant match is rebuilt (the service arms its clocks
        #: and bots then).
        self.on_hydrate: Callable[[LiveMatch], None] | None = None

    # --- the lazily rebuilt part ------------------------------------------------------------
    @property
    def dormant(self) -> bool:
        return self._source is not None

    def hydrate(self) -> None:
        """Rebuild the state of a dormant match: latest snapshot, then replay of the actions
        after it (commands kept as stored JSON text until now). No-op once done."""
        stored = self._source
        if stored is None:
            return
        game = self.game
        settings = game.load_settings(stored.row.settings)
        if stored.snapshot is not None:
            state = game.load_state(stored.snapshot)
        else:
            state = game.setup(settings, self.seed)
        adapter = game.command_adapter()
        for _seq, seat, command in stored.actions:
            loaded = adapter.validate_json(command) if isinstance(command, str | bytes) \
                else game.load_command(command)
            game.apply(state, seat, loaded)
        self._settings, self._state, self._source = settings, state, None
        self.refresh_prompts()
        if self.on_hydrate is not None:
            self.on_hydrate(self)

    @property
    def state(self) -> BaseModel:
        if self._state is None:
            self.hydrate()
        assert self._state is not None
        return self._state

    @state.setter
    def state(self, value: BaseModel) -> None:
        self._state, self._source = value, None

    def draft(self) -> BaseModel:
        """A copy of the state for the next step to be applied to: the step is stored
        before the copy becomes the live state, so a failed write changes nothing. The copy
        `prepare_draft` made once the loop was free after the last step, when there is one
        (so a move does not wait for it); else one made now. Either way it is used once.

        Copied as a round trip through Python objects (`model_dump`, `model_validate`):
        faster than `model_copy(deep=True)` (2 to 5 times for four of the five games) and
        than a JSON round trip, whose parser also keeps the strings it reads in a cache
        (bench/state_copy.py; tests/bot/test_memory_flat.py).
        Nothing changes a live state in place (every step goes through a copy), so a copy
        of the same state object is still equal to it."""
        spare, self._spare = self._spare, None
        if spare is not None and spare[0] is self._state:
            return spare[1]
        return self._copy()

    def prepare_draft(self) -> None:
        """Copy the state for the next step now, while nobody waits (after a step)."""
        if self._spare is None and self._state is not None and self._source is None \
                and self.running:
            self._spare = (self._state, self._copy())

    def _copy(self) -> BaseModel:
        return self.game.load_state(self.state.model_dump())

    @property
    def settings(self) -> BaseModel:
        if self._settings is None:
            self.hydrate()
        assert self._settings is not None
        return self._settings

    @property
    def prompts(self) -> list[Prompt]:
        if self._source is not None:
            self.hydrate()
        return self._prompts

    @prompts.setter
    def prompts(self, value: list[Prompt]) -> None:
        self._prompts = value

    # --- facts ----------------------------------------------------------------------------
    @property
    def info(self) -> MatchInfo:
        return MatchInfo(id=self.id, game=self.game.slug, players=self.players,
                         transport=self.transport)

    @property
    def running(self) -> bool:
        """Still umpired: active, or paused by the hosts."""
        return self.status in RUNNING

    @property
    def ended(self) -> bool:
        """Over: finished (an outcome or an award) or aborted."""
        return self.status in ENDED

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def refresh_prompts(self) -> None:
        self._prompts = (self.game.prompts(self.state)
                         if self.running else [])

    def prompt_pending(self, key: str) -> bool:
        return any(p.key == key for p in self.prompts)

    def seat_of(self, user_id: str) -> int | None:
        for seat, p in enumerate(self.players):
            if p.id == user_id:
                return seat
        return None

    def outcome(self) -> Outcome | None:
        return self.game.outcome(self.state)

    @classmethod
    def dormant_from_store(cls, stored: StoredMatch) -> LiveMatch:
        """The match as stored, its state not rebuilt yet (see `hydrate`)."""
        row = stored.row
        live = cls(
            id=row.id, game=get_game(row.game), settings=None, seed=row.seed,
            commitment=row.seed_commitment, salt=row.seed_salt,
            players=tuple(PlayerRef.from_json(p) for p in row.players), state=None,
            seq=row.action_count, status=MatchStatus(row.status), transport=dict(row.transport or {}),
            clocks={c.key: c for c in stored.clocks}, paused_at=row.paused_at, result=row.result,
        )
        live._source = stored
        return live

    @classmethod
    def from_store(cls, stored: StoredMatch) -> LiveMatch:
        """Latest snapshot, then replay of the actions after it (rebuilt now)."""
        live = cls.dormant_from_store(stored)
        live.hydrate()
        return live
