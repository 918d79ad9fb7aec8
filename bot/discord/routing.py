"""Which match a channel belongs to, and where a click on a choice goes.

The bot keeps one `Routing`: the channel index (each running match's room and tables, by
channel id) that typed moves, `/mine`, `/board` and the host commands look a channel up in,
and the checks and submission of a click on a choice (a button or a menu)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.discord.errors import NO_SUCH_MATCH
from bot.discord.render import player_id
from bot.live import LiveMatch
from bot.status import RUNNING

if TYPE_CHECKING:
    from bot.facade import UmpireApi
    from bot.umpire import MatchService


@dataclass(frozen=True)
class Place:
    """Where a channel sits in a match: the room (seat None) or a seat's table."""

    match_id: int
    seat: int | None


class Routing:
    """The channel index of the matches held, and click routing."""

    def __init__(self, api: UmpireApi, service: MatchService) -> None:
        self.api = api
        self.service = service
        self.places: dict[int, Place] = {}

    # --- which match a channel belongs to ------------------------------------------------
    def index_matches(self) -> None:
        """Index the channels of every match held (at start, and when shards are adopted)."""
        for match in self.api.held():
            self.index_match(match.id, match.transport)

    def index_match(self, match_id: int, transport: Mapping[str, Any]) -> None:
        """Index a match's room and tables (from its transport data)."""
        if transport.get("room"):
            self.places[int(transport["room"])] = Place(match_id, None)
        for seat in (0, 1):
            table = transport.get(f"table{seat}")
            if table:
                self.places[int(table)] = Place(match_id, seat)

    def forget(self, channel_id: int) -> None:
        """A match's channel is gone (deleted or archived): it routes nothing any more."""
        self.places.pop(channel_id, None)

    def place_of(self, channel_id: int | None) -> Place | None:
        return self.places.get(channel_id) if channel_id is not None else None

    # --- a click on a choice --------------------------------------------------------------
    def click_refusal(self, user_id: int, match_id: int, key: str,
                      guild_id: int | None = None, channel_id: int | None = None) -> str | None:
        """Why a click on decision `key` cannot be taken now, or None. A component's custom id
        can be forged: a match of another server, or a component outside the match's room and
        tables, gets the same answer as an unknown match."""
        match = self.api.live(match_id)
        if match is None or not self.in_place(match, guild_id, channel_id):
            return NO_SUCH_MATCH
        prompt = next((p for p in match.prompts if p.key == key), None)
        if prompt is None or match.status not in RUNNING:
            return ("That choice is no longer open: the decision was already made or its "
                    "time ran out.")
        seat = match.seat_of(player_id(user_id))
        if seat is None:
            return "Only the players of this match can choose here."
        if seat != prompt.seat:
            return f"This choice is for {match.players[prompt.seat].name}, not for you."
        return None

    def in_place(self, match: LiveMatch, guild_id: int | None, channel_id: int | None) -> bool:
        """Whether a component used in `channel_id` of `guild_id` belongs to `match`: same
        server, and the match's room or one of its tables."""
        if guild_id is None or match.transport.get("guild") != guild_id:
            return False
        place = self.place_of(channel_id)
        return place is not None and place.match_id == match.id

    async def submit_choice(self, user_id: int, channel_id: int | None, match_id: int, key: str,
                            index: int, guild_id: int | None = None) -> tuple[str, bool]:
        """(refusal, accepted) for a click on choice `index` of prompt `key`."""
        refusal = self.click_refusal(user_id, match_id, key, guild_id, channel_id)
        live = self.api.live(match_id)
        if refusal or live is None:
            return refusal or NO_SUCH_MATCH, False
        prompt = next(p for p in live.prompts if p.key == key)
        if index not in range(len(prompt.choices)):
            return "That option is no longer offered; type your move instead.", False
        return await self.submit_text(user_id, channel_id, match_id, key, prompt.choices[index],
                                      guild_id)

    async def submit_text(self, user_id: int, channel_id: int | None, match_id: int, key: str,
                          text: str, guild_id: int | None = None) -> tuple[str, bool]:
        """(refusal, accepted) for a component's text answering decision `key`, submitted as
        if typed in the channel of the component."""
        refusal = self.click_refusal(user_id, match_id, key, guild_id, channel_id)
        if refusal:
            return refusal, False
        place = self.place_of(channel_id)
        table_of = place.seat if place is not None and place.match_id == match_id else None
        reply = await self.service.submit(match_id, player_id(user_id), text,
                                          table_of=table_of, prompt_key=key)
        if reply.ignored:
            return "Only the players of this match can choose here.", False
        return reply.message, reply.accepted
