"""REST: channel messages (send with nonce dedupe and files, fetch, history, edit, delete)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import payloads
from . import permissions as P
from .errors import (
    CANNOT_EDIT_OTHERS_MESSAGE,
    CANNOT_SEND_TO_USER,
    UNKNOWN_CHANNEL,
    UNKNOWN_MESSAGE,
    ApiError,
    missing_access,
    missing_permissions,
    not_found,
)
from .models import DM, GUILD_CATEGORY, Attachment, Channel, Message
from .router import ApiRequest, Router, UploadedFile
from .validation import validate_message

if TYPE_CHECKING:
    from .server import FakeDiscord

EDITABLE_FLAGS = 1 << 2  # SUPPRESS_EMBEDS


def get_channel(fake: FakeDiscord, channel_id: int) -> Channel:
    channel = fake.channels.get(channel_id)
    if channel is None or channel.deleted:
        raise not_found(UNKNOWN_CHANNEL, "Channel")
    return channel


def require(fake: FakeDiscord, channel: Channel, needed: int) -> int:
    """The bot's permissions in ``channel``; 50001 without VIEW_CHANNEL, 50013 if ``needed`` is missing."""
    perms = fake.permissions_for(fake.bot_user, channel)
    if not perms & P.VIEW_CHANNEL:
        raise missing_access()
    if perms & needed != needed:
        raise missing_permissions()
    return perms


def make_attachments(
    fake: FakeDiscord,
    channel_id: int,
    body: dict[str, Any],
    files: list[UploadedFile],
    existing: list[Attachment] | None = None,
) -> list[Attachment] | None:
    """New uploads plus kept existing attachments; None when the body does not touch attachments."""
    if not files and "attachments" not in body:
        return None
    by_index = {f.index: f for f in files}
    described = {str(a.get("id")): a for a in body.get("attachments") or []}
    kept = [a for a in existing or [] if str(a.id) in described]
    new: list[Attachment] = []
    for index, upload in sorted(by_index.items()):
        meta = described.get(str(index), {})
        filename = meta.get("filename") or upload.filename
        att_id = fake.ids.next()
        new.append(
            Attachment(
                id=att_id,
                filename=filename,
                data=upload.data,
                content_type=upload.content_type,
                url=f"{fake.http_root}/attachments/{channel_id}/{att_id}/{filename}",
                description=meta.get("description"),
            )
        )
    return kept + new


def message_fields(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "content": body.get("content"),
        "components": body.get("components"),
        "embeds": body.get("embeds"),
    }


