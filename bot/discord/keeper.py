"""The channel keeper: the bot owns the channels it made for a running match and keeps them
as it made them, whatever a moderator does to them.

What it keeps (recorded in the match's transport data when the match starts, `kept`, so a
restart keeps them too; `record_*` below):
- a table channel it made (channels mode): every permission overwrite it set, exactly as
  it set it (a sync with the category, a deny removed, an allow added), and no overwrite
  someone else added gives View Channel to anyone but the hosts who do not play;
- the game room it made in threads mode: nobody but the bot and the hosts who do not play
  has Manage Threads there (that reads every private thread of the room), and @everyone's
  deny of it stays;
- a table thread it made: nobody in it but its player, the bot and hosts who do not play;
  nobody but the bot may add members to it (not invitable);
- the host log: every player of a running match denied it (any host log: the one it made
  or the one a host set); the one it made also as it made it (hidden from @everyone, the
  host role and the bot let in), recorded as a fact of the service (`LOG_MADE`).
The host role's overwrite goes to the host role set now, when a host changes it.

It looks on every event that may change who reads a channel (bot/discord/cogs/watch.py calls
`keep`), when the bot connects, and right after every secret post (the transport calls
`posted`). What is wrong it puts back at once, one edit per channel. While a channel is
wrong the transport holds it (its check before every post, bot/discord/transport.py): no
secret goes there. The hosts are told once, in the match's host log, who could read what;
a secret post that landed in a channel opened meanwhile is reported with its match and
the channel closed at once. A change the bot cannot undo (it lost Manage Roles, say) is
retried with backoff, and the channel stays held until it is right.

Channels a host named (a room, a table) are never changed by the keeper: they are held
until someone fixes them, and the hosts told why (the transport's hold).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.overwrites import SEE_AND_WRITE, bot_overwrite
from bot.discord.sharding import may_post
from bot.discord.visibility import Intended, Place, describe, unintended_readers

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot
    from bot.transport import MatchInfo

log = logging.getLogger(__name__)

ROLE, MEMBER = 0, 1  # an overwrite's target type, as Discord numbers them
#: The fact (service_state) that the bot made a server's host log: "<channel> <host role>".
LOG_MADE = "host_log_made:"
VIEW = discord.Permissions(view_channel=True).value
MANAGE_THREADS = discord.Permissions(manage_threads=True).value
#: A repair Discord refused is tried again after this long, doubling up to `RETRY_MAX`.
RETRY_SECONDS = 5.0
RETRY_MAX = 300.0

Record = dict[str, list[int]]  # target id -> [type, allow, deny]
Wanted = dict[int, tuple[int, int, int]]  # target id -> (type, allow, deny)


def record(overwrites: Mapping[Any, discord.PermissionOverwrite]) -> Record:
    """Overwrites as stored in a match's transport data."""
    out: Record = {}
    for target, overwrite in overwrites.items():
        allow, deny = overwrite.pair()
        out[str(target.id)] = [_kind(target), allow.value, deny.value]
    return out


def record_table(seat: int, overwrites: Mapping[Any, discord.PermissionOverwrite],
                 hosts: discord.Role | None) -> dict[str, Any]:
    """A table channel: its overwrites, and which of them is the host role's (the role set
    later takes its place: hosts are whoever holds the role set now)."""
    return {"how": "table", "seat": seat, "overwrites": record(overwrites),
            "hosts": hosts.id if hosts is not None else None}


def _hosts_now(wanted: Wanted, recorded: int | None, now: int | None,
               overwrite: discord.PermissionOverwrite) -> Wanted:
    """`wanted` with the host role's overwrite on the host role set now."""
    if recorded == now:
        return wanted
    out = {tid: v for tid, v in wanted.items() if tid != recorded}
    if now is not None:
        allow, deny = overwrite.pair()
        out[now] = (ROLE, allow.value, deny.value)
    return out


def record_room(overwrites: Mapping[Any, discord.PermissionOverwrite]) -> dict[str, Any]:
    return {"how": "room", "overwrites": record(overwrites)}


