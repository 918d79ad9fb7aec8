"""Discord permission bits and the channel permission algorithm (as documented by Discord)."""

from __future__ import annotations

from collections.abc import Iterable

from .models import OVERWRITE_MEMBER, OVERWRITE_ROLE, Channel, Guild

CREATE_INSTANT_INVITE = 1 << 0
KICK_MEMBERS = 1 << 1
BAN_MEMBERS = 1 << 2
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_AUDIT_LOG = 1 << 7
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CONNECT = 1 << 20
SPEAK = 1 << 21
CHANGE_NICKNAME = 1 << 26
MANAGE_NICKNAMES = 1 << 27
MANAGE_ROLES = 1 << 28
MANAGE_WEBHOOKS = 1 << 29
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38

ALL = (1 << 51) - 1

DEFAULT_EVERYONE = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | MENTION_EVERYONE
    | USE_EXTERNAL_EMOJIS
    | CONNECT
    | SPEAK
    | CHANGE_NICKNAME
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
)

DEFAULT_BOT = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | SEND_MESSAGES_IN_THREADS
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | MANAGE_MESSAGES
    | MANAGE_CHANNELS
    | MANAGE_ROLES
    | USE_APPLICATION_COMMANDS
)

#: A bot that may also keep match tables as private threads (create them, add the player,
#: lock and delete them).
THREADS_BOT = DEFAULT_BOT | CREATE_PRIVATE_THREADS | MANAGE_THREADS

DM_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | READ_MESSAGE_HISTORY
    | EMBED_LINKS
    | ATTACH_FILES
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
)


def as_int(value: int | object) -> int:
    """Accept plain ints or anything with an int ``.value`` (e.g. discord.Permissions)."""
    if isinstance(value, int):
        return value
    inner = getattr(value, "value", None)
    if isinstance(inner, int):
        return inner
    raise TypeError(f"not a permission bitfield: {value!r}")


def base_permissions(guild: Guild, user_id: int) -> int:
    """Guild-level permissions: owner and ADMINISTRATOR short-circuit to everything."""
    if user_id == guild.owner_id:
        return ALL
    member = guild.members.get(user_id)
    perms = guild.everyone.permissions
    if member is None:
        return 0
    for role_id in member.role_ids:
        role = guild.roles.get(role_id)
        if role is not None:
            perms |= role.permissions
    if perms & ADMINISTRATOR:
        return ALL
    return perms


def _apply_overwrites(guild: Guild, user_id: int, overwrites: Iterable, base: int) -> int:
    overwrites = list(overwrites)
    perms = base
    everyone = next((o for o in overwrites if o.type == OVERWRITE_ROLE and o.id == guild.id), None)
    if everyone is not None:
        perms &= ~everyone.deny
        perms |= everyone.allow
    member = guild.members.get(user_id)
    role_ids = set(member.role_ids) if member else set()
    allow = deny = 0
    for ow in overwrites:
        if ow.type == OVERWRITE_ROLE and ow.id in role_ids:
            allow |= ow.allow
            deny |= ow.deny
    perms &= ~deny
    perms |= allow
    own = next((o for o in overwrites if o.type == OVERWRITE_MEMBER and o.id == user_id), None)
    if own is not None:
        perms &= ~own.deny
        perms |= own.allow
    return perms


def channel_permissions(guild: Guild, channel: Channel, user_id: int) -> int:
    """Permissions of ``user_id`` in ``channel``; no VIEW_CHANNEL means no permissions at all."""
    base = base_permissions(guild, user_id)
    if base & ADMINISTRATOR or base == ALL:
        return ALL
    perms = _apply_overwrites(guild, user_id, channel.overwrites, base)
    if not perms & VIEW_CHANNEL:
        return 0
    return perms


def has_manage_roles_overwrite(guild: Guild, channel: Channel, user_id: int) -> bool:
    """Discord lets a member with an explicit MANAGE_ROLES overwrite set any overwrite bits."""
    member = guild.members.get(user_id)
    role_ids = set(member.role_ids) if member else set()
    for ow in channel.overwrites:
        targeted = (ow.type == OVERWRITE_MEMBER and ow.id == user_id) or (
            ow.type == OVERWRITE_ROLE and ow.id in role_ids
        )
        if targeted and ow.allow & MANAGE_ROLES:
            return True
    return False
