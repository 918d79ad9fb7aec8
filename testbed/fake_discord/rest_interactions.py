"""REST: interaction callbacks and the interaction webhook (follow-ups, @original)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from . import payloads
from .errors import (
    ALREADY_ACKNOWLEDGED,
    UNKNOWN_INTERACTION,
    UNKNOWN_MESSAGE,
    UNKNOWN_WEBHOOK,
    ApiError,
    invalid_form,
    not_found,
)
from .models import FLAG_EPHEMERAL, FLAG_LOADING, Interaction, InteractionResponse, Message
from .rest_messages import make_attachments, message_fields
from .router import ApiRequest, Router
from .validation import validate_message, validate_modal

if TYPE_CHECKING:
    from .server import FakeDiscord

# Interaction types
APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5
# Callback types
PONG, MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = (
    1,
    4,
    5,
    6,
    7,
    8,
    9,
)
TOKEN_TTL_SECONDS = 15 * 60


def _metadata(inter: Interaction) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "id": str(inter.id),
        "type": inter.type,
        "user": payloads.user(inter.user),
        "authorizing_integration_owners": inter.payload.get("authorizing_integration_owners", {}),
    }
    if inter.type == APPLICATION_COMMAND:
        meta["name"] = inter.data.get("name")
        meta["command_type"] = inter.data.get("type", 1)
    if inter.type == MODAL_SUBMIT and inter.opened_by is not None:
        meta["triggering_interaction_metadata"] = _metadata(inter.opened_by)
    elif inter.message is not None:
        meta["interacted_message_id"] = str(inter.message.id)
    return meta


def _new_response_message(
    req: ApiRequest, inter: Interaction, data: dict[str, Any], *, loading: bool = False
) -> Message:
    fake = req.fake
    flags = int(data.get("flags") or 0)
    if loading:
        flags = (flags & FLAG_EPHEMERAL) | FLAG_LOADING
    return fake.create_message(
        inter.channel,
        fake.bot_user,
        "" if loading else data.get("content") or "",
        components=None if loading else data.get("components"),
        embeds=None if loading else data.get("embeds"),
        attachments=None if loading else make_attachments(fake, inter.channel.id, data, req.files),
        flags=flags,
        type_=20 if inter.type == APPLICATION_COMMAND else 0,
        webhook_id=fake.application_id,
        interaction_metadata=_metadata(inter),
        visible_to=inter.user.id if flags & FLAG_EPHEMERAL else None,
    )


async def callback(req: ApiRequest) -> Any:
    fake = req.fake
    inter = fake.interactions.get(req.snowflake("interaction_id"))
    if inter is None or inter.token != req.params["token"]:
        raise not_found(UNKNOWN_INTERACTION, "interaction")
    if time.monotonic() - inter.created_monotonic > fake.interaction_timeout:
        raise not_found(UNKNOWN_INTERACTION, "interaction")  # Discord's 3 second rule
    if inter.responses:
        raise ApiError(400, ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged.")
    body = req.body
    rtype = int(body.get("type", 0))
    data = body.get("data") or {}
    is_component = inter.type == MESSAGE_COMPONENT or (inter.type == MODAL_SUBMIT and inter.message)
    allowed = {
        APPLICATION_COMMAND: {MESSAGE, DEFERRED_MESSAGE, MODAL},
        MESSAGE_COMPONENT: {MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL},
        AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
        MODAL_SUBMIT: {MESSAGE, DEFERRED_MESSAGE}
        | ({DEFERRED_UPDATE, UPDATE_MESSAGE} if is_component else set()),
    }[inter.type]
    if rtype not in allowed:
        raise invalid_form({"type": f"Interaction response type {rtype} is not valid here."})

    message: Message | None = None
    if rtype == MESSAGE:
        validate_message(data, has_files=bool(req.files))
        message = inter.original = _new_response_message(req, inter, data)
    elif rtype == DEFERRED_MESSAGE:
        message = inter.original = _new_response_message(req, inter, data, loading=True)
    elif rtype == UPDATE_MESSAGE:
        assert inter.message is not None
        validate_message(data, has_files=bool(req.files), editing=True)
        changes = message_fields(data)
        changes["attachments"] = make_attachments(
            fake, inter.channel.id, data, req.files, inter.message.attachments
        )
        message = inter.original = fake.edit_message(inter.message, changes)
    elif rtype == DEFERRED_UPDATE:
        inter.original = inter.message
    elif rtype == MODAL:
        validate_modal(data)

    if inter.responded_monotonic is None:
        inter.responded_monotonic = time.monotonic()
    response = InteractionResponse(inter.id, rtype, data, message)
    inter.responses.append(response)
    fake.interaction_responses.append(response)
    fake.notify()
    await fake.gateway.flush()
    if req.query.get("with_response") not in ("1", "true", "True"):
        return None
    result: dict[str, Any] = {
        "interaction": {
            "id": str(inter.id),
            "type": inter.type,
            "response_message_loading": rtype == DEFERRED_MESSAGE,
            "response_message_ephemeral": bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL),
        }
    }
    if message is not None:
        result["interaction"]["response_message_id"] = str(message.id)
    if message is not None and rtype in (MESSAGE, UPDATE_MESSAGE):
        # Discord's resource carries a message only for these two (not for a deferred one:
        # its message is the "thinking" placeholder until the first follow-up).
        result["resource"] = {"type": rtype, "message": payloads.message(message)}
    return result


def _webhook_interaction(req: ApiRequest) -> Interaction:
    fake = req.fake
    if req.snowflake("application_id") != fake.application_id:
        raise not_found(UNKNOWN_WEBHOOK, "Webhook")
    token = req.params["token"]
    inter = next((i for i in fake.interactions.values() if i.token == token), None)
    if inter is None or time.monotonic() - inter.created_monotonic > TOKEN_TTL_SECONDS:
        raise not_found(UNKNOWN_WEBHOOK, "Webhook")
    if not inter.responses:
        raise not_found(UNKNOWN_WEBHOOK, "Webhook")  # follow-ups need an acknowledged interaction
    return inter


def _webhook_message(req: ApiRequest, inter: Interaction) -> Message:
    raw = req.params["message_id"]
    if raw == "@original":
        message = inter.original
    else:
        wanted = int(raw) if raw.isdigit() else -1
        message = next(
            (m for m in [inter.original, *inter.followups] if m and m.id == wanted), None
        )
    if message is None or message.deleted:
        raise not_found(UNKNOWN_MESSAGE, "Message")
    return message


def _finish_loading(
    fake: FakeDiscord, message: Message, body: dict[str, Any], req: ApiRequest
) -> Message:
    changes = message_fields(body)
    changes["attachments"] = make_attachments(
        fake, message.channel_id, body, req.files, message.attachments
    )
    changes["flags"] = message.flags & ~FLAG_LOADING
    return fake.edit_message(message, changes)


async def followup(req: ApiRequest) -> Any:
    fake = req.fake
    inter = _webhook_interaction(req)
    body = req.body
    validate_message(body, has_files=bool(req.files))
    original = inter.original
    if original is not None and original.flags & FLAG_LOADING and not original.deleted:
        # The first follow-up after a deferred response edits the "thinking" message.
        message = _finish_loading(fake, original, body, req)
    else:
        message = _new_response_message(req, inter, body)
        inter.followups.append(message)
    await fake.gateway.flush()
    if req.query.get("wait") in ("true", "1", "True"):
        return payloads.message(message)
    return None


async def get_webhook_message(req: ApiRequest) -> Any:
    inter = _webhook_interaction(req)
    return payloads.message(_webhook_message(req, inter))


async def edit_webhook_message(req: ApiRequest) -> Any:
    fake = req.fake
    inter = _webhook_interaction(req)
    message = _webhook_message(req, inter)
    validate_message(req.body, has_files=bool(req.files), editing=True)
    _finish_loading(fake, message, req.body, req)
    await fake.gateway.flush()
    return payloads.message(message)


async def delete_webhook_message(req: ApiRequest) -> Any:
    fake = req.fake
    inter = _webhook_interaction(req)
    fake.delete_message(_webhook_message(req, inter))
    await fake.gateway.flush()
    return None


def register(router: Router) -> None:
    router.add("POST", "/interactions/{interaction_id}/{token}/callback", callback, auth=False)
    base = "/webhooks/{application_id}/{token}"
    router.add("POST", base, followup, auth=False)
    router.add("GET", f"{base}/messages/{{message_id}}", get_webhook_message, auth=False)
    router.add("PATCH", f"{base}/messages/{{message_id}}", edit_webhook_message, auth=False)
    router.add("DELETE", f"{base}/messages/{{message_id}}", delete_webhook_message, auth=False)
