"""Reading a match: its view, what a player may know of it, its status line, and its whole
record (loaded from the store once it has left memory)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from bot.clock import TimeSource
from bot.live import LiveMatch
from bot.service.errors import UmpireError, reading
from bot.service.table import MatchTable
from bot.status import RUNNING, ClockStatus
from bot.store.repository import Repository
from bot.transport import render_names
from games.core.feed import end_reveal


class Reader:
    """Answers questions about the matches in `table` (and, for ended ones no longer held,
    the store). `deadline_if_seen`: a decision's limit as the clock keeper has it;
    `owns(shard)`: whether this process umpires a shard; `retire(id)`: an ended match just
    loaded joins the last ended ones kept in memory."""

    def __init__(self, table: MatchTable, repo: Repository, now: TimeSource, *,
                 deadline_if_seen: Callable[[LiveMatch, str, datetime], datetime | None],
                 owns: Callable[[int], bool], retire: Callable[[int], None]) -> None:
        self.table = table
        self.matches = table.matches
        self.repo = repo
        self.now = now
        self.deadline_if_seen = deadline_if_seen
        self.owns = owns
        self.retire = retire

    def view(self, match_id: int, seat: int | None) -> dict[str, Any]:
        match = self.table.get(match_id)
        return match.game.view(match.state, seat).model_dump(mode="json")

    def describe(self, match_id: int, user_id: str) -> str:
        """What this person may know of the match (a player's own view; spectators' otherwise),
        for a player who asks: their pool, hand, tanks..."""
        match = self.table.get(match_id)
        seat = match.seat_of(user_id)
        text = match.game.describe(match.state, seat)
        return render_names(text, match.names)

    def status_text(self, match_id: int) -> str:
        """Whose decision it is and the clocks, names filled in (one pass)."""
        match = self.table.get(match_id)
        lines = [f"Match #{match.id}: {match.game.title}, {{P0}} vs {{P1}} "
                 f"({match.status}), {match.seq} actions."]
        for p in match.prompts:
            clock = match.clocks.get(p.key)
            left = ""
            if clock and clock.status == ClockStatus.BREAK:
                left = ", after the break between rounds"
            elif clock and clock.limit_at:
                now = self.now()  # (a stopped or undelivered decision's clock: as it will be)
                limit = self.deadline_if_seen(match, p.key, now) or clock.limit_at
                secs = int((limit - now).total_seconds())
                left = f", {max(0, secs)} s left" + (f" + bank {int(p.bank)} s" if p.bank else "")
            what = p.kind.replace("_", " ") + (" in their table channel" if p.private else "")
            lines.append(f"Waiting for {{P{p.seat}}}: {what}{left}.")
        if match.result:
            winner = match.result.get("winner")
            who = "draw" if winner is None else f"{{P{winner}}} won"
            lines.append(f"Result: {who} ({match.result.get('reason')}).")
        return render_names("\n".join(lines), match.names)

    async def load(self, match_id: int) -> LiveMatch:
        """A match by id, loading an ended one from the store (only running matches are kept
        in memory across a restart)."""
        match = self.matches.get(match_id)
        if match is None:
            if not 0 < match_id < 2**63:  # beyond any stored id (and the database's integers)
                raise UmpireError(f"There is no match #{match_id}.")
            with reading():
                stored = await self.repo.load_match(match_id)
            if stored is None:
                raise UmpireError(f"There is no match #{match_id}.")
            if stored.row.status in RUNNING and \
                    not self.owns(getattr(stored.row, "shard", 0)):
                return LiveMatch.from_store(stored)  # another process umpires it: a copy
            match = self.matches.setdefault(match_id, LiveMatch.from_store(stored))
            if match.ended:
                self.retire(match_id)  # kept among the last ended matches, then forgotten
        return match

    async def export(self, match_id: int) -> dict[str, Any]:
        """The whole record: settings, players, actions, every message; the seed and the
        secrets only once the match has ended."""
        match = await self.load(match_id)
        ended = match.ended
        with reading():
            actions = await self.repo.actions(match_id)
            messages = await self.repo.messages(match_id)
            row = next(iter(await self.repo.match_rows([match_id])), None)
        started = getattr(row, "created_at", None)
        finished = getattr(row, "ended_at", None)
        return {
            "match": match.id, "game": match.game.slug, "status": match.status,
            # as stored at the start: what the match commitment covers
            "players": row.players if row else [p.to_json() for p in match.players],
            "settings": row.settings if row else match.settings.model_dump(mode="json"),
            "started_at": started.isoformat() if started else None,
            "ended_at": finished.isoformat() if finished else None,
            "seed_commitment": match.commitment, "seed": match.seed if ended else None,
            "seed_salt": match.salt if ended else None,
            "match_commitment": getattr(row, "match_commitment", None),
            "result": match.result,
            "actions": [{"seq": a.seq, "seat": a.seat, "command": a.command, "source": a.source,
                         "at": a.created_at.isoformat()} for a in actions] if ended else
                       [{"seq": a.seq, "source": a.source, "at": a.created_at.isoformat()}
                        for a in actions],
            "messages": [{"id": m.id, "seq": m.seq, "audience": m.audience, "text": m.text,
                          "at": m.created_at.isoformat()}
                         for m in messages if ended or m.audience == "public"],
            # what the game declares it reveals once the match is over (the feed's last
            # message shows the same): None while it runs
            "reveal": end_reveal(match.game, match.state, ended),
        }

    @staticmethod
    def export_json(record: dict[str, Any]) -> str:
        return json.dumps(record, indent=2, ensure_ascii=False)
