"""The gate: every command, button, select, modal and typed message that acts on a match or
an event is decided here, from the state at that moment.

Each path DECLARES what it needs (`requires(...)` on a command or a listener, `GatedItem`'s
`need` on a component); the gate enforces it, in this order:

- **who** may (`Who`): anyone, a host, a referee of the match (a host who neither plays it
  nor is an entrant of the event it belongs to: a player never referees anything that
  decides their own opponents or results), an event's host (a host who is not one of its
  entrants), a member with Manage Server, a player of the match (a component's seat);
- **how often** (`Pace`): one per-member, per-channel cooldown for everything that makes the
  bot post or edit. A flood gets one answer, then silence until the cooldown ends; a typed
  reply is simply not sent while its cooldown runs (the reply is what is paced);
- **in what order** (`Need.order`): the keys a use holds a lock on from its check to its
  write (one open challenge per pair), so two uses at the same instant never both pass a
  check made before the other's write. The locks are in-process: a server is umpired by
  one process at a time (bot/discord/sharding.py).

A command without a declaration is refused (fail closed), and tests/discord/test_gate.py
enumerates every registered command, component and message path and fails for one that
bypasses the gate.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable, Hashable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.discord.errors import Refusal, Silenced
from bot.discord.render import player_id
from bot.status import RUNNING

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot
    from bot.live import LiveMatch

log = logging.getLogger(__name__)

#: The attribute a declaration is stored under (on a command's callback or a listener).
ATTR = "__umpire_gate__"


class Who(Enum):
    ANYONE = "anyone"
    HOST = "host"  # the server's host role or Manage Server
    REFEREE = "referee"  # a host who does not play the match nor enters its event
    EVENT_HOST = "event host"  # a host who is not an entrant of the event
    MANAGER = "manager"  # Manage Server (or Administrator)
    SEAT = "seat"  # a player of the match (components: the seat the decision is for)
    PARTY = "party"  # a member the component names (a challenge's two members)


@dataclass(frozen=True)
class Pace:
    """A cooldown: uses sharing `bucket` share one per member and channel, `setting`
    (a field of `[discord]`) seconds long. `tell`: the first use too soon is answered with
    the wait (the later ones get silence); without, a use too soon is silent."""

    bucket: str
    setting: str
    tell: bool = True


#: Posts and edits in a channel (a board, an event's message, a challenge, a sign-up).
POST = Pace("post", "read_cooldown_seconds")
#: The bot's answer to a typed message (a refusal, in the player's table).
REPLY = Pace("reply", "refusal_cooldown_seconds", tell=False)


def READ(name: str) -> Pace:
    """A read command's own cooldown (its answer is private: the cost is the database's)."""
    return Pace(name, "read_cooldown_seconds")


Order = Callable[[Any, dict[str, Any]], Iterable[Hashable]]


@dataclass(frozen=True)
class Need:
    """What a path needs, as it declares it."""

    who: Who
    pace: Pace | None = None
    #: The lock keys a use holds from its check to its write (from the context and the
    #: command's options).
    order: Order | None = None


def requires(who: Who, *, pace: Pace | None = None, order: Order | None = None) -> Any:
    """Declare what a command or listener needs. Put it right above the function (under
    `@commands.hybrid_command`, `@app_commands.command`, `@commands.Cog.listener`)."""
    need = Need(who, pace, order)

    def mark(func: Any) -> Any:
        setattr(func, ATTR, need)
        return func
    return mark


def need_of(command: Any) -> Need | None:
    """The declaration of a command (hybrid, prefix or app) or a function, if any."""
    for obj in (command, getattr(command, "callback", None), getattr(command, "wrapped", None),
                getattr(getattr(command, "wrapped", None), "callback", None)):
        need = getattr(obj, ATTR, None) if obj is not None else None
        if isinstance(need, Need):
            return need
    return None


class Refused(commands.CheckFailure):
    """The gate's refusal of a command (a check failure: answered to its user only)."""


@dataclass
class _Slot:
    until: float
    told: bool = False


