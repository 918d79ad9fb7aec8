"""Friendly matches without a host: `/challenge @member game` (Accept / Decline buttons) and
the Rematch button posted in the room when a match ends (every human player presses it).

Both are restart-proof `DynamicItem`s whose custom ids carry everything they need
(`ump:ch:<game>:<challenger>:<opponent>:<a|d>`, `ump:rm:<match>`); who pressed Rematch is
stored with the match, each challenge in `challenges` (bot/store/challenges.py: open or
answered, and when; it expires after an hour), so that a restart keeps the buttons' answer,
the one open challenge per pair and the per-member cooldown. They start a match only where the server allows friendly matches
(`/umpire settings friendly_matches:`). Who holds the advantage is a coin flip from the new
match's seed, announced with how to check it once the seed is revealed at the end. The
command itself is the Challenge cog's (bot/discord/cogs/challenge.py).
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.discord.channels import sees_everything
from bot.discord.components import ack, tell
from bot.discord.errors import NO_SUCH_MATCH, Refusal
from bot.discord.gate import GatedItem, Need, Pace, Who
from bot.discord.launch import launch
from bot.discord.render import player_id, player_ref, shown, user_id_of
from bot.discord.sharding import may_post
from bot.facade import StoredChallenge
from bot.transport import MatchInfo, PlayerRef
from bot.umpire import UmpireError
from games.registry import get_game

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot
    from bot.facade import ChallengeStore, UmpireApi

log = logging.getLogger(__name__)

NO_FRIENDLIES = ("Friendly matches are off in this server (a member with Manage Server turns "
                 "them on with `/umpire settings friendly_matches:True`); a host can start the "
                 "match with `/match start`.")
ENDED = ("finished", "aborted")
EXPIRED = ("This challenge has expired (a challenge stays open for an hour); nothing was "
           "started. Challenge again with `/challenge`.")


def running_friendly(bot: UmpireBot, guild_id: int, a: int, b: int) -> int | None:
    """The id of a running friendly match of members `a` and `b` on this server, if any."""
    pair = {player_id(a), player_id(b)}
    for match in bot.api.running(guild_id):
        if match.transport.get("friendly") and {p.id for p in match.players} == pair:
            return match.id
    return None


class ChallengeLimits:
    """The open challenge of each pair of members and when each member last challenged, per
    server, as stored (`ChallengeStore`): a restart keeps both."""

    #: An open challenge expires after this long (its buttons then say so), and stops
    #: blocking a new one of the same pair (its message may have been deleted, or forgotten).
    PENDING_SECONDS = 3600.0

    def __init__(self, store: ChallengeStore,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.store = store
        self.now = now

    async def refusal(self, bot: UmpireBot, guild_id: int, challenger: discord.abc.User,
                      opponent: discord.abc.User, cooldown: float) -> str | None:
        """Why `challenger` may not challenge `opponent` now (said to the challenger only),
        or None: a friendly match of the two still running, a challenge between them still
        open, or the challenger's last challenge too recent (the server's cooldown)."""
        running = running_friendly(bot, guild_id, challenger.id, opponent.id)
        if running is not None:
            return (f"You and {shown(opponent)} already play friendly match #{running}: "
                    "finish it before starting another.")
        now = self.now()
        open_ = await self.store.open_between(
            guild_id, challenger.id, opponent.id, now - timedelta(seconds=self.PENDING_SECONDS))
        if open_ is not None:
            if open_.challenger == challenger.id:
                return (f"Your challenge to {shown(opponent)} is still open ({open_.link}): "
                        "wait for their answer, or withdraw it there (Decline) before "
                        "challenging again.")
            return (f"{shown(opponent)} has already challenged you ({open_.link}): accept or "
                    "decline it there.")
        last = await self.store.last_of(guild_id, challenger.id)
        wait = (last + timedelta(seconds=cooldown) - now).total_seconds() if last else 0.0
        if wait > 0:
            return (f"You challenged someone {cooldown - wait:.0f} s ago; this server allows "
                    f"one challenge every {cooldown:.0f} s per member: try again in "
                    f"{wait:.0f} s.")
        return None

    async def opened(self, guild_id: int, challenger: int, opponent: int, game: str,
                     message: discord.Message) -> None:
        await self.store.opened(StoredChallenge(
            message_id=message.id, guild_id=guild_id, challenger=challenger,
            opponent=opponent, game=game, link=message.jump_url, created_at=self.now(),
            answered_at=None))

    def expired(self, challenge: StoredChallenge) -> bool:
        return (self.now() - challenge.created_at).total_seconds() >= self.PENDING_SECONDS

    async def closed(self, message_id: int) -> None:
        """The challenge was answered (never raises: its message has lost its buttons)."""
        try:
            await self.store.answered(message_id, self.now())
        except Exception:
            log.exception("could not store the answer of challenge %s", message_id)


def limits_of(bot: Any) -> ChallengeLimits:
    """The Challenge cog's limits (its instance's, bot/discord/cogs/challenge.py), else new."""
    limits = getattr(bot.get_cog("Challenge"), "limits", None)
    return limits if isinstance(limits, ChallengeLimits) else \
        ChallengeLimits(bot.api.challenges)


def coin_flip(seed: str) -> int:
    """0 or 1 from the match seed: the first byte of SHA-256("<seed>:advantage"), even means
    the first named player holds the advantage. Anyone can check it once the seed is out."""
    return hashlib.sha256(f"{seed}:advantage".encode()).digest()[0] & 1


def flip_text(first: str, second: str, flip: int) -> str:
    winner = (first, second)[flip]
    return (f"🪙 Coin flip between {first} and {second}: **{winner}** holds the advantage. "
            "Check it when the seed is revealed at the end: the first byte of SHA-256 of "
            f"`<seed>:advantage` is even for {first}, odd for {second}.")


async def start_friendly(bot: UmpireBot, guild: discord.Guild, game_slug: str,
                         players: Sequence[tuple[discord.Member | None, PlayerRef]],
                         settings: dict[str, Any], extra: dict[str, Any]) -> tuple[Any, str]:
    """Start a friendly match of `players` (first named first); the advantage by a coin flip
    from the seed. Returns (the match, the announcement)."""
    config = await bot.guild_config(guild.id)
    if not config.friendly_matches:
        raise Refusal(NO_FRIENDLIES)
    ids = [m.id for m, _ in players if m is not None]
    running = running_friendly(bot, guild.id, *ids) if len(ids) == 2 else None
    if running is not None:
        raise Refusal(f"{players[0][1].name} and {players[1][1].name} already play friendly "
                      f"match #{running}: finish it before starting another.")
    for member, _ in players:
        if member is not None and sees_everything(member):
            raise Refusal(f"{shown(member)} owns this server or has the Administrator "
                          "permission, which sees every channel (the opponent's table and the "
                          "host log): umpired matches need players without it.")
    game = get_game(game_slug)
    seed = secrets.token_hex(16)
    flip = coin_flip(seed)
    order = list(players) if flip == 0 else list(reversed(players))
    live, channels = await launch(bot, guild, game, [m for m, _ in order], [r for _, r in order],
                                  settings, seed, extra={"friendly": True, **extra})
    text = (f"Match #{live.id} ({game.title}) started: room {channels.room.mention}. " +
            flip_text(players[0][1].name, players[1][1].name, flip))
    return live, text


class ChallengeButton(GatedItem, discord.ui.DynamicItem[discord.ui.Button[Any]],
                      template=r"ump:ch:(?P<game>[a-z0-9-]+):(?P<a>\d+):(?P<b>\d+):(?P<act>[ad])"):
    """Accept (the challenged member) or Decline (either of the two): one answer at a time
    per challenge (the gate holds its message's lock)."""

    need = Need(Who.PARTY)

    def __init__(self, game: str, challenger: int, opponent: int, act: str) -> None:
        accept = act == "a"
        super().__init__(discord.ui.Button(
            label="Accept" if accept else "Decline",
            style=discord.ButtonStyle.success if accept else discord.ButtonStyle.danger,
            custom_id=f"ump:ch:{game}:{challenger}:{opponent}:{act}"))
        self.game, self.challenger, self.opponent, self.act = game, challenger, opponent, act

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Button[Any], match: re.Match[str]) -> ChallengeButton:  # type: ignore[override]  # (its own item)
        return cls(match["game"], int(match["a"]), int(match["b"]), match["act"])

    def parties(self, interaction: discord.Interaction[Any]) -> tuple[int, ...]:
        return (self.opponent,) if self.act == "a" else (self.challenger, self.opponent)

    def not_a_party(self, interaction: discord.Interaction[Any]) -> str:
        return ("Only the challenged member can accept." if interaction.user.id ==
                self.challenger else "This challenge is not yours.")

    def order_keys(self, interaction: discord.Interaction[Any]) -> tuple[str, ...]:
        message = interaction.message
        return (f"challenge:{message.id}",) if message is not None else ()

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await ack(interaction)
        try:
            await self._answer(interaction)
        except Refusal as exc:
            await tell(interaction, str(exc))
        except Exception:
            log.exception("challenge failed")
            await tell(interaction, "Something went wrong on the umpire's side; nothing was "
                                    "started. Try again.")

    async def _answer(self, interaction: discord.Interaction[Any]) -> None:
        bot: UmpireBot = interaction.client
        guild, user, message = interaction.guild, interaction.user, interaction.message
        if guild is None or message is None:
            raise Refusal("Challenges work in a server.")
        limits = limits_of(bot)  # (the gate holds this challenge's lock: GatedItem)
        stored = await limits.store.get(message.id)
        if not message.components or (stored is not None and stored.answered_at):
            raise Refusal("This challenge was already answered.")
        if stored is None or limits.expired(stored):  # (or posted before it was stored)
            raise Refusal(EXPIRED)
        a, b = guild.get_member(self.challenger), guild.get_member(self.opponent)
        names = [shown(m) if m else "?" for m in (a, b)]
        if self.act == "d":
            verb = "withdrew" if user.id == self.challenger else "declined"
            await limits.closed(message.id)  # (stored first: the edit may not arrive)
            await interaction.edit_original_response(
                content=f"⚔️ {names[0]} challenged {names[1]} to "
                        f"{get_game(self.game).title}: {shown(user)} {verb}.",
                view=None, allowed_mentions=discord.AllowedMentions.none())
            return
        if a is None or b is None:
            raise Refusal("The challenger is no longer in this server.")
        live, text = await start_friendly(
            bot, guild, self.game,
            [(a, player_ref(a.id, a.display_name)), (b, player_ref(b.id, b.display_name))],
            {}, {"challenge": message.id})
        await limits.closed(message.id)
        await interaction.edit_original_response(
            content=f"⚔️ {names[1]} accepted {names[0]}'s challenge. {text}", view=None,
            allowed_mentions=discord.AllowedMentions.none())


