"""FakeDiscord: the aiohttp server tying the store, REST routes and gateway together."""

from __future__ import annotations

import contextlib
import fnmatch
import re
import socket
from collections.abc import Iterator
from typing import Any

import yarl
from aiohttp import web

from . import rest_channels, rest_core, rest_interactions, rest_messages
from .actions import UserActions
from .conformance import SpecChecker, Violation
from .failures import FailureInjector, InjectedFailure
from .gateway import Gateway
from .router import API_PREFIX, RecordedRequest, RequestLogEntry, Router, handle_rest


class FakeDiscord(UserActions):
    """A local Discord (REST v10 + gateway) for the real discord.py client.

    Build the world with add_guild/add_member/add_role/add_text_channel, ``await start()``,
    point discord.py at it with ``patch_discord()``, act as users with send_user_message /
    click_button / select / slash_command, then assert on messages(), requests, etc.
    """

    def __init__(
        self,
        *,
        token: str = "MTIzNDU2Nzg5MDEyMzQ1Njc4.fake.bot-token",
        bot_name: str = "Umpire",
        heartbeat_interval_ms: int = 41250,
        interaction_timeout: float = 3.0,
        require_registered_commands: bool = False,
    ) -> None:
        super().__init__(token=token, bot_name=bot_name)
        self.router = Router()
        for module in (rest_core, rest_messages, rest_channels, rest_interactions):
            module.register(self.router)
        self.failures = FailureInjector()
        #: Every REST call as (method, path, json); see request_log for status/query/files.
        self.requests: list[RecordedRequest] = []
        self.request_log: list[RequestLogEntry] = []
        #: REST calls to routes the fake does not implement (answered 404/405).
        self.unknown_requests: list[RecordedRequest] = []
        #: Tracebacks of bugs inside the fake (answered 400 so discord.py does not retry).
        self.internal_errors: list[str] = []
        #: Seconds the bot has to answer an interaction callback (Discord: 3).
        self.interaction_timeout = interaction_timeout
        self.require_registered_commands = require_registered_commands
        #: Pause (s) before a click/select/modal submit, after the bot's REST calls finished.
        self.user_delay = 0.02
        self.gateway = Gateway(self, heartbeat_interval_ms=heartbeat_interval_ms)
        self.dispatch = self.gateway.dispatch
        self.port = 0
        #: Discord's rate limits (`RateLimits` from limits.py), None: off.
        self.limits: Any = None
        #: Checks every request and answer against Discord's OpenAPI spec
        #: (`conformance.SpecChecker`; the fixture sets it), None: off.
        self.spec: SpecChecker | None = None
        #: What the checker found; `assert_clean()` fails on any.
        self.spec_violations: list[Violation] = []
        #: REST requests currently being handled.
        self.inflight = 0
        self._runner: web.AppRunner | None = None

    # -- lifecycle -----------------------------------------------------------

    @property
    def base_url(self) -> str:
        """What ``discord.http.Route.BASE`` must be."""
        return f"{self.http_root}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway-resume", self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._attachment)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        self.http_root = f"http://127.0.0.1:{self.port}"
        self.gateway.resume_url = f"ws://127.0.0.1:{self.port}/gateway-resume"
        return self

    async def stop(self) -> None:
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @contextlib.contextmanager
    def patch_discord(self) -> Iterator[FakeDiscord]:
        """Point discord.py's REST base and default gateway at this fake (restored on exit)."""
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        Route.BASE = self.base_url
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield self
        finally:
            Route.BASE = old_base
            DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        return await handle_rest(self, request)  # type: ignore[arg-type]

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        wanted = int(request.match_info["attachment_id"])
        for message in self._messages_by_id.values():
            for att in message.attachments:
                if att.id == wanted:
                    return web.Response(
                        body=att.data, content_type=att.content_type or "application/octet-stream"
                    )
        raise web.HTTPNotFound()

    # -- failure injection ------------------------------------------------------

    def fail_next(
        self,
        method: str,
        route_pattern: str | re.Pattern[str],
        *,
        status: int = 500,
        times: int = 1,
        retry_after: float = 0.2,
        is_global: bool = False,
        skip: int = 0,
    ) -> InjectedFailure:
        """Fail the next ``times`` REST calls whose path (e.g. "/channels/*/messages") matches
        (after letting the first ``skip`` of them through). A 4xx fails at once (no retry).

        ``status=429`` answers like Discord's rate limiter (body with retry_after, X-RateLimit-*
        headers, Via) so discord.py sleeps ``retry_after`` and retries; 500/502/504 are retried
        by discord.py after 1s, 3s, ...
        """
        return self.failures.add(
            method,
            route_pattern,
            status=status,
            times=times,
            retry_after=retry_after,
            is_global=is_global,
            skip=skip,
        )

    # -- gateway control ---------------------------------------------------------

    async def disconnect_client(self, code: int = 4000, *, invalidate: bool = False) -> None:
        """Drop the bot's websocket. With 4000 discord.py reconnects and RESUMEs; ``invalidate``
        makes the resume fail (op 9) so it identifies anew (discord.py then waits 5 s)."""
        await self.gateway.disconnect(code, invalidate=invalidate)

    def request_reconnect(self) -> None:
        self.gateway.request_reconnect()

    @property
    def connected(self) -> bool:
        return any(c.session is not None and not c.dead for c in self.gateway.connections)

    async def wait_until_connected(self, timeout: float = 10.0) -> None:
        await self.wait_for(lambda: self.connected, timeout, "a gateway connection")

    # -- observability ---------------------------------------------------------------

    def count_requests(
        self, method: str | None = None, pattern: str | None = None, *, start: int = 0
    ) -> int:
        """REST calls since index ``start`` matching method and a path glob like "/channels/*"."""
        return sum(
            1
            for m, path, _ in self.requests[start:]
            if (method is None or m == method.upper())
            and (pattern is None or fnmatch.fnmatchcase(path, pattern))
        )

    def clear_requests(self) -> None:
        self.requests.clear()
        self.request_log.clear()

    def take_spec_violations(self) -> list[Violation]:
        """The spec violations found so far, forgotten (for a test that sends a wrong request
        on purpose and asserts what the checker found)."""
        found, self.spec_violations = self.spec_violations, []
        return found

    def assert_clean(self) -> None:
        """Fail if the bot hit unknown routes, sent or got something the spec does not allow
        (`spec_violations`), or the fake itself crashed."""
        problems: list[Any] = []
        if self.spec_violations:
            problems.append(f"{len(self.spec_violations)} differences from Discord's spec:\n"
                            + "\n".join(sorted(set(map(str, self.spec_violations)))))
        if self.unknown_requests:
            problems.append(f"unknown routes: {self.unknown_requests}")
        if self.internal_errors:
            problems.append("fake-discord internal errors:\n" + "\n".join(self.internal_errors))
        assert not problems, "\n".join(map(str, problems))
