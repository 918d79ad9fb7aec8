"""REST: guilds, channels, permission overwrites, roles, members and DM channels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import payloads
from . import permissions as P
from .errors import (
    UNKNOWN_GUILD,
    UNKNOWN_MEMBER,
    UNKNOWN_OVERWRITE,
    UNKNOWN_ROLE,
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
    Channel,
    Guild,
    Overwrite,
)
from .rest_messages import get_channel, require
from .router import ApiRequest, Router
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
    return payloads.channel(channel)


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
    require(fake, channel, P.MANAGE_CHANNELS)
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


def register(router: Router) -> None:
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