@dataclass
class Gate:
    """One per bot (`bot.gate`)."""

    bot: UmpireBot
    clock: Callable[[], float] = time.monotonic
    _slots: dict[tuple[str, int, int], _Slot] = field(default_factory=dict)
    #: A lock lives while a use holds or waits for it (then it is forgotten).
    _locks: weakref.WeakValueDictionary[Hashable, asyncio.Lock] = field(
        default_factory=weakref.WeakValueDictionary)
    _leases: dict[int, list[asyncio.Lock]] = field(default_factory=dict)
    #: The latest decisions (what, who): tests observe that each path comes here.
    seen: deque[tuple[str, int]] = field(default_factory=lambda: deque(maxlen=1000))

    # --- how often -----------------------------------------------------------------------
    def seconds(self, pace: Pace) -> float:
        return float(getattr(self.bot.settings.discord, pace.setting))

    def pace(self, pace: Pace, member_id: int, channel_id: int | None) -> str:
        """"go" (and the cooldown starts), "tell" (too soon, first time: say the wait) or
        "silent" (too soon, already told)."""
        per = self.seconds(pace)
        if per <= 0:
            return "go"
        now = self.clock()
        key = (pace.bucket, member_id, channel_id or 0)
        slot = self._slots.get(key)
        if slot is None or now >= slot.until:
            if len(self._slots) > 10_000:  # forget the cooldowns that are over
                self._slots = {k: s for k, s in self._slots.items() if s.until > now}
            self._slots[key] = _Slot(now + per)
            return "go"
        if pace.tell and not slot.told:
            slot.told = True
            return "tell"
        return "silent"

    def wait_text(self, pace: Pace, member_id: int, channel_id: int | None) -> str:
        slot = self._slots.get((pace.bucket, member_id, channel_id or 0))
        left = max(1, math.ceil(slot.until - self.clock())) if slot else 1
        return (f"You used this a moment ago; each member may make the bot post here once "
                f"every {self.seconds(pace):.0f} s: try again in {left} s. (Until then "
                "further uses get no answer.)")

    def check_pace(self, pace: Pace | None, member_id: int, channel_id: int | None) -> None:
        """Raise Refusal (the wait, once) or Silenced for a use too soon."""
        if pace is None:
            return
        verdict = self.pace(pace, member_id, channel_id)
        if verdict == "tell":
            raise Refusal(self.wait_text(pace, member_id, channel_id))
        if verdict == "silent":
            raise Silenced()

    # --- in what order -------------------------------------------------------------------
    def lock(self, key: Hashable) -> asyncio.Lock:
        found = self._locks.get(key)
        if found is None:
            found = self._locks[key] = asyncio.Lock()
        return found

    async def _acquire(self, keys: Iterable[Hashable], taken: list[asyncio.Lock]) -> None:
        """Take the locks of `keys` in a fixed order (two uses never deadlock), each added to
        `taken` once held."""
        for lock in [self.lock(k) for k in sorted(set(keys), key=repr)]:
            await lock.acquire()
            taken.append(lock)

    @contextlib.asynccontextmanager
    async def ordered(self, keys: Iterable[Hashable]) -> AsyncIterator[None]:
        """Hold the locks of `keys` while the block runs."""
        taken: list[asyncio.Lock] = []
        try:
            await self._acquire(keys, taken)
            yield
        finally:
            for lock in reversed(taken):
                lock.release()

    async def _hold(self, ctx: Any, keys: Iterable[Hashable]) -> None:
        """Hold the locks of `keys` until the command of `ctx` is over (`release`)."""
        taken: list[asyncio.Lock] = []
        self._leases[id(ctx)] = taken
        await self._acquire(keys, taken)

    def release(self, ctx: Any) -> None:
        """The command of `ctx` is over (done or failed): its locks are released."""
        for lock in reversed(self._leases.pop(id(ctx), [])):
            lock.release()

    # --- who may ---------------------------------------------------------------------------
    async def host(self, member: discord.abc.User, guild: discord.Guild | None) -> None:
        """Refusal unless `member` is a host of `guild` now (its host role or Manage Server)."""
        if guild is None:
            raise Refusal("Match commands work in a server, not in direct messages.")
        config = await self.bot.guild_config(guild.id)
        if not config.is_host(member):
            raise Refusal(
                f"Only hosts can run matches: you need the {config.host_role_label(guild)} "
                "role or the Manage Server permission.")

    async def referee(self, member: discord.abc.User, live: LiveMatch) -> LiveMatch:
        """`live`, unless `member` plays it or is an entrant of its event: a player (a host
        or not) never referees their own match (it would let them erase a loss or read the
        opponent's secrets), nor any match of their event (it decides whom they meet next)."""
        pid = player_id(member.id)
        if live.seat_of(pid) is not None:
            when = "while it is on" if live.status in RUNNING else "even now it is over"
            raise Refusal(f"You play in match #{live.id}, so you cannot run host commands on "
                          f"it {when}: another host must.")
        event_id = live.transport.get("event")
        if event_id is not None:
            event = await self.event(int(event_id))
            if event is None or event.entrant(pid) is not None:
                name = event.name if event is not None else f"event #{event_id}"
                raise Refusal(f"Match #{live.id} is a match of {name}, in which you play: its "
                              "results decide your opponents, so you cannot run host commands "
                              "on it. Another host must.")
        return live

    def event_host(self, member: discord.abc.User, event: Any) -> Any:
        """`event`, unless `member` is one of its entrants (a player never runs it)."""
        if event.entrant(player_id(member.id)) is not None:
            raise Refusal(f"You play in {event.name}, so you cannot run it: another host must.")
        return event

    async def event(self, event_id: int) -> Any:
        """The event as stored now (None if unknown, or no event runner is loaded)."""
        cog = self.bot.get_cog("Tournament")
        runner = getattr(cog, "runner", None)
        if runner is None:
            return None
        return await runner.stored(event_id)

    @staticmethod
    def manager(member: discord.abc.User, guild: discord.Guild | None) -> None:
        if guild is None or not isinstance(member, discord.Member):
            raise Refusal("Settings are per server: use this command in a server.")
        perms = member.guild_permissions
        if not (perms.manage_guild or perms.administrator):
            raise Refusal("Only members with the Manage Server permission can change the "
                          "umpire's settings.")

    # --- the paths -----------------------------------------------------------------------
    async def command(self, ctx: commands.Context[Any]) -> None:
        """Every hybrid and prefix command (the bot's global before-invoke hook): who, then
        how often, then the locks. The target a referee or an event host acts on is resolved
        by the cog (`gate_target`) and decided here; the command reads it with `target`."""
        try:
            await self._command(ctx)
        except Refusal as exc:
            raise Refused(str(exc)) from exc

    async def _command(self, ctx: commands.Context[Any]) -> None:
        command = ctx.command
        need = need_of(command)
        self.seen.append((f"command:{command.qualified_name if command else '?'}",
                          ctx.author.id))
        if need is None:
            log.error("command %s declares no gate: refused", command)
            raise Refusal("This command is not available.")
        named = options_of(ctx)
        author, guild = ctx.author, ctx.guild
        if need.who in (Who.HOST, Who.REFEREE, Who.EVENT_HOST):
            await self.host(author, guild)
        elif need.who is Who.MANAGER:
            self.manager(author, guild)
        if need.who in (Who.REFEREE, Who.EVENT_HOST):
            found = await ctx.cog.gate_target(ctx, named)  # type: ignore[union-attr]
            found = (await self.referee(author, found) if need.who is Who.REFEREE
                     else self.event_host(author, found))
            ctx.gate_target = found  # type: ignore[attr-defined]
        if isinstance(command, commands.Group) and _subcommand_follows(ctx, command):
            return  # its subcommand is decided (paced, ordered) on its own
        channel_id = ctx.channel.id if ctx.channel else None
        self.check_pace(need.pace, author.id, channel_id)
        prefixed = ctx.interaction is None and need.who is Who.ANYONE
        if prefixed and need.pace is not POST:  # the prefix form answers in the channel
            self.check_pace(POST, author.id, channel_id)
        if need.order is not None:
            await self._hold(ctx, need.order(ctx, named))

    async def app_command(self, interaction: discord.Interaction[Any]) -> bool:
        """A slash command that is not hybrid (`/umpire settings`): its declared who."""
        command = interaction.command
        if command is None or isinstance(getattr(command, "wrapped", None), commands.Command):
            return True  # hybrid: decided with its context (`command`)
        need = need_of(command)
        self.seen.append((f"app:{command.qualified_name}", interaction.user.id))

        async def decide() -> None:
            if need is None:
                log.error("app command %s declares no gate: refused", command.qualified_name)
                raise Refusal("This command is not available.")
            if need.who is Who.MANAGER:
                self.manager(interaction.user, interaction.guild)
            elif need.who is not Who.ANYONE:
                raise Refusal("This command is not available.")
            self.check_pace(need.pace, interaction.user.id, interaction.channel_id)
        return await _allowed(interaction, decide())

    async def component(self, interaction: discord.Interaction[Any], item: Any) -> bool:
        """A button or select (`GatedItem`): its declared who (the item names the match or
        its parties) and pace. A refusal is said to the clicker only."""
        need: Need = item.need
        self.seen.append((f"component:{type(item).__name__}", interaction.user.id))

        async def decide() -> None:
            if need.who is Who.SEAT:
                refusal = await item.seat_refusal(interaction)
                if refusal:
                    raise Refusal(refusal)
            elif need.who is Who.PARTY:
                if interaction.user.id not in item.parties(interaction):
                    raise Refusal(item.not_a_party(interaction))
            elif need.who is not Who.ANYONE:
                raise Refusal("This button is not available.")
            self.check_pace(need.pace, interaction.user.id, interaction.channel_id)
        return await _allowed(interaction, decide())

    def message(self, message: discord.Message, live: LiveMatch | None) -> bool:
        """A typed message in a match's room or table: whether it is a player's (anyone
        else's is chat, never read)."""
        self.seen.append(("message", message.author.id))
        return live is not None and live.seat_of(player_id(message.author.id)) is not None

    def may_reply(self, member_id: int, channel_id: int) -> bool:
        """Whether the bot may answer a typed message in `channel_id` now (`REPLY`)."""
        return self.pace(REPLY, member_id, channel_id) == "go"


