"""The fake's state: guilds, channels, messages, commands and interactions, plus the
mutations that a real Discord would announce on the gateway."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import itertools
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

from . import payloads
from . import permissions as P
from .models import (
    DM,
    GUILD_CATEGORY,
    GUILD_TEXT,
    OVERWRITE_MEMBER,
    OVERWRITE_ROLE,
    PRIVATE_THREAD,
    AppCommand,
    Attachment,
    Channel,
    Guild,
    Interaction,
    InteractionResponse,
    Member,
    Message,
    Overwrite,
    Role,
    User,
)

T = TypeVar("T")

NONCE_WINDOW_SECONDS = 300.0
_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")
APPLICATION_FLAGS = (1 << 13) | (1 << 15) | (1 << 19) | (1 << 23)


def normalize_text_channel_name(name: str) -> str:
    """Discord lower-cases text channel names and turns whitespace into dashes."""
    name = re.sub(r"\s+", "-", name.strip().lower())
    return name[:100]


class Store:
    def __init__(self, *, token: str, bot_name: str) -> None:
        from .ids import SnowflakeFactory

        self.ids = SnowflakeFactory()
        self.token = token
        self.bot_user = User(self.ids.next(), bot_name, bot=True)
        self.application_id = self.bot_user.id
        self.app_owner = User(self.ids.next(), f"{bot_name}-developer")
        self.users: dict[int, User] = {u.id: u for u in (self.bot_user, self.app_owner)}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self._messages: dict[int, list[Message]] = {}
        self._messages_by_id: dict[int, Message] = {}
        self._dm_channels: dict[int, Channel] = {}
        self.commands: dict[int | None, list[AppCommand]] = {}
        #: (guild id, command name) -> role/user ids an admin allowed the command to
        self.command_overrides: dict[tuple[int, str], set[int]] = {}
        self.interactions: dict[int, Interaction] = {}
        self.interaction_responses: list[InteractionResponse] = []
        #: Channels (or channel ids) the bot gets 403 Missing Access on when sending.
        self.unreachable_channels: set[Any] = set()
        #: User ids whose DMs are closed (50007 Cannot send messages to this user).
        self.closed_dms: set[int] = set()
        self._nonces: dict[tuple[int, int, str], tuple[Message, float]] = {}
        self._waiters: list[asyncio.Future[None]] = []
        self.http_root = ""  # http://127.0.0.1:<port>, set once the server listens
        # Replaced by the gateway: (event name, payload) -> None.
        self.dispatch: Callable[[str, dict[str, Any]], None] = lambda event, data: None

    @property
    def bot_user_id(self) -> int:
        return self.bot_user.id

    # -- change notification --------------------------------------------

    def notify(self) -> None:
        for fut in self._waiters:
            if not fut.done():
                fut.set_result(None)
        self._waiters.clear()

    async def wait_for(
        self, predicate: Callable[[], T], timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Re-check ``predicate`` on every change to the fake (and every 10 ms, for predicates
        on bot-side state); return its first truthy value."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"fake discord: timed out after {timeout}s waiting for {what}")
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append(fut)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(fut, min(remaining, 0.01))

    # -- building the world (test side) ---------------------------------

    def add_user(self, name: str, *, bot: bool = False) -> User:
        user = User(self.ids.next(), name, bot=bot, global_name=name)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str,
        *,
        owner: User | None = None,
        bot_permissions: int = P.DEFAULT_BOT,
        everyone_permissions: int = P.DEFAULT_EVERYONE,
        general_channel: bool = True,
    ) -> Guild:
        """A guild with @everyone, its owner, the bot (with a managed role) and #general."""
        owner = owner or self.add_user(f"{name}-owner")
        guild = Guild(id=self.ids.next(), name=name, owner_id=owner.id)
        guild.roles[guild.id] = Role(
            guild.id, guild.id, "@everyone", P.as_int(everyone_permissions)
        )
        self.guilds[guild.id] = guild
        bot_role = Role(
            self.ids.next(),
            guild.id,
            self.bot_user.username,
            P.as_int(bot_permissions),
            position=1,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[owner.id] = Member(owner, guild.id)
        guild.members[self.bot_user.id] = Member(self.bot_user, guild.id, [bot_role.id])
        if general_channel:
            self._new_channel(guild, "general", GUILD_TEXT)
        self.dispatch("GUILD_CREATE", self.guild_create_payload(guild, include_members=True))
        return guild

    def bot_role(self, guild: Guild) -> Role:
        return next(r for r in guild.roles.values() if r.bot_id == self.bot_user.id)

    def add_member(
        self,
        guild: Guild,
        name: str | User,
        *,
        roles: list[Role] | tuple[Role, ...] = (),
        bot: bool = False,
        nick: str | None = None,
    ) -> User:
        user = name if isinstance(name, User) else self.add_user(name, bot=bot)
        member = Member(user, guild.id, [r.id for r in roles], nick=nick)
        guild.members[user.id] = member
        self.dispatch("GUILD_MEMBER_ADD", {**payloads.member(member), "guild_id": str(guild.id)})
        self.notify()
        return user

    def add_role(
        self,
        guild: Guild,
        name: str,
        *,
        permissions: int = 0,
        mentionable: bool = False,
        hoist: bool = False,
    ) -> Role:
        """New roles go to position 1 (just above @everyone), like on Discord."""
        for role in guild.roles.values():
            if role.position >= 1:
                role.position += 1
        role = Role(
            self.ids.next(),
            guild.id,
            name,
            P.as_int(permissions),
            position=1,
            mentionable=mentionable,
            hoist=hoist,
        )
        guild.roles[role.id] = role
        self.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": payloads.role(role)})
        return role

    def set_role_permissions(self, role: Role, permissions: int) -> None:
        role.permissions = P.as_int(permissions)
        self.dispatch(
            "GUILD_ROLE_UPDATE", {"guild_id": str(role.guild_id), "role": payloads.role(role)}
        )
        self.notify()

    def set_member_roles(self, guild: Guild, user: User, roles: list[Role]) -> None:
        member = self.member(guild, user)
        member.role_ids = [r.id for r in roles]
        self._dispatch_member_update(guild, member)

    def add_member_role(self, guild: Guild, user: User, role: Role) -> None:
        member = self.member(guild, user)
        if role.id not in member.role_ids:
            member.role_ids.append(role.id)
        self._dispatch_member_update(guild, member)

    def remove_member_role(self, guild: Guild, user: User, role: Role) -> None:
        member = self.member(guild, user)
        if role.id in member.role_ids:
            member.role_ids.remove(role.id)
        self._dispatch_member_update(guild, member)

    def _dispatch_member_update(self, guild: Guild, member: Member) -> None:
        self.dispatch("GUILD_MEMBER_UPDATE", {**payloads.member(member), "guild_id": str(guild.id)})
        self.notify()

    def add_text_channel(
        self,
        guild: Guild,
        name: str,
        *,
        category: Channel | None = None,
        overwrites: list[Overwrite] | None = None,
        topic: str | None = None,
    ) -> Channel:
        return self.create_channel(
            guild, name, GUILD_TEXT, parent=category, overwrites=overwrites, topic=topic
        )

    def add_category(
        self, guild: Guild, name: str, *, overwrites: list[Overwrite] | None = None
    ) -> Channel:
        return self.create_channel(guild, name, GUILD_CATEGORY, overwrites=overwrites)

    def set_overwrite(
        self, channel: Channel, target: Role | User, *, allow: int = 0, deny: int = 0
    ) -> None:
        kind = OVERWRITE_ROLE if isinstance(target, Role) else OVERWRITE_MEMBER
        self.put_overwrite(channel, Overwrite(target.id, kind, P.as_int(allow), P.as_int(deny)))

    def remove_overwrite(self, channel: Channel, target: Role | User) -> None:
        """A moderator deletes ``target``'s overwrite on ``channel`` (CHANNEL_UPDATE)."""
        channel.overwrites = [o for o in channel.overwrites if o.id != target.id]
        self.channel_changed(channel)

    def sync_with_category(self, channel: Channel) -> None:
        """A moderator clicks "Sync Now" (permissions synced with the category): the
        channel's overwrites become a copy of its category's (CHANNEL_UPDATE)."""
        parent = self.channels.get(channel.parent_id or 0)
        if parent is None:
            raise ValueError(f"{channel.name} is not in a category")
        channel.overwrites = [Overwrite(o.id, o.type, o.allow, o.deny) for o in parent.overwrites]
        self.channel_changed(channel)

    # -- lookups ---------------------------------------------------------

    def guild_of(self, channel: Channel) -> Guild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id else None

    def member(self, guild: Guild, user: User | int) -> Member:
        uid = user if isinstance(user, int) else user.id
        return guild.members[uid]

    def get_channel(self, guild: Guild, name: str) -> Channel:
        for cid in guild.channel_ids:
            channel = self.channels[cid]
            if channel.name == name and not channel.deleted:
                return channel
        raise KeyError(f"no channel named {name!r} in {guild.name}")

    def guild_channels(self, guild: Guild) -> list[Channel]:
        return [self.channels[c] for c in guild.channel_ids if not self.channels[c].deleted]

    def get_message(self, message_id: int) -> Message | None:
        return self._messages_by_id.get(message_id)

    def messages(
        self,
        channel: Channel | int,
        *,
        include_ephemeral: bool = False,
        include_deleted: bool = False,
    ) -> list[Message]:
        """Messages in ``channel`` in creation order (ephemeral and deleted ones hidden by default)."""
        cid = channel if isinstance(channel, int) else channel.id
        return [
            m
            for m in self._messages.get(cid, [])
            if (include_deleted or not m.deleted) and (include_ephemeral or not m.ephemeral)
        ]

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between ``user`` and the bot (created on first use)."""
        channel = self._dm_channels.get(user.id)
        if channel is None:
            channel = Channel(self.ids.next(), DM, None, recipient=user)
            self.channels[channel.id] = channel
            self._dm_channels[user.id] = channel
        return channel

    # -- permissions -----------------------------------------------------

    def permissions_for(self, user: User | int, channel: Channel) -> int:
        uid = user if isinstance(user, int) else user.id
        guild = self.guild_of(channel)
        if guild is None:
            recipient = channel.recipient
            in_dm = uid == self.bot_user.id or (recipient is not None and recipient.id == uid)
            return P.DM_PERMISSIONS if in_dm else 0
        if uid not in guild.members:
            return 0
        if channel.is_thread:
            return self._thread_permissions(guild, channel, uid)
        return P.channel_permissions(guild, channel, uid)

    def _thread_permissions(self, guild: Guild, thread: Channel, uid: int) -> int:
        """A thread has no overwrites: the parent's permissions, except that sending there
        takes SEND_MESSAGES_IN_THREADS (reported here as SEND_MESSAGES), a private thread is
        seen only by its members and those with MANAGE_THREADS, and a locked archived thread
        takes MANAGE_THREADS to write in."""
        parent = self.channels.get(thread.parent_id or 0)
        if parent is None or parent.deleted:
            return 0
        perms = P.channel_permissions(guild, parent, uid)
        if not perms & P.VIEW_CHANNEL:
            return 0
        moderator = bool(perms & P.MANAGE_THREADS)
        if thread.type == PRIVATE_THREAD and uid not in thread.member_ids and not moderator:
            return 0
        perms &= ~P.SEND_MESSAGES
        if perms & P.SEND_MESSAGES_IN_THREADS and (moderator or not thread.locked):
            perms |= P.SEND_MESSAGES
        return perms

    def can_view(self, user: User | int, channel: Channel) -> bool:
        return bool(self.permissions_for(user, channel) & P.VIEW_CHANNEL)

    def guild_permissions(self, guild: Guild, user: User | int) -> int:
        uid = user if isinstance(user, int) else user.id
        return P.base_permissions(guild, uid)

    def is_unreachable(self, channel: Channel) -> bool:
        return any(x is channel or x == channel.id for x in self.unreachable_channels)

    # -- channels ----------------------------------------------------------

    def _new_channel(
        self,
        guild: Guild,
        name: str,
        type_: int,
        *,
        parent: Channel | None = None,
        overwrites: list[Overwrite] | None = None,
        topic: str | None = None,
        position: int | None = None,
    ) -> Channel:
        if type_ == GUILD_TEXT:
            name = normalize_text_channel_name(name)
        if overwrites is None:
            # A channel created in a category without explicit overwrites is synced to it.
            overwrites = (
                [Overwrite(o.id, o.type, o.allow, o.deny) for o in parent.overwrites]
                if parent
                else []
            )
        if position is None:
            same = [
                self.channels[c].position
                for c in guild.channel_ids
                if self.channels[c].type == type_
            ]
            position = max(same, default=-1) + 1
        channel = Channel(
            id=self.ids.next(),
            type=type_,
            name=name,
            guild_id=guild.id,
            parent_id=parent.id if parent else None,
            position=position,
            topic=topic,
            overwrites=list(overwrites),
        )
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        return channel

    def create_channel(self, guild: Guild, name: str, type_: int, **kwargs: Any) -> Channel:
        channel = self._new_channel(guild, name, type_, **kwargs)
        self.dispatch("CHANNEL_CREATE", payloads.channel(channel))
        self.notify()
        return channel

    def channel_changed(self, channel: Channel) -> None:
        self.dispatch("CHANNEL_UPDATE", payloads.channel(channel))
        self.notify()

    def put_overwrite(self, channel: Channel, overwrite: Overwrite) -> None:
        channel.overwrites = [o for o in channel.overwrites if o.id != overwrite.id] + [overwrite]
        self.channel_changed(channel)

    def delete_channel(self, channel: Channel) -> None:
        if channel.is_thread:
            self.delete_thread(channel)
            return
        channel.deleted = True
        guild = self.guild_of(channel)
        if guild is not None:
            # Its threads go with it, without THREAD_DELETE events (clients drop them).
            for tid in [t for t in guild.thread_ids if self.channels[t].parent_id == channel.id]:
                self.channels[tid].deleted = True
                guild.thread_ids.remove(tid)
            guild.channel_ids.remove(channel.id)
            for child in self.guild_channels(guild):
                if child.parent_id == channel.id:
                    child.parent_id = None
                    self.dispatch("CHANNEL_UPDATE", payloads.channel(child))
        self.dispatch("CHANNEL_DELETE", payloads.channel(channel))
        self.notify()

    # -- threads -----------------------------------------------------------

    def threads(self, parent: Channel, *, include_deleted: bool = False) -> list[Channel]:
        """Threads of ``parent`` in creation order (archived ones included)."""
        return [c for c in self.channels.values() if c.is_thread and c.parent_id == parent.id
                and (include_deleted or not c.deleted)]

    def create_thread(self, parent: Channel, name: str, type_: int, *, owner: User,
                      invitable: bool = True, auto_archive_duration: int = 10080) -> Channel:
        guild = self.guild_of(parent)
        assert guild is not None
        now = dt.datetime.now(dt.UTC)
        thread = Channel(id=self.ids.next(), type=type_, name=name, guild_id=guild.id,
                         parent_id=parent.id, owner_id=owner.id,
                         invitable=invitable if type_ == PRIVATE_THREAD else True,
                         auto_archive_duration=auto_archive_duration, archive_timestamp=now,
                         created_at=now)
        thread.member_ids[owner.id] = now
        self.channels[thread.id] = thread
        guild.thread_ids.append(thread.id)
        self.dispatch("THREAD_CREATE", {**payloads.thread(thread, member_id=self.bot_user.id),
                                        "newly_created": True})
        self._dispatch_thread_members(thread, added=[owner.id])
        self.notify()
        return thread

    def add_thread_member(self, thread: Channel, user: User | int) -> None:
        uid = user if isinstance(user, int) else user.id
        if uid in thread.member_ids:
            return
        thread.member_ids[uid] = dt.datetime.now(dt.UTC)
        self._dispatch_thread_members(thread, added=[uid])
        self.notify()

    def remove_thread_member(self, thread: Channel, user: User | int) -> None:
        uid = user if isinstance(user, int) else user.id
        if thread.member_ids.pop(uid, None) is not None:
            self._dispatch_thread_members(thread, removed=[uid])
            self.notify()

    def _dispatch_thread_members(self, thread: Channel, *, added: list[int] = (),  # type: ignore[assignment]
                                 removed: list[int] = ()) -> None:  # type: ignore[assignment]
        data: dict[str, Any] = {"id": str(thread.id), "guild_id": str(thread.guild_id),
                                "member_count": len(thread.member_ids)}
        if added:
            data["added_members"] = [payloads.thread_member(thread, uid) for uid in added]
        if removed:
            data["removed_member_ids"] = [str(uid) for uid in removed]
        self.dispatch("THREAD_MEMBERS_UPDATE", data)

    def thread_changed(self, thread: Channel) -> None:
        member = self.bot_user.id if self.bot_user.id in thread.member_ids else None
        self.dispatch("THREAD_UPDATE", payloads.thread(thread, member_id=member))
        self.notify()

    def delete_thread(self, thread: Channel) -> None:
        thread.deleted = True
        guild = self.guild_of(thread)
        if guild is not None and thread.id in guild.thread_ids:
            guild.thread_ids.remove(thread.id)
        self.dispatch("THREAD_DELETE", {"id": str(thread.id), "guild_id": str(thread.guild_id),
                                        "parent_id": str(thread.parent_id), "type": thread.type})
        self.notify()

    # -- messages ----------------------------------------------------------

    def find_nonce(self, channel: Channel, author: User, nonce: str) -> Message | None:
        hit = self._nonces.get((channel.id, author.id, nonce))
        if hit is None:
            return None
        message, created = hit
        if time.monotonic() - created > NONCE_WINDOW_SECONDS:
            return None
        return message

    def create_message(
        self,
        channel: Channel,
        author: User,
        content: str = "",
        *,
        components: list[dict[str, Any]] | None = None,
        embeds: list[dict[str, Any]] | None = None,
        attachments: list[Attachment] | None = None,
        flags: int = 0,
        nonce: str | None = None,
        enforce_nonce: bool = False,
        type_: int = 0,
        webhook_id: int | None = None,
        interaction_metadata: dict[str, Any] | None = None,
        message_reference: dict[str, Any] | None = None,
        visible_to: int | None = None,
    ) -> Message:
        message = Message(
            id=self.ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=content,
            components=stored_components(components or []),
            embeds=stored_embeds(embeds or []),
            attachments=attachments or [],
            flags=flags,
            nonce=nonce,
            type=type_,
            webhook_id=webhook_id,
            application_id=self.application_id if webhook_id or interaction_metadata else None,
            interaction_metadata=interaction_metadata,
            message_reference=message_reference,
            visible_to=visible_to,
        )
        self._set_mentions(message)
        self._messages.setdefault(channel.id, []).append(message)
        self._messages_by_id[message.id] = message
        if nonce is not None and enforce_nonce:
            self._nonces[(channel.id, author.id, nonce)] = (message, time.monotonic())
        if not message.ephemeral:
            channel.last_message_id = message.id
            if channel.is_thread:
                channel.message_count += 1
                if channel.archived and not channel.locked:  # a post unarchives, like Discord
                    channel.archived = False
                    self.thread_changed(channel)
            self.dispatch("MESSAGE_CREATE", self.message_event(message))
        self.notify()
        return message

    def edit_message(self, message: Message, changes: dict[str, Any]) -> Message:
        for key in ("content", "components", "embeds", "attachments", "flags"):
            if key in changes and changes[key] is not None:
                value = changes[key]
                if key in STORED:
                    value = STORED[key](value)
                setattr(message, key, value)
        message.edited_timestamp = dt.datetime.now(dt.UTC)
        self._set_mentions(message)
        if not message.ephemeral:
            self.dispatch("MESSAGE_UPDATE", self.message_event(message))
        self.notify()
        return message

    def delete_message(self, message: Message) -> None:
        message.deleted = True
        if not message.ephemeral:
            data = {"id": str(message.id), "channel_id": str(message.channel_id)}
            if message.guild_id:
                data["guild_id"] = str(message.guild_id)
            self.dispatch("MESSAGE_DELETE", data)
        self.notify()

    def _set_mentions(self, message: Message) -> None:
        ids = dict.fromkeys(int(x) for x in _USER_MENTION.findall(message.content))
        message.mentions = [self.users[i] for i in ids if i in self.users]
        message.mention_role_ids = [
            int(x) for x in dict.fromkeys(_ROLE_MENTION.findall(message.content))
        ]

    def message_event(self, message: Message) -> dict[str, Any]:
        """Gateway shape: REST shape + guild_id + member (for the author and each mention)."""
        data = payloads.message(message)
        guild = self.guilds.get(message.guild_id) if message.guild_id else None
        if guild is None:
            return data
        data["guild_id"] = str(guild.id)
        author_member = guild.members.get(message.author.id)
        if author_member is not None and message.webhook_id is None:
            data["member"] = payloads.member(author_member, with_user=False)
        for mention in data["mentions"]:
            m = guild.members.get(int(mention["id"]))
            if m is not None:
                mention["member"] = payloads.member(m, with_user=False)
        return data

    # -- application commands ----------------------------------------------

    def find_command(self, name: str, guild_id: int | None, type_: int = 1) -> AppCommand | None:
        for scope in (guild_id, None) if guild_id else (None,):
            for cmd in self.commands.get(scope, []):
                if cmd.name == name and cmd.type == type_:
                    return cmd
        return None

    # -- payloads the gateway needs ----------------------------------------

    def ready_payload(self, session_id: str, resume_url: str) -> dict[str, Any]:
        return {
            "v": 10,
            "user": payloads.client_user(self.bot_user),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in self._bot_guilds()],
            "session_id": session_id,
            "session_type": "normal",
            "resume_gateway_url": resume_url,
            "application": {"id": str(self.application_id), "flags": APPLICATION_FLAGS},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["fake"],
            "user_settings": {},
            "auth": {},
            "_trace": ["fake-discord"],
        }

    def _bot_guilds(self) -> list[Guild]:
        return [g for g in self.guilds.values() if self.bot_user.id in g.members]

    def guild_create_payloads(self, intents: int) -> list[dict[str, Any]]:
        from .gateway import GUILD_MEMBERS

        with_members = bool(intents & GUILD_MEMBERS)
        return [
            self.guild_create_payload(g, include_members=with_members) for g in self._bot_guilds()
        ]

    def guild_create_payload(self, guild: Guild, *, include_members: bool) -> dict[str, Any]:
        members = (
            list(guild.members.values()) if include_members else [guild.members[self.bot_user.id]]
        )
        data = payloads.guild(guild)
        data.update(
            joined_at=payloads.iso(guild.joined_at),
            large=len(guild.members) >= 250,
            unavailable=False,
            member_count=len(guild.members),
            members=[payloads.member(m) for m in members],
            channels=[payloads.channel(c) for c in self.guild_channels(guild)],
            threads=[
                payloads.thread(t, member_id=self.bot_user.id
                                if self.bot_user.id in t.member_ids else None)
                for t in (self.channels[i] for i in guild.thread_ids)
                if not t.archived and self.can_view(self.bot_user, t)
            ],
            presences=[],
            voice_states=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
            lazy=True,
        )
        return data

    def member_chunk(
        self, guild_id: int, query: str | None, limit: int, user_ids: list[int] | None
    ) -> list[dict[str, Any]]:
        guild = self.guilds.get(guild_id)
        if guild is None:
            return []
        found = list(guild.members.values())
        if user_ids:
            found = [m for m in found if m.user.id in user_ids]
        elif query:
            found = [m for m in found if m.user.username.lower().startswith(query.lower())]
        if limit:
            found = found[:limit]
        return [payloads.member(m) for m in found]


#: Defaults Discord fills in a stored component the bot left them out of, by type.
COMPONENT_DEFAULTS: dict[int, dict[str, Any]] = {
    **{t: {"min_values": 1, "max_values": 1} for t in (3, 5, 6, 7, 8)},  # selects
    14: {"spacing": 1, "divider": True},  # separator
    17: {"accent_color": None, "spoiler": False},  # container
}


def stored_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The components as Discord stores them (a copy): each with an `id` and its defaults, a
    unicode emoji without the `"id": null` discord.py sends. Discord numbers the components
    the bot did not, 1, 2, ... in reading order (a row before its children), skipping the
    ids the bot gave."""
    taken: set[int] = set()

    def given(items: list[dict[str, Any]]) -> None:
        for item in items:
            if isinstance(item.get("id"), int):
                taken.add(item["id"])
            given(item.get("components") or [])
            for key in ("accessory", "component"):
                if isinstance(item.get(key), dict):
                    given([item[key]])

    given(components)
    counter = (i for i in itertools.count(1) if i not in taken)

    def number(item: dict[str, Any]) -> dict[str, Any]:
        item = {**COMPONENT_DEFAULTS.get(item.get("type", 0), {}), **item}
        if not isinstance(item.get("id"), int):
            item["id"] = next(counter)
        item = _unicode_emoji(item)
        if item.get("options"):
            item["options"] = [_unicode_emoji(o) for o in item["options"]]
        if item.get("components"):
            item["components"] = [number(c) for c in item["components"]]
        for key in ("accessory", "component"):
            if isinstance(item.get(key), dict):
                item[key] = number(item[key])
        return item

    return [number(c) for c in components]


def _unicode_emoji(part: dict[str, Any]) -> dict[str, Any]:
    """A button or select option with a unicode emoji: its emoji has no `id` on Discord."""
    emoji = part.get("emoji")
    if isinstance(emoji, dict) and "id" in emoji and emoji["id"] is None:
        return {**part, "emoji": {k: v for k, v in emoji.items() if k != "id"}}
    return part


def stored_embeds(embeds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The embeds as Discord stores them (a copy): a type ("rich"), every field's `inline`."""
    return [{"type": "rich", **e,
             **({"fields": [{"inline": False, **f} for f in e["fields"]]} if e.get("fields")
                else {})}
            for e in embeds]


STORED = {"components": stored_components, "embeds": stored_embeds}
