"""REST: gateway discovery, the bot user, application info and application commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import payloads
from .errors import UNKNOWN_APPLICATION, UNKNOWN_COMMAND, UNKNOWN_USER, invalid_form, not_found
from .models import AppCommand
from .rest_channels import get_guild
from .router import ApiRequest, Router
from .store import APPLICATION_FLAGS

if TYPE_CHECKING:
    from .server import FakeDiscord


async def gateway(req: ApiRequest) -> Any:
    return {"url": req.fake.gateway_url}


async def gateway_bot(req: ApiRequest) -> Any:
    return {
        "url": req.fake.gateway_url,
        "shards": 1,
        "session_start_limit": {
            "total": 1000,
            "remaining": 999,
            "reset_after": 14_400_000,
            "max_concurrency": 1,
        },
    }


async def me(req: ApiRequest) -> Any:
    return payloads.client_user(req.fake.bot_user)


async def edit_me(req: ApiRequest) -> Any:
    fake = req.fake
    if "username" in req.body:
        fake.bot_user.username = str(req.body["username"])
    return payloads.client_user(fake.bot_user)


async def get_user(req: ApiRequest) -> Any:
    user = req.fake.users.get(req.snowflake("user_id"))
    if user is None:
        raise not_found(UNKNOWN_USER, "User")
    return payloads.user(user)


async def application(req: ApiRequest) -> Any:
    fake = req.fake
    return {
        "id": str(fake.application_id),
        "name": fake.bot_user.username,
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "rpc_origins": [],
        "bot_public": True,
        "bot_require_code_grant": False,
        "bot": payloads.user(fake.bot_user),
        "owner": payloads.user(fake.app_owner),
        "team": None,
        "verify_key": "0" * 64,
        "flags": APPLICATION_FLAGS,
        "flags_new": str(APPLICATION_FLAGS),
        "hook": True,
        "tags": [],
        "redirect_uris": [],
        "interactions_endpoint_url": None,  # non-null would make discord.py warn: no interactions
        "role_connections_verification_url": None,
        "install_params": {"scopes": ["bot", "applications.commands"], "permissions": "0"},
        "integration_types_config": {"0": {}},
        "approximate_guild_count": len(fake.guilds),
        "approximate_user_install_count": 0,
        "approximate_user_authorization_count": 0,
        "explicit_content_filter": 0,
        "eligible_oauth2_scopes": ["bot", "applications.commands"],
        "event_webhooks_url": None,
        "event_webhooks_status": 1,
        "event_webhooks_types": [],
    }


def _scope(req: ApiRequest) -> int | None:
    fake = req.fake
    if req.snowflake("application_id") != fake.application_id:
        raise not_found(UNKNOWN_APPLICATION, "Application")
    if "guild_id" in req.params:
        return get_guild(fake, req.snowflake("guild_id")).id
    return None


def command_payload(cmd: AppCommand) -> dict[str, Any]:
    data = {
        "type": 1,
        "description": "",
        "options": [],
        "default_member_permissions": None,
        "dm_permission": True,
        "nsfw": False,
        "integration_types": [0],
        "contexts": None,
        "name_localizations": None,
        "description_localizations": None,
        **cmd.data,
        "id": str(cmd.id),
        "application_id": str(cmd.application_id),
        "version": str(cmd.id),
    }
    # Discord stores a permission set as a string and a missing install context as the
    # default one (a guild install), whatever form the bot sent them in.
    perms = data["default_member_permissions"]
    data["default_member_permissions"] = None if perms is None else str(perms)
    if data["integration_types"] is None:
        data["integration_types"] = [0]
    if cmd.guild_id is not None:
        data["guild_id"] = str(cmd.guild_id)
    return data


def _validate_command(data: dict[str, Any], index: int | None) -> None:
    where = "" if index is None else f"{index}."
    name = str(data.get("name") or "")
    type_ = int(data.get("type", 1))
    if not 1 <= len(name) <= 32 or (type_ == 1 and name != name.lower()):
        raise invalid_form({f"{where}name": "Invalid application command name."})
    if type_ == 1 and not 1 <= len(str(data.get("description") or "")) <= 100:
        raise invalid_form({f"{where}description": "Must be between 1 and 100 in length."})


def _upsert(fake: FakeDiscord, scope: int | None, data: dict[str, Any]) -> AppCommand:
    existing = fake.commands.setdefault(scope, [])
    for cmd in existing:
        if cmd.name == data["name"] and cmd.type == int(data.get("type", 1)):
            cmd.data = data
            return cmd
    cmd = AppCommand(fake.ids.next(), fake.application_id, scope, data)
    existing.append(cmd)
    return cmd


async def list_commands(req: ApiRequest) -> Any:
    return [command_payload(c) for c in req.fake.commands.get(_scope(req), [])]


async def bulk_overwrite(req: ApiRequest) -> Any:
    fake = req.fake
    scope = _scope(req)
    body = req.json if isinstance(req.json, list) else []
    for i, data in enumerate(body):
        _validate_command(data, i)
    old = {(c.name, c.type): c for c in fake.commands.get(scope, [])}
    new = []
    for data in body:
        cmd = old.get((data["name"], int(data.get("type", 1))))
        if cmd is None:
            cmd = AppCommand(fake.ids.next(), fake.application_id, scope, data)
        cmd.data = data
        new.append(cmd)
    fake.commands[scope] = new
    fake.notify()
    return [command_payload(c) for c in new]


async def create_command(req: ApiRequest) -> Any:
    _validate_command(req.body, None)
    cmd = _upsert(req.fake, _scope(req), req.body)
    req.fake.notify()
    return command_payload(cmd)


def _find(req: ApiRequest) -> AppCommand:
    scope = _scope(req)
    cid = req.snowflake("command_id")
    for cmd in req.fake.commands.get(scope, []):
        if cmd.id == cid:
            return cmd
    raise not_found(UNKNOWN_COMMAND, "application command")


async def get_command(req: ApiRequest) -> Any:
    return command_payload(_find(req))


async def edit_command(req: ApiRequest) -> Any:
    cmd = _find(req)
    cmd.data = {**cmd.data, **req.body}
    return command_payload(cmd)


async def delete_command(req: ApiRequest) -> Any:
    cmd = _find(req)
    req.fake.commands[cmd.guild_id].remove(cmd)
    return None


def register(router: Router) -> None:
    router.add("GET", "/gateway", gateway, auth=False)
    router.add("GET", "/gateway/bot", gateway_bot)
    router.add("GET", "/users/@me", me)
    router.add("PATCH", "/users/@me", edit_me)
    router.add("GET", "/users/{user_id}", get_user)
    router.add("GET", "/applications/@me", application)
    router.add("GET", "/oauth2/applications/@me", application)
    for prefix in (
        "/applications/{application_id}",
        "/applications/{application_id}/guilds/{guild_id}",
    ):
        router.add("GET", f"{prefix}/commands", list_commands)
        router.add("PUT", f"{prefix}/commands", bulk_overwrite)
        router.add("POST", f"{prefix}/commands", create_command)
        router.add("GET", f"{prefix}/commands/{{command_id}}", get_command)
        router.add("PATCH", f"{prefix}/commands/{{command_id}}", edit_command)
        router.add("DELETE", f"{prefix}/commands/{{command_id}}", delete_command)