class RematchButton(GatedItem, discord.ui.DynamicItem[discord.ui.Button[Any]],
                    template=r"ump:rm:(?P<match>\d+)"):
    """Every human player of an ended match presses it; one press at a time per match (the
    gate holds its lock), and each press edits the message: paced."""

    need = Need(Who.SEAT, pace=Pace("rematch", "read_cooldown_seconds"))

    def __init__(self, match_id: int) -> None:
        super().__init__(discord.ui.Button(label="Rematch", emoji="🔁",
                                           style=discord.ButtonStyle.primary,
                                           custom_id=f"ump:rm:{match_id}"))
        self.match_id = match_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Button[Any], match: re.Match[str]) -> RematchButton:  # type: ignore[override]  # (its own item)
        return cls(int(match["match"]))

    async def seat_refusal(self, interaction: discord.Interaction[Any]) -> str | None:
        """A player of this ended match of this server (the match as stored now)."""
        bot: UmpireBot = interaction.client
        try:
            old = await bot.service.load(self.match_id)
        except UmpireError:
            return NO_SUCH_MATCH
        if interaction.guild is None or old.transport.get("guild") != interaction.guild.id:
            return NO_SUCH_MATCH
        if old.seat_of(player_id(interaction.user.id)) is None:
            return "Only the players of this match can ask for a rematch."
        return None

    def order_keys(self, interaction: discord.Interaction[Any]) -> tuple[str, ...]:
        return (f"rematch:{self.match_id}",)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await ack(interaction)
        try:
            await self._press(interaction)
        except Refusal as exc:
            await tell(interaction, str(exc))
        except Exception:
            log.exception("rematch of %s failed", self.match_id)
            await tell(interaction, "Something went wrong on the umpire's side; nothing was "
                                    "started. Try again.")

    async def _press(self, interaction: discord.Interaction[Any]) -> None:
        bot: UmpireBot = interaction.client
        guild = interaction.guild
        try:
            old = await bot.service.load(self.match_id)
        except UmpireError as exc:
            raise Refusal(NO_SUCH_MATCH) from exc
        if guild is None or old.transport.get("guild") != guild.id:
            raise Refusal(NO_SUCH_MATCH)
        if old.status not in ENDED:
            raise Refusal("The match is still on.")
        me = player_id(interaction.user.id)  # a player of it (the gate: seat_refusal)
        if old.transport.get("rematch_match"):  # (the gate holds the match's rematch lock)
            raise Refusal(f"The rematch is already on: match #{old.transport['rematch_match']}.")
        await self._agree(bot, guild, interaction, old, me)

    async def _agree(self, bot: UmpireBot, guild: discord.Guild,
                     interaction: discord.Interaction[Any], old: Any, me: str) -> None:
        pressed = [p for p in old.transport.get("rematch") or [] if p != me] + [me]
        humans = [p for p in old.players if p.bot is None]
        waiting = [p for p in humans if p.id not in pressed]
        if waiting:
            config = await bot.guild_config(guild.id)
            if not config.friendly_matches:
                raise Refusal(NO_FRIENDLIES)
            await merge_transport(bot, old, rematch=pressed)
            who = ", ".join(p.name for p in humans if p.id in pressed)
            await interaction.edit_original_response(
                embeds=[rematch_note(f"🔁 Rematch of match #{old.id}? {who} wants one; waiting "
                                     f"for {', '.join(p.name for p in waiting)} to press "
                                     "Rematch.")],
                allowed_mentions=discord.AllowedMentions.none())
            return
        players = []
        for ref in old.players:
            uid = user_id_of(ref)
            member = guild.get_member(uid) if uid is not None else None
            if uid is not None and member is None:
                raise Refusal(f"{ref.name} is no longer in this server.")
            players.append((member, ref if member is None else
                            player_ref(member.id, member.display_name)))
        live, text = await start_friendly(bot, guild, old.game.slug, players,
                                          old.settings.model_dump(mode="json"),
                                          {"rematch_of": old.id})
        await merge_transport(bot, old, rematch=pressed, rematch_match=live.id)
        await interaction.edit_original_response(
            embeds=[rematch_note(f"🔁 Rematch of match #{old.id}: {text}")], view=None,
            allowed_mentions=discord.AllowedMentions.none())