def record_thread(seat: int) -> dict[str, Any]:
    return {"how": "thread", "seat": seat}


def _kind(target: Any) -> int:
    if isinstance(target, discord.Role):
        return ROLE
    if isinstance(target, discord.Object):
        return ROLE if target.type is discord.Role else MEMBER
    return MEMBER


def _wanted(stored: Record) -> Wanted:
    return {int(tid): (int(v[0]), int(v[1]), int(v[2])) for tid, v in stored.items()}


def _current(channel: discord.abc.GuildChannel) -> dict[int, tuple[Any, int, int, int]]:
    out = {}
    for target, overwrite in channel.overwrites.items():
        allow, deny = overwrite.pair()
        out[target.id] = (target, _kind(target), allow.value, deny.value)
    return out


def _lets_in(guild: discord.Guild, target: Any, kind: int, intended: Intended) -> bool:
    """Whether an overwrite on `target` may let someone read who is not `intended`."""
    if kind == ROLE:
        role = guild.get_role(target.id)
        return role is None or not intended.allows_role(role)
    member = guild.get_member(target.id)
    return member is None or (member.id != guild.me.id and not intended.allows(member))


def repaired(channel: discord.abc.GuildChannel, wanted: Wanted, intended: Intended, *,
             guard: int, exact: bool) -> dict[int, tuple[int, int, int]] | None:
    """The overwrites `channel` should have (target id -> (type, allow, deny)), or None
    when it has them. Targets in `wanted` get their overwrite back: exactly (`exact`), or
    only the `guard` bits of it; the bot's own gets at least the allows it set. An overwrite
    the bot did not set loses the `guard` bits it allows when it may let in someone who is
    not `intended`; the others are left as they are."""
    guild = channel.guild
    current = _current(channel)
    out: dict[int, tuple[int, int, int]] = {}
    for tid, (target, kind, allow, deny) in current.items():
        want = wanted.get(tid)
        if want is None:
            if guard and allow & guard and _lets_in(guild, target, kind, intended):
                allow &= ~guard
            if allow or deny:
                out[tid] = (kind, allow, deny)
        elif tid == guild.me.id:
            out[tid] = (kind, allow | want[1], deny & ~want[1])
        elif exact:
            out[tid] = want
        else:
            out[tid] = (kind, (allow & ~guard) | (want[1] & guard),
                        (deny & ~guard) | (want[2] & guard))
    for tid, want in wanted.items():
        if tid not in out:
            out[tid] = want if exact or tid == guild.me.id else \
                (want[0], want[1] & guard, want[2] & guard)
    out = {tid: v for tid, v in out.items() if v[1] or v[2]}
    now = {tid: (kind, allow, deny) for tid, (_, kind, allow, deny) in current.items()}
    return None if out == now else out


def _overwrites(wanted: Mapping[int, tuple[int, int, int]]
                ) -> dict[discord.Object, discord.PermissionOverwrite]:
    return {discord.Object(tid, type=discord.Role if kind == ROLE else discord.Member):
            discord.PermissionOverwrite.from_pair(discord.Permissions(allow),
                                                  discord.Permissions(deny))
            for tid, (kind, allow, deny) in wanted.items()}


@dataclass(frozen=True)
class Finding:
    """A kept channel found wrong: what the hosts are told, and whether it is right now."""

    channel_id: int
    readers: str | None  # who could read it (described), None: nobody who should not
    fixed: bool
    error: str | None = None
    #: Found while a secret post to it was under way: told with that post (`posted`).
    during_post: bool = False


