"""A match held in memory by the service, rebuilt from the store on start."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from bot.store.repository import ClockData, StoredMatch
from bot.transport import MatchInfo, PlayerRef
from games.core import Game, Outcome, Prompt
from games.registry import get_game


@dataclass
class LiveMatch:
    id: int
    game: Game
    settings: BaseModel
    seed: str
    commitment: str
    players: tuple[PlayerRef, ...]
    state: BaseModel
    seq: int
    status: str  # active|paused|finished|aborted
    transport: dict[str, Any] = field(default_factory=dict)
    clocks: dict[str, ClockData] = field(default_factory=dict)
    paused_at: datetime | None = None
    result: dict[str, Any] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    prompts: list[Prompt] = field(default_factory=list)

    @property
    def info(self) -> MatchInfo:
        return MatchInfo(id=self.id, game=self.game.slug, players=self.players,
                         transport=self.transport)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def refresh_prompts(self) -> None:
        self.prompts = self.game.prompts(self.state) if self.status in ("active", "paused") else []

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
    def from_store(cls, stored: StoredMatch) -> LiveMatch:
        """Latest snapshot, then replay of the actions after it."""
        row = stored.row
        game = get_game(row.game)
        settings = game.load_settings(row.settings)
        if stored.snapshot is not None:
            state = game.load_state(stored.snapshot)
        else:
            state = game.setup(settings, row.seed)
        for _seq, seat, command in stored.actions:
            game.apply(state, seat, game.load_command(command))
        live = cls(
            id=row.id, game=game, settings=settings, seed=row.seed,
            commitment=row.seed_commitment,
            players=tuple(PlayerRef.from_json(p) for p in row.players), state=state,
            seq=row.action_count, status=row.status, transport=dict(row.transport or {}),
            clocks={c.key: c for c in stored.clocks}, paused_at=row.paused_at, result=row.result,
        )
        live.refresh_prompts()
        return live