def rematch_note(text: str) -> discord.Embed:
    """Where a Rematch stands, shown under the message that carries the button (the
    match's final message: its own text stays as it is)."""
    return discord.Embed(description=text, colour=discord.Colour.dark_grey())


async def merge_transport(bot: UmpireBot, match: Any, **changes: Any) -> None:
    """Store changes to an ended match's transport data over what is stored (atomically: the
    channel closing writes the same row)."""
    match.transport.update(await bot.api.remember(match.id, changes))


async def offer_rematch(client: discord.Client | None, match: MatchInfo,
                        api: UmpireApi | None = None) -> None:
    """Post the Rematch button in the room of an ended match, unless the match's final
    message carried it (`rematch_offered`; bot/discord/transport.py). Never raises."""
    room = match.transport.get("room")
    if client is None or not room or match.transport.get("rematch_offered"):
        return
    view = discord.ui.View(timeout=None)
    view.add_item(RematchButton(match.id))
    try:
        channel = client.get_channel(int(room)) or await client.fetch_channel(int(room))
        if not may_post(client, match.transport):  # (sharded: the shard was lost meanwhile)
            return
        await channel.send(  # type: ignore[union-attr]  # (a match room: a text channel)
            f"🔁 Match #{match.id} is over. Another one? Every player presses Rematch.",
            view=view, allowed_mentions=discord.AllowedMentions.none())
        match.transport["rematch_offered"] = True
        if api is not None:
            await api.remember(match.id, {"rematch_offered": True})
    except (discord.HTTPException, AttributeError) as exc:
        log.warning("could not offer a rematch for match %s: %s", match.id, exc)


def challenge_keys(ctx: commands.Context[Any], named: dict[str, Any]) -> list[str]:
    """What a /challenge holds from its checks to its stored challenge: the pair (one open
    challenge per pair, either way round) and the challenger (one challenge per cooldown)."""
    member = named.get("member")
    guild = ctx.guild.id if ctx.guild else 0
    keys = [f"challenger:{guild}:{ctx.author.id}"]
    if isinstance(member, discord.abc.User):
        low, high = sorted((ctx.author.id, member.id))
        keys.append(f"pair:{guild}:{low}:{high}")
    return keys


DYNAMIC_ITEMS = (ChallengeButton, RematchButton)
