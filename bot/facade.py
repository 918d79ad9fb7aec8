"""What the Discord cogs ask of the match service, named for what they ask.

The cogs (bot/discord/) never reach into the service's match table (`service.matches`),
its store (`service.repo`, `bot.store`) nor its delivery (`service.delivery`): they ask
this facade for "the live match #12", "the running matches of this server", "a player's
running matches", "this server's settings", "remember these channel ids for match #12".
So the service can change how it holds matches and the store how it keeps them without
touching a cog; a test (tests/discord/test_cog_boundaries.py) keeps it so. The service's
commands (submit, pause, award, export, ...) are called on the service itself: they are
its public API.

The store's record types that cogs name (a stored guild, a challenge, a match summary, an
outbox message) are re-exported here for that reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.live import LiveMatch
from bot.ratings import HistoryLine, Standing, history, standings, unrate_statement
from bot.store.challenges import ChallengeStore, StoredChallenge
from bot.store.fence import acting
from bot.store.guilds import GuildStore, MatchSummary, StoredGuild, matches_of_guild
from bot.store.models import MatchRow
from bot.store.repository import StoredMessage, transport_merge

if TYPE_CHECKING:
    from bot.umpire import MatchService

__all__ = ["ChallengeStore", "MatchRow", "MatchSummary", "StoredChallenge", "StoredGuild", "StoredMessage",
           "UmpireApi"]

class UmpireApi:
    """The narrow view of one match service that the Discord side uses."""

    def __init__(self, service: MatchService) -> None:
        self.service = service
        #: Each server's settings and the bot's own facts (e.g. the synced command set).
        self.guild_settings = GuildStore(service.repo)
        #: Open challenges and each member's last one, per server.
        self.challenges = ChallengeStore(service.repo)

    # --- the matches held in memory -------------------------------------------------------
    def live(self, match_id: int | None) -> LiveMatch | None:
        """Match `match_id` as the service holds it (running or recently ended), or None."""
        return self.service.matches.get(match_id) if match_id is not None else None

    def held(self) -> list[LiveMatch]:
        """Every match the service holds: the running ones and the recently ended ones."""
        return list(self.service.matches.values())

    def running(self, guild_id: int | None = None) -> list[LiveMatch]:
        """The running (active or paused) matches, of server `guild_id` if given."""
        return [m for m in self.service.matches.values() if m.running
                and (guild_id is None or m.transport.get("guild") == guild_id)]

    def running_of(self, player_id: str) -> list[LiveMatch]:
        """The running matches in which `player_id` holds a seat."""
        return [m for m in self.running() if m.seat_of(player_id) is not None]

    async def live_or_stored(self, match_id: int) -> LiveMatch:
        """Match `match_id` as held, else loaded from the store (an ended match is not kept
        in memory after a restart). Raises UmpireError when there is no such match."""
        found = self.live(match_id)
        return found if found is not None else await self.service.load(match_id)

    # --- delivery ---------------------------------------------------------------------------
    def post_pending(self, match_id: int, audience: str) -> bool:
        """Whether a post of the match to `audience` is stored and not delivered yet."""
        return self.service.delivery.pending(match_id, audience)

    def retry_held(self, match_id: int) -> None:
        """Try the match's held channels again now (something that may free them changed)."""
        self.service.delivery.wake(match_id)

    def tell_hosts(self, match_id: int, text: str) -> None:
        """A line in the host log of running match `match_id` (stored and delivered like
        every message; nothing when the match is not running)."""
        match = self.live(match_id)
        if match is not None and match.running:
            self.service.clocks.stops.tell_hosts(match, text)

    # --- the store ------------------------------------------------------------------------
    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process umpires the server now (always, unless sharded; then while
        it owns the server's shard and its lease's deadline has not passed: `acting`)."""
        repo = self.service.repo
        if repo.shards is None:
            return True
        where = {"guild": guild_id}
        return repo.shard_for(where) in repo.shards and self.acting(where)

    def acting(self, transport: Mapping[str, Any]) -> bool:
        """Whether this process may act (post, above all) for a match played where
        `transport` says (or a server: {"guild": id}) now: always, unless sharded; then
        only while it holds the shard's lease, by the wall clock against the lease's
        two-thirds deadline (bot/store/fence.py), so a process that lost the shard (a pause,
        say) never posts for it. Asked right before each post made outside the outbox."""
        return acting(self.service.repo, dict(transport))

    async def guild_matches(self, guild_id: int, limit: int) -> list[MatchSummary]:
        """A server's stored matches, newest first."""
        return await matches_of_guild(self.service.repo.engine, guild_id, limit=limit)

    async def remember(self, match_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Store some keys of a match's transport data (its channels, what was posted) over
        what is stored, in one transaction; returns the merged data."""
        return await self.service.repo.merge_transport(match_id, dict(changes))

    async def ended_with_open_places(self, flag: str = "closed") -> list[MatchRow]:
        """Ended matches whose transport data has no true `flag` (their channels were not
        closed, or not archived, say because the bot stopped in between)."""
        return await self.service.repo.ended_with_open_places(flag)

    async def mark_unrated(self, match_id: int, line: str) -> None:
        """A running match will not count for the ratings: the mark and the room's `line`
        are stored in one transaction."""
        await self.service.announce(match_id, line,
                                    also=[transport_merge(match_id, {"unrated": True})])

    async def unrate_ended(self, match_id: int, now: datetime) -> None:
        """An ended match is taken out of the ratings, recomputed without it (sharded: only
        while this process holds the match's shard, checked in the same transaction)."""
        await self.service.repo.run_for_match(match_id, unrate_statement(match_id, now))

    async def history(self, guild_id: int, player_id: str,
                      game: str | None = None) -> list[HistoryLine]:
        """A player's ended matches on a server, newest first."""
        return await history(self.service.repo.engine, guild_id, player_id, game)

    async def standings(self, guild_id: int, game: str,
                        player_ids: list[str] | None = None) -> list[Standing]:
        """A server's ratings of a game, best first (or only the given players')."""
        return await standings(self.service.repo.engine, guild_id, game, player_ids)