class Keeper:
    """One per bot. `keep(guild_id)` after any change; `posted(...)` right after every
    secret post (the transport's check again)."""

    def __init__(self, bot: UmpireBot, *, retry_seconds: float = RETRY_SECONDS) -> None:
        self.bot = bot
        self.retry_seconds = retry_seconds
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._retry: dict[int, float] = {}  # guild -> the next retry's delay
        self._retrying: dict[int, asyncio.Task[None]] = {}
        #: (match, channel) whose change the hosts were told of (until it is right again).
        self._told: set[tuple[int, int]] = set()
        #: Channels found opened while a secret post to them was under way: the check
        #: right after that post reports it (`posted`), not the pass that found it.
        self._opened_while_posting: dict[int, str] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        #: Per server, the host log the bot made and the host role it let in (read once).
        self._logs_made: dict[int, tuple[int, int] | None] = {}
        self.repairs = 0  # edits made (for tests and logs)

    # --- when to look ----------------------------------------------------------------------
    def keep(self, guild_id: int | None) -> None:
        """Look at the kept channels of the server's running matches soon (one pass at a
        time per server; a change during a pass gets another)."""
        if guild_id is None:
            return
        if guild_id in self._tasks:
            self._again.add(guild_id)
            return
        self._tasks[guild_id] = asyncio.get_running_loop().create_task(
            self._run(guild_id), name=f"keep-{guild_id}")

    async def _run(self, guild_id: int) -> None:
        try:
            while True:
                self._again.discard(guild_id)
                try:
                    failed = await self.keep_now(guild_id)
                except Exception:  # a bug here must not stop the listeners
                    log.exception("keeping the channels of server %s failed", guild_id)
                    failed = True
                if failed:
                    self._retry_later(guild_id)
                else:
                    self._retry.pop(guild_id, None)
                if guild_id not in self._again:
                    return
        finally:
            self._tasks.pop(guild_id, None)

    def _retry_later(self, guild_id: int) -> None:
        if guild_id in self._retrying:
            return
        delay = self._retry.get(guild_id, self.retry_seconds)
        self._retry[guild_id] = min(delay * 2, RETRY_MAX)

        async def later() -> None:
            try:
                await asyncio.sleep(delay)
            finally:
                self._retrying.pop(guild_id, None)
            self.keep(guild_id)

        self._retrying[guild_id] = asyncio.get_running_loop().create_task(later())

    async def wait_idle(self) -> None:
        """Wait for the passes under way (for tests and shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    def stop(self) -> None:
        """Cancel the passes and retries under way (the bot is closing)."""
        for task in [*self._tasks.values(), *self._retrying.values()]:
            task.cancel()

    # --- one pass ----------------------------------------------------------------------------
    async def keep_now(self, guild_id: int) -> bool:
        """Put back what is wrong in the server's kept channels now; True when something
        could not be put back (retried later)."""
        guild = self.bot.get_guild(guild_id)
        if guild is None:
            return False
        async with self._locks.setdefault(guild_id, asyncio.Lock()):
            running = self.bot.api.running(guild_id)
            live = {m.id for m in running}
            self._told = {k for k in self._told if k[0] in live}
            failed = False
            logs_done: set[int] = set()
            for match in running:
                if not may_post(self.bot, match.transport):  # (sharded: the shard was lost)
                    continue
                for finding in await self.keep_match(guild, match, logs_done):  # type: ignore[arg-type]  # (it reads only .id and .transport, as a LiveMatch has)
                    failed |= not finding.fixed
                    self._tell(match, finding)  # type: ignore[arg-type]  # (as above)
            return failed

    async def keep_match(self, guild: discord.Guild, match: MatchInfo,
                         logs_done: set[int] | None = None) -> list[Finding]:
        """Put back the match's kept channels; what was found wrong. The host log is
        looked at for every running match that uses it at once, skipped when in
        `logs_done` (a pass over the server adds each log it looked at)."""
        out: list[Finding] = []
        kept: Mapping[str, Any] = match.transport.get("kept") or {}
        for cid, spec in kept.items():
            finding = await self._keep_one(guild, match, int(cid), spec)
            if finding is not None:
                out.append(finding)
            else:
                self._told.discard((match.id, int(cid)))
        log_id = int(match.transport.get("log") or 0)
        if logs_done is None or log_id not in logs_done:
            if logs_done is not None:
                logs_done.add(log_id)
            log_finding = await self._keep_log(guild, match)
            if log_finding is not None:
                out.append(log_finding)
            else:
                self._told.discard((match.id, log_id))
        return out

    async def _keep_one(self, guild: discord.Guild, match: MatchInfo, channel_id: int,
                        spec: Mapping[str, Any]) -> Finding | None:
        transport = self.bot.transport
        how = spec.get("how")
        if how == "thread":
            return await self._keep_thread(guild, match, channel_id, int(spec["seat"]))
        channel = guild.get_channel(channel_id)
        if not isinstance(channel, discord.TextChannel):
            return None  # gone: deleted channels are made again (bot/discord/channel_lifecycle.py)
        wanted = _wanted(spec.get("overwrites") or {})
        if how == "table":
            audience = f"seat{int(spec['seat'])}"
            intended = await transport.privacy.intended(match, audience, guild)
            wanted = _hosts_now(wanted, spec.get("hosts"), intended.host_role_id, SEE_AND_WRITE)
            place = Place.of(channel)
            guard, exact = VIEW, True
        else:  # the room of threads mode: Manage Threads there reads every table thread
            intended = await transport.privacy.intended(match, "umpire", guild)
            place = Place.future_private_thread(channel, {guild.me.id})
            audience, guard, exact = "public", MANAGE_THREADS, False
        new = repaired(channel, wanted, intended, guard=guard, exact=exact)
        if new is None:
            return None
        readers = unintended_readers(place, intended)
        said = describe(place, readers, intended) if readers else None
        during = self._found(channel_id, said)
        try:
            await channel.edit(overwrites=_overwrites(new),
                               reason=f"umpire: the permissions of match #{match.id}'s "
                                      "channel put back")
        except discord.HTTPException as exc:
            log.warning("match %s: could not put back channel %s: %s", match.id, channel_id,
                        exc)
            return Finding(channel_id, said, False, f"{exc.status}: {exc.text or exc}", during)
        self.repairs += 1
        log.info("match %s: put back the permissions of %s %s", match.id, audience, channel_id)
        return Finding(channel_id, said, True, during_post=during)

    async def _keep_thread(self, guild: discord.Guild, match: MatchInfo, thread_id: int,
                           seat: int) -> Finding | None:
        thread = guild.get_thread(thread_id)
        if thread is None or thread.parent is None:
            return None
        transport = self.bot.transport
        audience = f"seat{seat}"
        intended = await transport.privacy.intended(match, audience, guild)
        members = await transport.privacy.thread_members(thread)
        extra = [uid for uid in sorted(members) if uid != guild.me.id and
                 not ((m := guild.get_member(uid)) is not None and intended.allows(m))]
        if not extra and not thread.invitable:
            return None
        place = Place.of(thread, members)
        readers = unintended_readers(place, intended)
        said = describe(place, readers, intended) if readers else None
        during = self._found(thread_id, said)
        try:
            if thread.invitable:
                await thread.edit(invitable=False, reason="umpire: a private table")
            for uid in extra:
                await thread.remove_user(discord.Object(uid))
        except discord.HTTPException as exc:
            log.warning("match %s: could not put back thread %s: %s", match.id, thread_id, exc)
            return Finding(thread_id, said, False, f"{exc.status}: {exc.text or exc}", during)
        self.repairs += 1
        log.info("match %s: took %s out of table thread %s", match.id, extra, thread_id)
        return Finding(thread_id, said, True, during_post=during)

    # --- the host log ------------------------------------------------------------------------
    async def made_log(self, guild: discord.Guild, channel: discord.TextChannel,
                       hosts: discord.Role | None) -> None:
        """Record that the bot made `channel`, the server's host log, letting in `hosts`:
        kept like the tables from now on (stored: a restart keeps it)."""
        made = (channel.id, hosts.id if hosts is not None else 0)
        self._logs_made[guild.id] = made
        try:
            await self.bot.guild_store.set_fact(f"{LOG_MADE}{guild.id}", f"{made[0]} {made[1]}")
        except Exception as exc:  # kept in memory meanwhile; the start goes on
            log.warning("server %s: could not store that the bot made its host log: %s",
                        guild.id, exc)

    async def _log_made(self, guild_id: int) -> tuple[int, int] | None:
        if guild_id not in self._logs_made:
            value = await self.bot.guild_store.fact(f"{LOG_MADE}{guild_id}")
            parts = (value or "").split()
            self._logs_made[guild_id] = (int(parts[0]), int(parts[1])) if len(parts) == 2 \
                else None
        return self._logs_made[guild_id]

    async def _keep_log(self, guild: discord.Guild, match: MatchInfo) -> Finding | None:
        """The host log: each player of a running match that uses it stays denied it; the
        one the bot made is also kept as it made it (hidden from @everyone, the host role
        and the bot let in, nobody else given View Channel but hosts who do not play)."""
        log_id = int(match.transport.get("log") or 0)
        channel = guild.get_channel(log_id)
        if not isinstance(channel, discord.TextChannel):
            return None
        players = sorted({int(uid) for m in self.bot.api.running(guild.id)
                          if m.transport.get("log") == log_id
                          for uid in (m.transport.get("log_denied") or {})})
        hidden = discord.PermissionOverwrite(view_channel=False).pair()
        wanted = {uid: (MEMBER, hidden[0].value, hidden[1].value) for uid in players
                  if guild.get_member(uid) is not None}
        made = await self._log_made(guild.id)
        if made is not None and made[0] == log_id:
            return await self._keep_made_log(guild, match, channel, wanted, made[1],
                                             frozenset(players))
        current = _current(channel)
        again = {uid: w for uid, w in wanted.items()
                 if uid not in current or not current[uid][3] & VIEW}
        if not again:
            return None
        intended = await self.bot.transport.privacy.intended(match, "umpire", guild)
        place = Place.of(channel)
        readers = unintended_readers(place, intended)
        said = describe(place, readers, intended) if readers else None
        during = self._found(log_id, said)
        try:
            for uid in again:  # (one request each: the rest of the log is not ours)
                member = guild.get_member(uid)
                assert member is not None  # (`wanted` has only members of the server)
                await channel.set_permissions(member,
                                              overwrite=discord.PermissionOverwrite(
                                                  view_channel=False),
                                              reason="umpire: a player never reads the host "
                                                     "log of their running match")
        except discord.HTTPException as exc:
            log.warning("could not deny the host log %s to a player again: %s", log_id, exc)
            return Finding(log_id, said, False, f"{exc.status}: {exc.text or exc}", during)
        self.repairs += 1
        log.info("host log %s denied again to %s", log_id, sorted(again))
        return Finding(log_id, said, True, during_post=during)

    async def _keep_made_log(self, guild: discord.Guild, match: MatchInfo,
                             channel: discord.TextChannel, denies: Wanted, host_role: int,
                             players: frozenset[int]) -> Finding | None:
        def entry(kind: int, overwrite: discord.PermissionOverwrite) -> tuple[int, int, int]:
            allow, deny = overwrite.pair()
            return (kind, allow.value, deny.value)

        wanted: Wanted = {guild.default_role.id: (ROLE, 0, VIEW),
                          guild.me.id: entry(MEMBER, bot_overwrite(guild))}
        if host_role:
            wanted[host_role] = entry(ROLE, SEE_AND_WRITE)
        base = await self.bot.transport.privacy.intended(match, "umpire", guild)
        wanted = _hosts_now(wanted, host_role or None, base.host_role_id, SEE_AND_WRITE)
        wanted.update(denies)
        intended = Intended(barred=base.barred | players, host_role_id=base.host_role_id)
        new = repaired(channel, wanted, intended, guard=VIEW, exact=True)
        if new is None:
            return None
        place = Place.of(channel)
        readers = unintended_readers(place, intended)
        said = describe(place, readers, intended) if readers else None
        during = self._found(channel.id, said)
        try:
            await channel.edit(overwrites=_overwrites(new),
                               reason="umpire: the host log's permissions put back")
        except discord.HTTPException as exc:
            log.warning("could not put back the host log %s: %s", channel.id, exc)
            return Finding(channel.id, said, False, f"{exc.status}: {exc.text or exc}", during)
        self.repairs += 1
        log.info("put back the permissions of the host log %s", channel.id)
        return Finding(channel.id, said, True, during_post=during)

    def _found(self, channel_id: int, said: str | None) -> bool:
        """Note a kept channel found wrong; True when a secret post to it is under way (the
        check right after that post tells the hosts, `posted`)."""
        if said is None or channel_id not in self.bot.transport.posting:
            return False
        self._opened_while_posting[channel_id] = said
        return True

    # --- telling the hosts -------------------------------------------------------------------
    def _tell(self, match: MatchInfo, finding: Finding) -> None:
        """Once per change of a channel (until it is right again): the hosts, in the
        match's host log, when someone could read it or it could not be put back."""
        key = (match.id, finding.channel_id)
        if key in self._told or (finding.readers is None and finding.fixed):
            return
        if finding.during_post:
            return  # told with the post that was under way (`posted`)
        self._told.add(key)
        place = self._where(match, finding.channel_id)
        could = f" could be read by {finding.readers}" if finding.readers else " was changed"
        if finding.fixed:
            text = (f"🔧 Match #{match.id}: {place}{could}: someone changed its permissions. "
                    "I made that channel, so I put them back at once; nothing secret was "
                    "posted there while it was wrong, but whoever could read it meanwhile "
                    "could read what it held.")
        else:
            text = (f"⛔ Match #{match.id}: {place}{could}, and I could not put its "
                    f"permissions back (Discord answered {finding.error}). Its messages are "
                    "held until it is right again; I keep trying. Give me Manage Roles "
                    "there, or put the permissions back yourself.")
        self.bot.api.tell_hosts(match.id, text)

    def _where(self, match: MatchInfo, channel_id: int) -> str:
        from bot.discord.places import AUDIENCE_KEYS, where

        for audience, key in AUDIENCE_KEYS.items():
            if match.transport.get(key) == channel_id:
                return where(match, audience, channel_id)
        return f"<#{channel_id}> (match #{match.id})"

    async def posted(self, match: MatchInfo, audience: str, channel_id: int,
                     problem: str | None) -> None:
        """Right after a secret post (the transport calls this): `problem` is who else can
        read the channel now (the transport's check), None when nobody. A post that landed
        in a channel opened meanwhile (found now, or by a pass while the post was under
        way) is reported to the hosts with the match, once, and the channel is closed again
        at once if the bot made it."""
        guild = self.bot.get_guild(int(match.transport.get("guild") or 0))
        if guild is None:
            return
        ours = str(channel_id) in (match.transport.get("kept") or {}) or audience == "umpire"
        async with self._locks.setdefault(guild.id, asyncio.Lock()):  # (a pass under way)
            opened = self._opened_while_posting.pop(channel_id, None)
            if problem is None and opened is None:
                return
            findings = await self.keep_match(guild, match) if ours else []
            for finding in findings:
                if finding.channel_id != channel_id:
                    self._tell(match, finding)
            failed = [f for f in findings if f.channel_id == channel_id and not f.fixed]
            if (match.id, channel_id) in self._told and opened is None:
                return  # (the hosts know: a change they were told of, not yet undone)
            self._told.add((match.id, channel_id))
        if problem is not None:
            who = problem.removesuffix(" Remove that access.")
            who = f" ({who[0].lower()}{who[1:]})"
        else:
            who = f" (it could be read by {opened})"
        if ours and not failed:
            after = "I made that channel, and closed it again at once."
        else:
            after = "Its messages are held until it is private again."
        self.bot.api.tell_hosts(match.id, (
            f"⚠️ Match #{match.id}: a secret message was posted in "
            f"{self._where(match, channel_id)} just as it was opened to others{who}. {after} "
            "Whoever could read it then may have read that message and the ones before it."))
        if failed:
            self._retry_later(guild.id)
