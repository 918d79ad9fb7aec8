"""REST: guilds, channels, permission overwrites, roles, members and DM channels."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from . import payloads
from . import permissions as P
from .errors import (
    MAX_CHANNELS_IN_CATEGORY,
    THREAD_ARCHIVED,
    UNKNOWN_GUILD,
    UNKNOWN_MEMBER,
    UNKNOWN_OVERWRITE,
    UNKNOWN_ROLE,
    UNKNOWN_THREAD_MEMBER,
    UNKNOWN_USER,
    ApiError,
    invalid_form,
    missing_permissions,
    not_found,
)
from .models import (
    DM,
    GUILD_CATEGORY,
    GUILD_TEXT,
    GUILD_VOICE,
    OVERWRITE_MEMBER,
    OVERWRITE_ROLE,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    THREAD_ARCHIVE_DURATIONS,
    Channel,
    Guild,
    Overwrite,
)
from .rest_messages import get_channel, require
from .router import ApiRequest, Created, Router
from .store import normalize_text_channel_name

if TYPE_CHECKING:
    from .server import FakeDiscord

CREATABLE_TYPES = {GUILD_TEXT, GUILD_VOICE, GUILD_CATEGORY, 5, 13, 15}


def get_guild(fake: FakeDiscord, guild_id: int) -> Guild:
    guild = fake.guilds.get(guild_id)
    if guild is None or fake.bot_user.id not in guild.members:
        raise not_found(UNKNOWN_GUILD, "Guild")
    return guild


def _overwrite_type(raw: Any) -> int:
    if raw in ("role", "0", 0):
        return OVERWRITE_ROLE
    if raw in ("member", "1", 1):
        return OVERWRITE_MEMBER
    raise invalid_form({"type": f"Value {raw!r} is not a valid overwrite type."})


def parse_overwrites(guild: Guild, raw: list[dict[str, Any]]) -> list[Overwrite]:
    result = []
    for i, item in enumerate(raw):
        target = int(item["id"])
        kind = _overwrite_type(item.get("type"))
        if (kind == OVERWRITE_ROLE and target not in guild.roles) or (
            kind == OVERWRITE_MEMBER and target not in guild.members
        ):
            raise invalid_form({f"permission_overwrites.{i}.id": "Role or member not found."})
        result.append(
            Overwrite(target, kind, int(item.get("allow") or 0), int(item.get("deny") or 0))
        )
    return result


def grantable(
    fake: FakeDiscord, guild: Guild, channel: Channel | None, parent: Channel | None
) -> int:
    """Bits the bot may put in overwrites: its own guild/parent permissions (Discord's rule)."""
    bot_id = fake.bot_user.id
    base = P.base_permissions(guild, bot_id)
    if base == P.ALL:
        return P.ALL
    if channel is not None and P.has_manage_roles_overwrite(guild, channel, bot_id):
        return P.ALL
    return P.channel_permissions(guild, parent, bot_id) if parent else base


def check_grants(
    fake: FakeDiscord, guild: Guild, overwrites: list[Overwrite], allowed: int
) -> None:
    admin = P.base_permissions(guild, fake.bot_user.id) == P.ALL
    for ow in overwrites:
        bits = ow.allow | ow.deny
        if bits & ~allowed or (bits & P.MANAGE_ROLES and not admin):
            raise missing_permissions()


def _parent(fake: FakeDiscord, guild: Guild, raw: Any) -> Channel | None:
    if raw in (None, ""):
        return None
    parent = fake.channels.get(int(raw))
    if (
        parent is None
        or parent.deleted
        or parent.guild_id != guild.id
        or parent.type != GUILD_CATEGORY
    ):
        raise invalid_form({"parent_id": "Category does not exist."})
    return parent


MAX_GUILD_CHANNELS = 500


def _children(fake: FakeDiscord, guild: Guild, category: Channel) -> int:
    return sum(1 for c in fake.guild_channels(guild) if c.parent_id == category.id)


async def create_channel(req: ApiRequest) -> Any:
    fake = req.fake
    guild = get_guild(fake, req.snowflake("guild_id"))
    body = req.body
    if not P.base_permissions(guild, fake.bot_user.id) & P.MANAGE_CHANNELS:
        raise missing_permissions()
    name = str(body.get("name") or "")
    if not 1 <= len(name) <= 100:
        raise invalid_form({"name": "Must be between 1 and 100 in length."})
    type_ = int(body.get("type") or 0)
    if type_ not in CREATABLE_TYPES:
        raise invalid_form({"type": f"Value must be one of {sorted(CREATABLE_TYPES)}."})
    if len(guild.channel_ids) >= MAX_GUILD_CHANNELS:  # categories count too, like Discord
        raise ApiError(400, 30013, f"Maximum number of guild channels reached ({MAX_GUILD_CHANNELS})")
    parent = _parent(fake, guild, body.get("parent_id"))
    if type_ == GUILD_CATEGORY and parent is not None:
        raise invalid_form({"parent_id": "Categories cannot have a parent."})
    if parent is not None and _children(fake, guild, parent) >= MAX_CHANNELS_IN_CATEGORY:
        raise invalid_form({"parent_id": "Maximum number of channels in category reached "
                                         f"({MAX_CHANNELS_IN_CATEGORY})"})
    overwrites = None
    if body.get("permission_overwrites") is not None:
        overwrites = parse_overwrites(guild, body["permission_overwrites"])
        allowed = P.base_permissions(guild, fake.bot_user.id)
        check_grants(fake, guild, overwrites, P.ALL if allowed == P.ALL else allowed)
    channel = fake.create_channel(
        guild,
        name,
        type_,
        parent=parent,
        overwrites=overwrites,
        topic=body.get("topic"),
        position=body.get("position"),
    )
    await fake.gateway.flush()
    return Created(payloads.channel(channel))  # Discord: 201 Created


async def get_channel_route(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    if channel.type != DM:
        require(fake, channel, 0)
    return payloads.channel(channel)


async def edit_channel(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    guild = fake.guild_of(channel)
    if guild is None:
        raise ApiError(403, 50003, "Cannot execute action on a DM channel")
    body = req.body
    if channel.is_thread:
        return await edit_thread(req, channel)
    require(fake, channel, P.MANAGE_CHANNELS)
    overwrites = None  # validated before anything changes
    if body.get("permission_overwrites") is not None:
        require(fake, channel, P.MANAGE_ROLES)
        overwrites = parse_overwrites(guild, body["permission_overwrites"])
        parent = fake.channels.get(channel.parent_id) if channel.parent_id else None
        check_grants(fake, guild, overwrites, grantable(fake, guild, channel, parent))
    if "name" in body:
        name = str(body["name"] or "")
        if not 1 <= len(name) <= 100:
            raise invalid_form({"name": "Must be between 1 and 100 in length."})
        channel.name = normalize_text_channel_name(name) if channel.type == GUILD_TEXT else name
    if "topic" in body:
        channel.topic = body["topic"]
    if "position" in body and body["position"] is not None:
        channel.position = int(body["position"])
    if "parent_id" in body:
        parent = _parent(fake, guild, body["parent_id"])
        channel.parent_id = parent.id if parent else None
        if body.get("lock_permissions") and parent is not None:
            channel.overwrites = [
                Overwrite(o.id, o.type, o.allow, o.deny) for o in parent.overwrites
            ]
    if overwrites is not None:
        channel.overwrites = overwrites
    fake.channel_changed(channel)
    await fake.gateway.flush()
    return payloads.channel(channel)


async def delete_channel(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    if channel.type == DM:
        return payloads.channel(channel)
    require(fake, channel, P.MANAGE_THREADS if channel.is_thread else P.MANAGE_CHANNELS)
    fake.delete_channel(channel)
    await fake.gateway.flush()
    return payloads.channel(channel)


async def put_overwrite(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    guild = fake.guild_of(channel)
    if guild is None:
        raise ApiError(403, 50003, "Cannot execute action on a DM channel")
    require(fake, channel, P.MANAGE_ROLES)
    body = req.body
    [overwrite] = parse_overwrites(
        guild,
        [
            {
                "id": req.params["overwrite_id"],
                "type": body.get("type"),
                "allow": body.get("allow"),
                "deny": body.get("deny"),
            }
        ],
    )
    parent = fake.channels.get(channel.parent_id) if channel.parent_id else None
    check_grants(fake, guild, [overwrite], grantable(fake, guild, channel, parent))
    fake.put_overwrite(channel, overwrite)
    await fake.gateway.flush()
    return None


async def delete_overwrite(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    require(fake, channel, P.MANAGE_ROLES)
    target = req.snowflake("overwrite_id")
    if channel.overwrite_for(target) is None:
        raise not_found(UNKNOWN_OVERWRITE, "Overwrite")
    channel.overwrites = [o for o in channel.overwrites if o.id != target]
    fake.channel_changed(channel)
    await fake.gateway.flush()
    return None


async def get_guild_route(req: ApiRequest) -> Any:
    guild = get_guild(req.fake, req.snowflake("guild_id"))
    data = payloads.guild(guild)
    if req.query.get("with_counts") in ("true", "1", "True"):
        data.update(approximate_member_count=len(guild.members), approximate_presence_count=0)
    return data


async def guild_channels(req: ApiRequest) -> Any:
    fake = req.fake
    guild = get_guild(fake, req.snowflake("guild_id"))
    return [payloads.channel(c) for c in fake.guild_channels(guild)]


async def guild_roles(req: ApiRequest) -> Any:
    guild = get_guild(req.fake, req.snowflake("guild_id"))
    return [payloads.role(r) for r in sorted(guild.roles.values(), key=lambda r: r.position)]


def _top_position(guild: Guild, user_id: int) -> int:
    member = guild.members.get(user_id)
    if member is None:
        return 0
    return max((guild.roles[r].position for r in member.role_ids if r in guild.roles), default=0)


def _check_role_manageable(fake: FakeDiscord, guild: Guild, role_id: int) -> None:
    if not P.base_permissions(guild, fake.bot_user.id) & P.MANAGE_ROLES:
        raise missing_permissions()
    role = guild.roles.get(role_id)
    if role is None:
        raise not_found(UNKNOWN_ROLE, "Role")
    if guild.owner_id != fake.bot_user.id and role.position >= _top_position(
        guild, fake.bot_user.id
    ):
        raise missing_permissions()


async def create_role(req: ApiRequest) -> Any:
    fake = req.fake
    guild = get_guild(fake, req.snowflake("guild_id"))
    if not P.base_permissions(guild, fake.bot_user.id) & P.MANAGE_ROLES:
        raise missing_permissions()
    body = req.body
    role = fake.add_role(
        guild,
        str(body.get("name") or "new role"),
        permissions=int(body.get("permissions") or 0),
        mentionable=bool(body.get("mentionable")),
        hoist=bool(body.get("hoist")),
    )
    await fake.gateway.flush()
    return payloads.role(role)


async def edit_role(req: ApiRequest) -> Any:
    fake = req.fake
    guild = get_guild(fake, req.snowflake("guild_id"))
    role_id = req.snowflake("role_id")
    _check_role_manageable(fake, guild, role_id)
    role = guild.roles[role_id]
    body = req.body
    if "name" in body:
        role.name = str(body["name"])
    if "mentionable" in body:
        role.mentionable = bool(body["mentionable"])
    if "hoist" in body:
        role.hoist = bool(body["hoist"])
    if body.get("permissions") is not None:
        fake.set_role_permissions(role, int(body["permissions"]))
    else:
        fake.set_role_permissions(role, role.permissions)
    await fake.gateway.flush()
    return payloads.role(role)


async def delete_role(req: ApiRequest) -> Any:
    fake = req.fake
    guild = get_guild(fake, req.snowflake("guild_id"))
    role_id = req.snowflake("role_id")
    _check_role_manageable(fake, guild, role_id)
    del guild.roles[role_id]
    for member in guild.members.values():
        if role_id in member.role_ids:
            member.role_ids.remove(role_id)
    fake.dispatch("GUILD_ROLE_DELETE", {"guild_id": str(guild.id), "role_id": str(role_id)})
    fake.notify()
    await fake.gateway.flush()
    return None


async def get_member(req: ApiRequest) -> Any:
    guild = get_guild(req.fake, req.snowflake("guild_id"))
    member = guild.members.get(req.snowflake("user_id"))
    if member is None:
        raise not_found(UNKNOWN_MEMBER, "Member")
    return payloads.member(member)


async def list_members(req: ApiRequest) -> Any:
    guild = get_guild(req.fake, req.snowflake("guild_id"))
    limit = int(req.query.get("limit", 1))
    after = int(req.query.get("after", 0))
    members = sorted(guild.members.values(), key=lambda m: m.user.id)
    return [payloads.member(m) for m in members if m.user.id > after][:limit]


async def edit_member(req: ApiRequest) -> Any:
    fake = req.fake
    guild = get_guild(fake, req.snowflake("guild_id"))
    member = guild.members.get(req.snowflake("user_id"))
    if member is None:
        raise not_found(UNKNOWN_MEMBER, "Member")
    body = req.body
    if body.get("roles") is not None:
        new = [int(r) for r in body["roles"]]
        for role_id in set(new) ^ set(member.role_ids):
            _check_role_manageable(fake, guild, role_id)
        member.role_ids = new
    if "nick" in body:
        if not P.base_permissions(guild, fake.bot_user.id) & P.MANAGE_NICKNAMES:
            raise missing_permissions()
        member.nick = body["nick"]
    fake._dispatch_member_update(guild, member)
    await fake.gateway.flush()
    return payloads.member(member)


async def member_role(req: ApiRequest) -> Any:
    fake = req.fake
    guild = get_guild(fake, req.snowflake("guild_id"))
    member = guild.members.get(req.snowflake("user_id"))
    if member is None:
        raise not_found(UNKNOWN_MEMBER, "Member")
    role_id = req.snowflake("role_id")
    _check_role_manageable(fake, guild, role_id)
    if req.method == "PUT" and role_id not in member.role_ids:
        member.role_ids.append(role_id)
    elif req.method == "DELETE" and role_id in member.role_ids:
        member.role_ids.remove(role_id)
    fake._dispatch_member_update(guild, member)
    await fake.gateway.flush()
    return None


async def open_dm(req: ApiRequest) -> Any:
    fake = req.fake
    user = fake.users.get(int(req.body.get("recipient_id", 0)))
    if user is None or user.id == fake.bot_user.id:
        raise not_found(UNKNOWN_USER, "User")
    return payloads.channel(fake.dm_channel(user))


# -- threads ---------------------------------------------------------------------------------
THREAD_NAME_MAX = 100


def _thread_name(raw: Any) -> str:
    name = str(raw or "")
    if not 1 <= len(name) <= THREAD_NAME_MAX:
        raise invalid_form({"name": f"Must be between 1 and {THREAD_NAME_MAX} in length."})
    return name


def _archive_duration(raw: Any) -> int:
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = -1
    if value not in THREAD_ARCHIVE_DURATIONS:
        raise invalid_form({"auto_archive_duration": "Value must be one of "
                                                     f"{list(THREAD_ARCHIVE_DURATIONS)}."})
    return value


def get_thread(fake: FakeDiscord, channel_id: int) -> Channel:
    thread = get_channel(fake, channel_id)
    if not thread.is_thread:
        raise ApiError(400, 50024, "Cannot execute action on this channel type")
    return thread


async def start_thread(req: ApiRequest) -> Any:
    """POST /channels/{id}/threads without a message: a public (11) or private (12) thread in
    a text channel. Private threads take CREATE_PRIVATE_THREADS (any server may have them)."""
    fake = req.fake
    parent = get_channel(fake, req.snowflake("channel_id"))
    guild = fake.guild_of(parent)
    if guild is None:
        raise ApiError(403, 50003, "Cannot execute action on a DM channel")
    body = req.body
    type_ = int(body.get("type") if body.get("type") is not None else PRIVATE_THREAD)
    if type_ not in (PUBLIC_THREAD, PRIVATE_THREAD):
        raise invalid_form({"type": "Value must be one of [11, 12]."})
    if parent.type != GUILD_TEXT:  # private threads only in text channels (not news, forums)
        raise ApiError(400, 50024, "Cannot execute action on this channel type")
    name = _thread_name(body.get("name"))
    duration = _archive_duration(body.get("auto_archive_duration", 4320))
    invitable = body.get("invitable", True)
    if not isinstance(invitable, bool):
        raise invalid_form({"invitable": "Must be a boolean."})
    needed = P.CREATE_PRIVATE_THREADS if type_ == PRIVATE_THREAD else P.CREATE_PUBLIC_THREADS
    require(fake, parent, needed | P.SEND_MESSAGES_IN_THREADS)
    thread = fake.create_thread(parent, name, type_, owner=fake.bot_user, invitable=invitable,
                                auto_archive_duration=duration)
    await fake.gateway.flush()
    return Created(payloads.thread(thread, member_id=fake.bot_user.id))  # 201, as Discord


def _thread_user(req: ApiRequest) -> int:
    raw = req.params["user_id"]
    return req.fake.bot_user.id if raw == "@me" else req.snowflake("user_id")


async def add_thread_member(req: ApiRequest) -> Any:
    """PUT /channels/{thread}/thread-members/{user|@me}: needs to write in the (unarchived)
    thread; a private thread that is not invitable takes MANAGE_THREADS to add others."""
    fake = req.fake
    thread = get_thread(fake, req.snowflake("channel_id"))
    guild = fake.guild_of(thread)
    assert guild is not None
    uid = _thread_user(req)
    if uid not in guild.members:
        raise not_found(UNKNOWN_MEMBER, "Member")
    if thread.archived:
        raise ApiError(400, THREAD_ARCHIVED, "Thread is archived")
    if uid == fake.bot_user.id:
        require(fake, thread, 0)
    else:
        perms = require(fake, thread, P.SEND_MESSAGES)
        if thread.type == PRIVATE_THREAD and not thread.invitable and \
                not perms & P.MANAGE_THREADS:
            raise missing_permissions()
    fake.add_thread_member(thread, uid)
    await fake.gateway.flush()
    return None


async def remove_thread_member(req: ApiRequest) -> Any:
    fake = req.fake
    thread = get_thread(fake, req.snowflake("channel_id"))
    uid = _thread_user(req)
    if thread.archived:
        raise ApiError(400, THREAD_ARCHIVED, "Thread is archived")
    if uid != fake.bot_user.id:
        perms = require(fake, thread, 0)
        if not perms & P.MANAGE_THREADS and thread.owner_id != fake.bot_user.id:
            raise missing_permissions()
    if uid not in thread.member_ids:
        raise not_found(UNKNOWN_THREAD_MEMBER, "Thread Member")  # Discord: 10067
    fake.remove_thread_member(thread, uid)
    await fake.gateway.flush()
    return None


async def thread_members(req: ApiRequest) -> Any:
    fake = req.fake
    thread = get_thread(fake, req.snowflake("channel_id"))
    require(fake, thread, 0)
    return [payloads.thread_member(thread, uid) for uid in thread.member_ids]


async def edit_thread(req: ApiRequest, thread: Channel) -> Any:
    """PATCH a thread: its owner may rename, archive and unarchive it (unless locked); locking,
    `invitable` and anything on a locked thread take MANAGE_THREADS. Validated before any
    change."""
    fake = req.fake
    body = req.body
    perms = require(fake, thread, 0)
    moderator = bool(perms & P.MANAGE_THREADS)
    owner = thread.owner_id == fake.bot_user.id
    allowed = {"name", "archived", "locked", "invitable", "auto_archive_duration",
               "rate_limit_per_user", "flags", "applied_tags"}
    unknown = set(body) - allowed
    if unknown:
        raise invalid_form({k: "Not a field of a thread." for k in sorted(unknown)})
    if ("locked" in body or "invitable" in body or thread.locked) and not moderator:
        raise missing_permissions()
    if not (moderator or owner):
        raise missing_permissions()
    if "invitable" in body and thread.type != PRIVATE_THREAD:
        raise invalid_form({"invitable": "Only private threads are invitable or not."})
    for key in ("archived", "locked", "invitable"):
        if key in body and not isinstance(body[key], bool):
            raise invalid_form({key: "Must be a boolean."})
    name = _thread_name(body["name"]) if "name" in body else None
    duration = _archive_duration(body["auto_archive_duration"]) \
        if "auto_archive_duration" in body else None
    if thread.archived and body.get("archived") is not False and \
            (name is not None or duration is not None):
        raise ApiError(400, THREAD_ARCHIVED, "Thread is archived")
    if name is not None:
        thread.name = name
    if duration is not None:
        thread.auto_archive_duration = duration
    if "invitable" in body:
        thread.invitable = body["invitable"]
    if "locked" in body:
        thread.locked = body["locked"]
    if "archived" in body and body["archived"] != thread.archived:
        thread.archived = body["archived"]
        thread.archive_timestamp = dt.datetime.now(dt.UTC)
    fake.thread_changed(thread)
    await fake.gateway.flush()
    return payloads.thread(thread, member_id=fake.bot_user.id)


def register(router: Router) -> None:
    router.add("POST", "/channels/{channel_id}/threads", start_thread)
    router.add("GET", "/channels/{channel_id}/thread-members", thread_members)
    router.add("PUT", "/channels/{channel_id}/thread-members/{user_id}", add_thread_member)
    router.add("DELETE", "/channels/{channel_id}/thread-members/{user_id}", remove_thread_member)
    router.add("GET", "/guilds/{guild_id}", get_guild_route)
    router.add("GET", "/guilds/{guild_id}/channels", guild_channels)
    router.add("POST", "/guilds/{guild_id}/channels", create_channel)
    router.add("GET", "/guilds/{guild_id}/roles", guild_roles)
    router.add("POST", "/guilds/{guild_id}/roles", create_role)
    router.add("PATCH", "/guilds/{guild_id}/roles/{role_id}", edit_role)
    router.add("DELETE", "/guilds/{guild_id}/roles/{role_id}", delete_role)
    router.add("GET", "/guilds/{guild_id}/members", list_members)
    router.add("GET", "/guilds/{guild_id}/members/{user_id}", get_member)
    router.add("PATCH", "/guilds/{guild_id}/members/{user_id}", edit_member)
    router.add("PUT", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", member_role)
    router.add("DELETE", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", member_role)
    router.add("GET", "/channels/{channel_id}", get_channel_route)
    router.add("PATCH", "/channels/{channel_id}", edit_channel)
    router.add("DELETE", "/channels/{channel_id}", delete_channel)
    router.add("PUT", "/channels/{channel_id}/permissions/{overwrite_id}", put_overwrite)
    router.add("DELETE", "/channels/{channel_id}/permissions/{overwrite_id}", delete_overwrite)
    router.add("POST", "/users/@me/channels", open_dm)
