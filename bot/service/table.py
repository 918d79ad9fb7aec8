"""The matches a service holds in memory, and what it keeps per match besides them."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

from bot.live import LiveMatch
from bot.service.errors import UmpireError
from games.core import Prompt


class MatchTable:
    """Match id -> live match, with the bookkeeping that lives as long as a match does."""

    def __init__(self, keep_ended: int = 64) -> None:
        self.matches: dict[int, LiveMatch] = {}
        #: Match -> (seat, kind) of the decisions explained in full so far: later ones of a
        #: kind get their compact line (`Prompt.brief`). Not stored: after a restart each
        #: kind is explained once more.
        self.met: dict[int, set[tuple[int, str]]] = {}
        self.snapshot_at: dict[int, int] = {}  # resumed matches: the seq of their snapshot
        #: Ended matches whose messages are all out, oldest first: the last `keep_ended` stay
        #: in `matches` (status, view, export without a database read), older ones are
        #: forgotten so that a service running for months keeps no memory per finished match.
        self.ended: OrderedDict[int, None] = OrderedDict()
        self.keep_ended = keep_ended

    def get(self, match_id: int) -> LiveMatch:
        match = self.matches.get(match_id)
        if match is None:
            raise UmpireError(f"There is no match #{match_id}.")
        return match

    def alive(self, match_id: int) -> bool:
        match = self.matches.get(match_id)
        return match is not None and match.running

    def explained(self, match_id: int, prompts: Sequence[Prompt]) -> None:
        """These decisions were posted: a later one of the same seat and kind is compact."""
        if prompts:
            self.met.setdefault(match_id, set()).update((p.seat, p.kind) for p in prompts)

    def retire(self, match_id: int, busy: Callable[[int], bool]) -> None:
        """Forget the bookkeeping of an ended match; keep only the last `keep_ended` ended
        matches in memory (`busy`: a match whose messages are still going out stays)."""
        self.met.pop(match_id, None)
        self.snapshot_at.pop(match_id, None)
        self.ended[match_id] = None
        self.ended.move_to_end(match_id)
        while len(self.ended) > self.keep_ended:
            old, _ = self.ended.popitem(last=False)
            match = self.matches.get(old)
            if match is None or not match.ended or busy(old) or match.lock.locked():
                continue
            del self.matches[old]

    def drop(self, gone: set[int]) -> None:
        """Forget these matches (their shards were lost)."""
        for match_id in gone:
            dropped = self.matches.pop(match_id, None)
            if dropped is not None:
                dropped.on_hydrate = None  # a rebuild under way arms nothing of it
            self.snapshot_at.pop(match_id, None)
            self.ended.pop(match_id, None)
