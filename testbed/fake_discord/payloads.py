"""Render model objects as Discord API v10 JSON payloads (snowflakes as strings)."""

from __future__ import annotations

from typing import Any

from .ids import iso
from .models import (
    DM,
    GUILD_CATEGORY,
    Attachment,
    Channel,
    Guild,
    Member,
    Message,
    Role,
    User,
)


def user(u: User) -> dict[str, Any]:
    return {
        "id": str(u.id),
        "username": u.username,
        "discriminator": "0",
        "global_name": u.global_name,
        "avatar": None,
        "avatar_decoration_data": None,
        "banner": None,
        "accent_color": None,
        "bot": u.bot,
        "system": False,
        "public_flags": 0,
        "flags": 0,
        "primary_guild": None,
        "collectibles": None,
    }


def client_user(u: User) -> dict[str, Any]:
    return {
        **user(u),
        "verified": True,
        "mfa_enabled": False,
        "locale": "en-US",
        "email": None,
    }


def member(m: Member, *, with_user: bool = True, permissions: int | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "roles": [str(r) for r in m.role_ids],
        "nick": m.nick,
        "avatar": None,
        "banner": None,
        "joined_at": iso(m.joined_at),
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "pending": False,
        "flags": 0,
        "communication_disabled_until": None,
    }
    if with_user:
        data["user"] = user(m.user)
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def role(r: Role) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(r.id),
        "name": r.name,
        "color": r.color,
        "colors": {"primary_color": r.color, "secondary_color": None, "tertiary_color": None},
        "hoist": r.hoist,
        "icon": None,
        "unicode_emoji": None,
        "position": r.position,
        "permissions": str(r.permissions),
        "managed": r.managed,
        "mentionable": r.mentionable,
        "flags": 0,
    }
    if r.bot_id is not None:
        data["tags"] = {"bot_id": str(r.bot_id)}
    return data


def channel(c: Channel, *, permissions: int | None = None) -> dict[str, Any]:
    if c.is_thread:
        return thread(c)
    if c.type == DM:
        assert c.recipient is not None
        return {
            "id": str(c.id),
            "type": DM,
            "last_message_id": str(c.last_message_id) if c.last_message_id else None,
            "recipients": [user(c.recipient)],
            "flags": 0,
        }
    data: dict[str, Any] = {
        "id": str(c.id),
        "type": c.type,
        "guild_id": str(c.guild_id),
        "name": c.name,
        "position": c.position,
        "parent_id": str(c.parent_id) if c.parent_id else None,
        "permission_overwrites": [
            {"id": str(o.id), "type": o.type, "allow": str(o.allow), "deny": str(o.deny)}
            for o in c.overwrites
        ],
        "nsfw": False,
        "flags": 0,
    }
    if c.type != GUILD_CATEGORY:
        data.update(
            topic=c.topic,
            last_message_id=str(c.last_message_id) if c.last_message_id else None,
            rate_limit_per_user=0,
        )
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def thread_member(t: Channel, user_id: int) -> dict[str, Any]:
    return {"id": str(t.id), "user_id": str(user_id), "join_timestamp": iso(t.member_ids[user_id]),
            "flags": 0}


def thread(t: Channel, *, member_id: int | None = None) -> dict[str, Any]:
    """A thread channel (types 11/12), with `member` when ``member_id`` (the bot) is in it."""
    data: dict[str, Any] = {
        "id": str(t.id),
        "guild_id": str(t.guild_id),
        "parent_id": str(t.parent_id),
        "owner_id": str(t.owner_id),
        "name": t.name,
        "type": t.type,
        "last_message_id": str(t.last_message_id) if t.last_message_id else None,
        "message_count": t.message_count,
        "total_message_sent": t.message_count,
        "member_count": len(t.member_ids),
        "rate_limit_per_user": 0,
        "flags": 0,
        "thread_metadata": {
            "archived": t.archived,
            "auto_archive_duration": t.auto_archive_duration,
            "archive_timestamp": iso(t.archive_timestamp),
            "locked": t.locked,
            "create_timestamp": iso(t.created_at),
            **({"invitable": t.invitable} if t.type == 12 else {}),
        },
    }
    if member_id is not None and member_id in t.member_ids:
        data["member"] = thread_member(t, member_id)
    return data


def attachment(a: Attachment) -> dict[str, Any]:
    return {
        "id": str(a.id),
        "filename": a.filename,
        "size": a.size,
        "url": a.url,
        "proxy_url": a.url,
        "content_type": a.content_type,
        "flags": 0,
        **({"description": a.description} if a.description is not None else {}),
    }


def message(m: Message) -> dict[str, Any]:
    """REST shape (no guild_id / member; the gateway adds those)."""
    data: dict[str, Any] = {
        "id": str(m.id),
        "channel_id": str(m.channel_id),
        "type": m.type,
        "author": user(m.author),
        "content": m.content,
        "timestamp": iso(m.timestamp),
        "edited_timestamp": iso(m.edited_timestamp) if m.edited_timestamp else None,
        "tts": m.tts,
        "mention_everyone": "@everyone" in m.content,
        "mentions": [user(u) for u in m.mentions],
        "mention_roles": [str(r) for r in m.mention_role_ids],
        "attachments": [attachment(a) for a in m.attachments],
        "embeds": m.embeds,
        "pinned": False,
        "flags": m.flags,
        "components": m.components,
        "reactions": [],
    }
    if m.nonce is not None:
        data["nonce"] = m.nonce
    if m.webhook_id is not None:
        data["webhook_id"] = str(m.webhook_id)
    if m.application_id is not None:
        data["application_id"] = str(m.application_id)
    if m.interaction_metadata is not None:
        data["interaction_metadata"] = m.interaction_metadata
    if m.message_reference is not None:
        data["message_reference"] = m.message_reference
    return data


def guild(g: Guild) -> dict[str, Any]:
    """REST GET /guilds/{id} shape."""
    return {
        "id": str(g.id),
        "name": g.name,
        "icon": None,
        "icon_hash": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(g.owner_id),
        "home_header": None,
        "region": "deprecated",
        "afk_channel_id": None,
        "afk_timeout": 300,
        "widget_enabled": False,
        "widget_channel_id": None,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [role(r) for r in sorted(g.roles.values(), key=lambda r: r.position)],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "application_id": None,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "max_presences": None,
        "max_members": 500000,
        "max_video_channel_users": 25,
        "max_stage_video_channel_users": 50,
        "vanity_url_code": None,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": "en-US",
        "nsfw": False,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "incidents_data": None,
    }
