"""Test-side actions: what human users do (post messages, click, select, run slash commands),
and waiting helpers for what the bot does in response."""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import re
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import payloads
from . import permissions as P
from .models import Channel, Interaction, Message, Role, User
from .router import RequestLogEntry
from .store import Store

if TYPE_CHECKING:
    from .gateway import Gateway

BUTTON, STRING_SELECT, USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT = (
    2,
    3,
    5,
    6,
    7,
    8,
)
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
# Names discord.py gives the tasks that run bot code (events, views, modals, app commands).
_BOT_TASK_PREFIXES = (
    "discord.py: ",
    "discord-ui-view-dispatch",
    "discord-ui-modal-dispatch",
    "CommandTree-invoker",
)
(
    OPT_STRING,
    OPT_INTEGER,
    OPT_BOOLEAN,
    OPT_USER,
    OPT_CHANNEL,
    OPT_ROLE,
    OPT_MENTIONABLE,
    OPT_NUMBER,
) = (
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
)


class UserActions(Store):
    gateway: Gateway
    inflight: int
    user_delay: float
    request_log: list[RequestLogEntry]
    interaction_timeout: float
    require_registered_commands: bool

    # -- messages ------------------------------------------------------------

    async def send_user_message(
        self,
        user: User,
        channel: Channel,
        content: str,
        *,
        check_permissions: bool = True,
        reply_to: Message | None = None,
    ) -> Message:
        """Post ``content`` as ``user`` (who must be able to see and write in ``channel``)."""
        if check_permissions:
            perms = self.permissions_for(user, channel)
            if perms & (P.VIEW_CHANNEL | P.SEND_MESSAGES) != P.VIEW_CHANNEL | P.SEND_MESSAGES:
                raise PermissionError(
                    f"{user.username} cannot send messages in {channel.name or 'DM'}"
                )
        reference = None
        if reply_to is not None:
            reference = {
                "type": 0,
                "message_id": str(reply_to.id),
                "channel_id": str(reply_to.channel_id),
            }
        message = self.create_message(
            channel,
            user,
            content,
            nonce=str(secrets.randbits(60)),
            type_=19 if reference else 0,
            message_reference=reference,
        )
        await self.gateway.flush()
        return message

    async def wait_for_message(
        self,
        channel: Channel,
        predicate: Callable[[Message], bool] | None = None,
        *,
        timeout: float = 5.0,
        after: Message | int | None = None,
        from_bot: bool = False,
        include_ephemeral: bool = False,
    ) -> Message:
        """First stored message in ``channel`` (newer than ``after``) matching ``predicate``."""
        after_id = after.id if isinstance(after, Message) else (after or 0)

        def find() -> Message | None:
            for m in self.messages(channel, include_ephemeral=include_ephemeral):
                if m.id <= after_id or (from_bot and m.author.id != self.bot_user.id):
                    continue
                if predicate is None or predicate(m):
                    return m
            return None

        return await self.wait_for(find, timeout, f"a message in {channel.name or channel.id}")

    async def wait_for_request(
        self, method: str, pattern: str | re.Pattern[str], *, timeout: float = 5.0, start: int = 0
    ) -> RequestLogEntry:
        """First REST call (from index ``start`` of the log) matching method and path glob/regex."""

        def find() -> RequestLogEntry | None:
            for entry in self.request_log[start:]:
                if method.upper() not in ("*", entry.method):
                    continue
                if isinstance(pattern, re.Pattern):
                    if pattern.fullmatch(entry.path):
                        return entry
                elif fnmatch.fnmatchcase(entry.path, pattern):
                    return entry
            return None

        return await self.wait_for(find, timeout, f"request {method} {pattern}")

    async def settle(self, timeout: float = 5.0) -> None:
        """Wait until the bot is idle: no discord.py event/view/modal/command task running and no
        REST call in flight (checked over a few loop turns)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        idle_rounds = 0
        while idle_rounds < 3:
            busy = self.inflight or any(
                not t.done() and t.get_name().startswith(_BOT_TASK_PREFIXES)
                for t in asyncio.all_tasks()
            )
            if busy:
                idle_rounds = 0
                if loop.time() > deadline:
                    raise TimeoutError(f"bot still busy after {timeout}s")
            else:
                idle_rounds += 1
            await asyncio.sleep(0.005)

    async def sync(self, timeout: float = 5.0) -> None:
        """Return once every connected client has parsed all events sent so far."""
        await self.gateway.flush(timeout)
        await self.gateway.barrier(timeout)

    # -- interactions -----------------------------------------------------------

    def _interaction(
        self,
        type_: int,
        user: User,
        channel: Channel,
        data: dict[str, Any],
        message: Message | None = None,
    ) -> Interaction:
        guild = self.guild_of(channel)
        interaction_id = self.ids.next()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        user_perms = self.permissions_for(user, channel)
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": type_,
            "token": token,
            "version": 1,
            "data": data,
            "channel_id": str(channel.id),
            "channel": payloads.channel(channel, permissions=user_perms),
            "app_permissions": str(self.permissions_for(self.bot_user, channel)),
            "locale": "en-US",
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild is not None:
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=payloads.member(self.member(guild, user), permissions=user_perms),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=payloads.user(user), authorizing_integration_owners={"0": "0"}, context=1
            )
        if message is not None:
            payload["message"] = payloads.message(message)
        interaction = Interaction(
            id=interaction_id,
            token=token,
            type=type_,
            user=user,
            channel=channel,
            guild_id=guild.id if guild else None,
            data=data,
            payload=payload,
            created_monotonic=time.monotonic(),
            message=message,
        )
        self.interactions[interaction_id] = interaction
        return interaction

    async def _human_pause(self) -> None:
        """Let the bot finish receiving its last REST responses before a user reacts to them.

        The fake stores a message before discord.py has read the HTTP response, and discord.py
        only registers a message's View (or a Modal) after that; a click dispatched in between
        would be dropped. Humans are never that fast, so wait for in-flight calls plus a beat.
        """
        await self.wait_for(lambda: self.inflight == 0, 5.0, "in-flight REST calls to finish")
        await asyncio.sleep(self.user_delay)

    async def _send_interaction(
        self, interaction: Interaction, wait: bool, timeout: float
    ) -> Interaction:
        self.dispatch("INTERACTION_CREATE", interaction.payload)
        await self.gateway.flush()
        if wait:
            await self.wait_for_response(interaction, timeout=timeout)
        return interaction

    async def wait_for_response(
        self, interaction: Interaction, *, timeout: float = 5.0
    ) -> Interaction:
        """Wait until the bot has answered the interaction's callback."""
        await self.wait_for(
            lambda: interaction.responded,
            timeout,
            f"the bot to respond to interaction {interaction.id}",
        )
        if interaction.responses[0].type in (5, 6):
            # Deferred: the bot acknowledged first and works on; wait until it has answered
            # (a "thinking..." message edited) and its handler is done, as far as we can see.
            with contextlib.suppress(TimeoutError):
                await self.wait_for(lambda: interaction.finished, timeout, "a deferred answer")
                await self.settle(timeout)
        return interaction

    def _component_target(
        self, user: User, message: Message, custom_id: str, types: set[int]
    ) -> dict[str, Any]:
        channel = self.channels[message.channel_id]
        if message.deleted:
            raise LookupError("message was deleted")
        if message.ephemeral and message.visible_to != user.id:
            raise PermissionError(f"{user.username} cannot see this ephemeral message")
        if not self.can_view(user, channel):
            raise PermissionError(f"{user.username} cannot see {channel.name}")
        component = message.find_component(custom_id)
        if component is None:
            ids = [c.get("custom_id") for c in message.iter_components()]
            raise LookupError(f"no component {custom_id!r} on message {message.id}; has {ids}")
        if component.get("type") not in types:
            raise LookupError(
                f"component {custom_id!r} has type {component.get('type')}, wanted {types}"
            )
        if component.get("disabled"):
            raise PermissionError(f"component {custom_id!r} is disabled")
        return component

    async def click_button(
        self,
        user: User,
        message: Message,
        custom_id: str,
        *,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> Interaction:
        await self._human_pause()
        component = self._component_target(user, message, custom_id, {BUTTON})
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": BUTTON}
        if "id" in component:
            data["id"] = component["id"]
        channel = self.channels[message.channel_id]
        return await self._send_interaction(
            self._interaction(3, user, channel, data, message), wait, timeout
        )

    async def select(
        self,
        user: User,
        message: Message,
        custom_id: str,
        values: list[Any],
        *,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> Interaction:
        """Pick ``values`` in a select menu (strings, or Users/Roles/Channels for entity selects)."""
        await self._human_pause()
        component = self._component_target(
            user,
            message,
            custom_id,
            {STRING_SELECT, USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT},
        )
        ctype = int(component["type"])
        low, high = int(component.get("min_values", 1)), int(component.get("max_values", 1))
        if not low <= len(values) <= high:
            raise ValueError(f"select {custom_id!r} takes {low}..{high} values, got {len(values)}")
        channel = self.channels[message.channel_id]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if ctype == STRING_SELECT:
            options = {o["value"] for o in component.get("options", [])}
            bad = [v for v in values if v not in options]
            if bad:
                raise ValueError(
                    f"{bad} are not options of select {custom_id!r} ({sorted(options)})"
                )
            data["values"] = list(values)
        else:
            resolved: dict[str, dict[str, Any]] = {}
            data["values"] = [self._resolve_value(v, resolved, channel) for v in values]
            data["resolved"] = resolved
        return await self._send_interaction(
            self._interaction(3, user, channel, data, message), wait, timeout
        )

    def _resolve_value(
        self, value: Any, resolved: dict[str, dict[str, Any]], channel: Channel
    ) -> str:
        """Snowflake string for a User/Role/Channel, recording it in ``resolved`` as Discord does."""
        if isinstance(value, int):
            value = self.users.get(value) or self.channels.get(value) or value
            if isinstance(value, int):
                for guild in self.guilds.values():
                    if value in guild.roles:
                        value = guild.roles[value]
        if isinstance(value, User):
            resolved.setdefault("users", {})[str(value.id)] = payloads.user(value)
            guild = self.guild_of(channel)
            if guild is not None and value.id in guild.members:
                resolved.setdefault("members", {})[str(value.id)] = payloads.member(
                    guild.members[value.id],
                    with_user=False,
                    permissions=self.permissions_for(value, channel),
                )
        elif isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = payloads.role(value)
        elif isinstance(value, Channel):
            data = payloads.channel(value)
            data["permissions"] = str(self.permissions_for(self.bot_user, value))
            resolved.setdefault("channels", {})[str(value.id)] = data
        else:
            raise TypeError(f"cannot resolve {value!r}")
        return str(value.id)

    async def submit_modal(
        self,
        interaction: Interaction,
        values: dict[str, Any],
        *,
        wait: bool = True,
        timeout: float = 5.0,
    ) -> Interaction:
        """Fill in and submit the modal the bot opened (callback type 9) in reply to ``interaction``."""
        await self._human_pause()
        modal = next((r.data for r in interaction.responses if r.type == 9), None)
        if modal is None:
            raise LookupError(f"the bot did not open a modal for interaction {interaction.id}")
        unused = set(values)

        def submitted(comp: dict[str, Any]) -> dict[str, Any]:
            ctype = comp.get("type")
            if ctype == 1:
                return {"type": 1, "components": [submitted(c) for c in comp.get("components", [])]}
            if ctype == 18:
                return {"type": 18, "component": submitted(comp["component"])}
            custom_id = comp.get("custom_id")
            unused.discard(custom_id)
            if ctype == 4:
                value = values.get(custom_id, comp.get("value") or "")
                if comp.get("required", True) and not value:
                    raise ValueError(f"modal field {custom_id!r} is required")
                return {"type": 4, "custom_id": custom_id, "value": str(value)}
            return {
                "type": ctype,
                "custom_id": custom_id,
                "values": list(values.get(custom_id, [])),
            }

        components = [submitted(c) for c in modal.get("components", [])]
        if unused:
            raise ValueError(f"modal {modal.get('custom_id')!r} has no fields {sorted(unused)}")
        data = {"custom_id": modal["custom_id"], "components": components}
        submit = self._interaction(
            5, interaction.user, interaction.channel, data, interaction.message
        )
        submit.opened_by = interaction
        return await self._send_interaction(submit, wait, timeout)

    # -- slash commands ---------------------------------------------------------

    async def slash_command(
        self,
        user: User,
        channel: Channel,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        wait: bool = True,
        timeout: float = 5.0,
        **kw_options: Any,
    ) -> Interaction:
        """Run ``/name`` ("group sub" for subcommands) with options given as a dict or kwargs.

        Option types come from the synced command when there is one (else from the Python
        value): User -> USER, Role -> ROLE, Channel -> CHANNEL, bool, int, float, str.
        """
        values = {**(options or {}), **kw_options}
        data = self._command_data(user, channel, name, values)
        interaction = self._interaction(2, user, channel, data)
        return await self._send_interaction(interaction, wait, timeout)

    async def autocomplete(
        self,
        user: User,
        channel: Channel,
        name: str,
        focused: str,
        value: str = "",
        options: dict[str, Any] | None = None,
        *,
        timeout: float = 5.0,
        **kw_options: Any,
    ) -> list[dict[str, Any]]:
        """Type ``value`` into option ``focused`` of ``/name`` (other options already filled
        in): returns the choices the bot suggests (an autocomplete interaction, type 4)."""
        values = {**(options or {}), **kw_options}
        data = self._command_data(user, channel, name, values)
        leaf = data["options"]
        while leaf and leaf[0].get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
            leaf = leaf[0].setdefault("options", [])
        leaf.append({"name": focused, "type": OPT_STRING, "value": value, "focused": True})
        command = self.find_command(name.split()[0], (self.guild_of(channel) or _NoGuild).id)
        spec = self._option_spec(command, name, focused)
        if spec is not None:
            leaf[-1]["type"] = int(spec["type"])
            if not spec.get("autocomplete"):
                raise LookupError(f"/{name} {focused}: the option has no autocomplete")
        interaction = self._interaction(4, user, channel, data)
        await self._send_interaction(interaction, True, timeout)
        assert interaction.response is not None
        return list(interaction.response.data.get("choices") or [])

    @staticmethod
    def _option_spec(command: Any, name: str, option: str) -> dict[str, Any] | None:
        if command is None:
            return None
        schema = command.data.get("options", [])
        for part in name.split()[1:]:
            schema = next((o for o in schema if o["name"] == part), {}).get("options", [])
        return next((o for o in schema if o["name"] == option), None)

    def allow_command(self, guild: Any, name: str, target: User | Role) -> None:
        """What a server admin does in Server Settings > Integrations: let a role or member
        use a command whose default permissions they lack."""
        self.command_overrides.setdefault((guild.id, name), set()).add(target.id)

    def may_use_command(self, user: User, guild: Any, command: Any) -> bool:
        """Discord shows a command with `default_member_permissions` only to members with
        those permissions (Administrator and the owner: always), or to the roles and members
        an admin allowed it (`allow_command`)."""
        needed = command.data.get("default_member_permissions")
        if needed is None or guild is None:
            return True
        needed = int(needed)
        if needed and (P.base_permissions(guild, user.id) & needed) == needed:
            return True
        allowed = self.command_overrides.get((guild.id, command.name), set())
        member = guild.members.get(user.id)
        roles = set(member.role_ids) if member is not None else set()
        return user.id in allowed or bool(roles & allowed)

    def _command_data(
        self, user: User, channel: Channel, name: str, values: dict[str, Any]
    ) -> dict[str, Any]:
        path = name.split()
        guild = self.guild_of(channel)
        command = self.find_command(path[0], guild.id if guild else None)
        if command is None and self.require_registered_commands:
            raise LookupError(f"/{path[0]} is not registered (did the bot sync its command tree?)")
        if not self.permissions_for(user, channel) & P.USE_APPLICATION_COMMANDS:
            raise PermissionError(
                f"{user.username} cannot use application commands in {channel.name}"
            )
        if command is not None and not self.may_use_command(user, guild, command):
            raise PermissionError(f"/{path[0]} is hidden from {user.username} (default "
                                  "member permissions)")
        schema: list[dict[str, Any]] | None = command.data.get("options", []) if command else None
        chain: list[tuple[str, int]] = []
        for part in path[1:]:
            found = next((o for o in schema or [] if o["name"] == part), None)
            if schema is not None and (
                found is None or found.get("type") not in (SUB_COMMAND, SUB_COMMAND_GROUP)
            ):
                raise LookupError(f"/{name}: {part!r} is not a subcommand")
            kind = (
                int(found["type"])
                if found
                else (SUB_COMMAND if part == path[-1] else SUB_COMMAND_GROUP)
            )
            chain.append((part, kind))
            schema = found.get("options", []) if found else None
        resolved: dict[str, dict[str, Any]] = {}
        leaf = self._build_options(name, schema, values, resolved, channel)
        for part, kind in reversed(chain):
            leaf = [{"name": part, "type": kind, "options": leaf}]
        data: dict[str, Any] = {
            "id": str(command.id if command else self.ids.next()),
            "name": path[0],
            "type": 1,
            "options": leaf,
        }
        if resolved:
            data["resolved"] = resolved
        if command is not None and command.guild_id is not None:
            data["guild_id"] = str(command.guild_id)
        return data

    def _build_options(
        self,
        name: str,
        schema: list[dict[str, Any]] | None,
        values: dict[str, Any],
        resolved: dict[str, dict[str, Any]],
        channel: Channel,
    ) -> list[dict[str, Any]]:
        by_name = {o["name"]: o for o in schema or []}
        if schema is not None:
            unknown = set(values) - set(by_name)
            missing = [o["name"] for o in schema if o.get("required") and o["name"] not in values]
            if unknown or missing:
                raise ValueError(
                    f"/{name}: unknown options {sorted(unknown)}, missing required {missing}"
                )
        result = []
        for opt_name, value in values.items():
            spec = by_name.get(opt_name)
            otype = int(spec["type"]) if spec else _infer_type(value)
            if otype in (OPT_USER, OPT_ROLE, OPT_CHANNEL, OPT_MENTIONABLE):
                encoded: Any = self._resolve_value(value, resolved, channel)
            elif otype == OPT_INTEGER:
                encoded = int(value)
            elif otype == OPT_NUMBER:
                encoded = float(value)
            elif otype == OPT_BOOLEAN:
                encoded = bool(value)
            else:
                encoded = str(value)
            choices = (spec or {}).get("choices")
            if choices and encoded not in [c["value"] for c in choices]:
                raise ValueError(f"/{name}: {encoded!r} is not a choice of {opt_name}")
            result.append({"name": opt_name, "type": otype, "value": encoded})
        return result


class _NoGuild:
    id = None


def _infer_type(value: Any) -> int:
    if isinstance(value, User):
        return OPT_USER
    if isinstance(value, Role):
        return OPT_ROLE
    if isinstance(value, Channel):
        return OPT_CHANNEL
    if isinstance(value, bool):
        return OPT_BOOLEAN
    if isinstance(value, int):
        return OPT_INTEGER
    if isinstance(value, float):
        return OPT_NUMBER
    return OPT_STRING