def options_of(ctx: commands.Context[Any]) -> dict[str, Any]:
    """A command's options by name, from a slash use (`kwargs`) or a prefix one (positional
    arguments, then keyword-only)."""
    command = ctx.command
    if command is None:
        return {}
    skip = 2 if command.cog is not None else 1
    named = dict(zip(command.clean_params, ctx.args[skip:], strict=False))
    return {**named, **ctx.kwargs}


def _subcommand_follows(ctx: commands.Context[Any], group: commands.Group[Any, ..., Any]) -> bool:
    """Whether a prefix use of `group` names one of its subcommands (decided next, on its
    own); a bare group answers in the channel itself."""
    if ctx.interaction is not None:
        return True
    rest = ctx.view.buffer[ctx.view.index:].split(maxsplit=1)
    return bool(rest) and rest[0] in group.all_commands


def target(ctx: commands.Context[Any]) -> Any:
    """The match or event the gate decided this command acts on."""
    found = getattr(ctx, "gate_target", None)
    if found is None:
        raise Refusal("This command is not available.")
    return found


async def _allowed(interaction: discord.Interaction[Any], decision: Any) -> bool:
    """Whether the decision let the interaction through; if not, it was answered."""
    try:
        await decision
    except (Refusal, Silenced) as exc:
        await _answer_interaction(interaction, exc)
        return False
    return True