async def create_message(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    body = req.body
    if channel.type == GUILD_CATEGORY:
        raise ApiError(400, 50008, "Cannot send messages in a non-text channel")
    if fake.is_unreachable(channel):
        raise missing_access()
    if channel.type == DM:
        if channel.recipient is None or channel.recipient.id in fake.closed_dms:
            raise ApiError(403, CANNOT_SEND_TO_USER, "Cannot send messages to this user")
    else:
        needed = P.SEND_MESSAGES | (P.ATTACH_FILES if req.files else 0)
        if body.get("message_reference"):
            needed |= P.READ_MESSAGE_HISTORY
        require(fake, channel, needed)
        if channel.is_thread and channel.archived and channel.locked:
            raise ApiError(400, 50083, "Thread is archived")
    validate_message(body, has_files=bool(req.files))
    nonce = body.get("nonce")
    nonce = str(nonce) if nonce is not None else None
    enforce = bool(body.get("enforce_nonce"))
    if nonce is not None and enforce:
        existing = fake.find_nonce(channel, fake.bot_user, nonce)
        if existing is not None:
            return payloads.message(existing)
    reference = body.get("message_reference")
    if reference:
        ref_id = int(reference.get("message_id", 0))
        target = fake.get_message(ref_id)
        if target is None or target.deleted:
            if reference.get("fail_if_not_exists", True):
                raise ApiError(
                    400,
                    50035,
                    "Invalid Form Body",
                    {
                        "message_reference": {
                            "_errors": [
                                {
                                    "code": "MESSAGE_REFERENCE_UNKNOWN_MESSAGE",
                                    "message": "Unknown message",
                                }
                            ]
                        }
                    },
                )
            reference = None
        else:
            reference = {"type": 0, "message_id": str(ref_id), "channel_id": str(target.channel_id)}
            if target.guild_id:
                reference["guild_id"] = str(target.guild_id)
    message = fake.create_message(
        channel,
        fake.bot_user,
        body.get("content") or "",
        components=body.get("components"),
        embeds=body.get("embeds"),
        attachments=make_attachments(fake, channel.id, body, req.files),
        flags=int(body.get("flags") or 0) & ~(1 << 6),  # channel messages cannot be ephemeral
        nonce=nonce,
        enforce_nonce=enforce,
        type_=19 if reference else 0,
        message_reference=reference,
    )
    await fake.gateway.flush()
    return payloads.message(message)


def get_message(fake: FakeDiscord, channel: Channel, message_id: int) -> Message:
    message = fake.get_message(message_id)
    if message is None or message.deleted or message.channel_id != channel.id or message.ephemeral:
        raise not_found(UNKNOWN_MESSAGE, "Message")
    return message


def stored(message: Message) -> dict[str, Any]:
    """A message as read back (fetch, history): Discord does not keep the nonce, which only
    the create answer and the MESSAGE_CREATE event carry."""
    data = payloads.message(message)
    data.pop("nonce", None)
    return data


async def fetch_message(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    if channel.type != DM:
        require(fake, channel, P.READ_MESSAGE_HISTORY)
    return stored(get_message(fake, channel, req.snowflake("message_id")))


async def history(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    if channel.type != DM:
        require(fake, channel, P.READ_MESSAGE_HISTORY)
    limit = min(int(req.query.get("limit", 50)), 100)
    messages = fake.messages(channel)
    if "before" in req.query:
        messages = [m for m in messages if m.id < int(req.query["before"])]
    if "after" in req.query:
        after = [m for m in messages if m.id > int(req.query["after"])]
        return [stored(m) for m in reversed(after[:limit])]
    if "around" in req.query:
        around = int(req.query["around"])
        older = [m for m in messages if m.id <= around][-(limit // 2 + 1) :]
        newer = [m for m in messages if m.id > around][: limit - len(older)]
        return [stored(m) for m in reversed(older + newer)]
    return [stored(m) for m in reversed(messages[-limit:])]


async def edit_message(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    message = get_message(fake, channel, req.snowflake("message_id"))
    if message.author.id != fake.bot_user.id:
        raise ApiError(
            403, CANNOT_EDIT_OTHERS_MESSAGE, "Cannot edit a message authored by another user"
        )
    body = req.body
    validate_message(body, has_files=bool(req.files), editing=True)
    changes = message_fields(body)
    if "flags" in body and body["flags"] is not None:
        changes["flags"] = (message.flags & ~EDITABLE_FLAGS) | (int(body["flags"]) & EDITABLE_FLAGS)
    changes["attachments"] = make_attachments(
        fake, channel.id, body, req.files, message.attachments
    )
    fake.edit_message(message, changes)
    await fake.gateway.flush()
    return payloads.message(message)


async def delete_message(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    message = get_message(fake, channel, req.snowflake("message_id"))
    if message.author.id != fake.bot_user.id:
        if channel.type == DM:
            raise ApiError(403, 50003, "Cannot execute action on a DM channel")
        require(fake, channel, P.MANAGE_MESSAGES)
    fake.delete_message(message)
    await fake.gateway.flush()
    return None


async def typing(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    if channel.type != DM:
        require(fake, channel, P.SEND_MESSAGES)
    return None


async def react(req: ApiRequest) -> Any:
    fake = req.fake
    channel = get_channel(fake, req.snowflake("channel_id"))
    get_message(fake, channel, req.snowflake("message_id"))
    if channel.type != DM:
        require(fake, channel, P.ADD_REACTIONS | P.READ_MESSAGE_HISTORY)
    return None


def register(router: Router) -> None:
    router.add("POST", "/channels/{channel_id}/messages", create_message)
    router.add("GET", "/channels/{channel_id}/messages", history)
    router.add("GET", "/channels/{channel_id}/messages/{message_id}", fetch_message)
    router.add("PATCH", "/channels/{channel_id}/messages/{message_id}", edit_message)
    router.add("DELETE", "/channels/{channel_id}/messages/{message_id}", delete_message)
    router.add("POST", "/channels/{channel_id}/typing", typing)
    router.add("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", react)
    router.add(
        "DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", react
    )