async def _answer_interaction(interaction: discord.Interaction[Any],
                              exc: BaseException) -> None:
    """A refusal, privately; silence for a use already told (a deferred slash command's
    "thinking..." is removed, a click was acknowledged without a visible change)."""
    try:
        if isinstance(exc, Silenced):
            if interaction.type == discord.InteractionType.application_command and \
                    interaction.response.is_done():
                await interaction.delete_original_response()
            elif not interaction.response.is_done():
                await interaction.response.defer()
            return
        if not interaction.response.is_done():  # (a click: acknowledged, nothing changes)
            await interaction.response.defer()
        await interaction.followup.send(str(exc)[:2000], ephemeral=True,
                                        allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as error:
        log.warning("could not answer a refused interaction: %s", error)


class GatedItem:
    """A component whose every use goes through the gate: the subclass declares `need`
    and does its work in `handle` (never in `callback`, which is the gate's)."""

    need: Need = Need(Who.SEAT)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        gate: Gate = interaction.client.gate  # type: ignore[attr-defined]
        if not await gate.component(interaction, self):
            return
        keys = list(self.order_keys(interaction))
        async with gate.ordered(keys):
            await self.handle(interaction)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        raise NotImplementedError

    def order_keys(self, interaction: discord.Interaction[Any]) -> Iterable[Hashable]:
        """The lock keys this use holds while it acts."""
        return ()

    def parties(self, interaction: discord.Interaction[Any]) -> tuple[int, ...]:
        """For `Who.PARTY`: the members who may use it."""
        return ()

    def not_a_party(self, interaction: discord.Interaction[Any]) -> str:
        return "This is not yours."

    async def seat_refusal(self, interaction: discord.Interaction[Any]) -> str | None:
        """For `Who.SEAT`: why the clicker may not choose here now (the match of the custom
        id, in its own server and channels, the decision still open, the clicker's seat)."""
        bot: UmpireBot = interaction.client  # type: ignore[assignment]
        return bot.routing.click_refusal(interaction.user.id, self.match_id,  # type: ignore[attr-defined]
                                         self.key, interaction.guild_id,  # type: ignore[attr-defined]
                                         interaction.channel_id)
