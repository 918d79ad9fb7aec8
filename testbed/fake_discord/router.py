"""REST plumbing: route table, request parsing, auth, recording, failure injection, errors."""

from __future__ import annotations

import json
import logging
import re
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from aiohttp import web
from multidict import MultiDictProxy

from .errors import ApiError, invalid_form
from .failures import json_response, ratelimit_headers

if TYPE_CHECKING:
    from .server import FakeDiscord

log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"


class RecordedRequest(NamedTuple):
    """One REST call the bot made: (method, path relative to /api/v10, JSON body or None)."""

    method: str
    path: str
    json: Any


@dataclass
class UploadedFile:
    index: int
    filename: str
    data: bytes
    content_type: str | None


@dataclass
class RequestLogEntry:
    method: str
    path: str
    json: Any
    query: dict[str, str]
    route: str | None
    status: int = 0
    files: list[UploadedFile] = field(default_factory=list)
    at: float = field(default_factory=time.monotonic)  # when it came in (monotonic)


@dataclass
class ApiRequest:
    fake: FakeDiscord
    method: str
    path: str
    params: dict[str, str]
    query: MultiDictProxy[str]
    json: Any
    files: list[UploadedFile]
    route_key: str

    def snowflake(self, name: str) -> int:
        raw = self.params[name]
        if not raw.isdigit():
            raise invalid_form({name: f'Value "{raw}" is not snowflake.'})
        return int(raw)

    @property
    def body(self) -> dict[str, Any]:
        return self.json if isinstance(self.json, dict) else {}


Handler = Callable[[ApiRequest], Awaitable[Any]]


@dataclass
class Route:
    method: str
    template: str
    regex: re.Pattern[str]
    handler: Handler
    auth: bool


class NoContent:
    """Return this (or None) from a handler for 204 No Content."""


@dataclass
class Created:
    """Return ``Created(body)`` from a handler for 201 Created (Discord's answer to a new
    channel or thread)."""

    body: Any


class Router:
    def __init__(self) -> None:
        self.routes: list[Route] = []

    def add(self, method: str, template: str, handler: Handler, *, auth: bool = True) -> None:
        pattern = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)
        self.routes.append(Route(method, template, re.compile(pattern), handler, auth))

    def match(self, method: str, path: str) -> tuple[Route | None, dict[str, str], bool]:
        """Returns (route, params, path_known_but_wrong_method)."""
        path_known = False
        for route in self.routes:
            m = route.regex.fullmatch(path)
            if m is None:
                continue
            path_known = True
            if route.method == method:
                return route, m.groupdict(), False
        return None, {}, path_known


async def _parse_body(request: web.Request) -> tuple[Any, list[UploadedFile]]:
    if not request.body_exists:
        return None, []
    ctype = request.content_type
    if ctype == "multipart/form-data":
        payload: Any = None
        files: list[UploadedFile] = []
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            name = part.name or ""  # type: ignore[union-attr]
            data = await part.read()  # type: ignore[union-attr]
            if name == "payload_json":
                payload = json.loads(bytes(data).decode())
            elif m := re.fullmatch(r"files\[(\d+)\]", name):
                files.append(
                    UploadedFile(
                        int(m.group(1)),
                        part.filename or f"file{m.group(1)}",  # type: ignore[union-attr]
                        bytes(data),
                        part.headers.get("Content-Type"),  # type: ignore[union-attr]
                    )
                )
        return payload, files
    raw = await request.read()
    if not raw:
        return None, []
    try:
        return json.loads(raw), []
    except ValueError:
        return raw.decode(errors="replace"), []


async def handle_rest(fake: FakeDiscord, request: web.Request) -> web.StreamResponse:
    fake.inflight += 1
    try:
        return await _handle_rest(fake, request)
    finally:
        fake.inflight -= 1
        fake.notify()


async def _handle_rest(fake: FakeDiscord, request: web.Request) -> web.StreamResponse:
    path = request.path[len(API_PREFIX) :] or "/"
    method = request.method
    body, files = await _parse_body(request)
    route, params, wrong_method = fake.router.match(method, path)
    entry = RequestLogEntry(
        method, path, body, dict(request.query), route.template if route else None, files=files
    )
    fake.request_log.append(entry)
    fake.requests.append(RecordedRequest(method, path, body))

    checker = fake.spec
    if checker is not None and route is not None:
        fake.spec_violations += checker.check_request(method, path, dict(request.query), body)

    def finish(response: web.StreamResponse, payload: Any = None) -> web.StreamResponse:
        entry.status = response.status
        if checker is not None and route is not None:
            if payload is None and isinstance(response, web.Response) and response.body:
                payload = json.loads(response.body)  # type: ignore[arg-type]
            fake.spec_violations += checker.check_response(method, path, response.status,
                                                           payload)
        fake.notify()
        return response

    if route is None:
        fake.unknown_requests.append(RecordedRequest(method, path, body))
        status = 405 if wrong_method else 404
        reason = "Method Not Allowed" if wrong_method else "Not Found"
        log.warning("fake discord: unknown route %s %s", method, path)
        return finish(json_response(status, {"message": f"{status}: {reason}", "code": 0}))

    if route.auth and request.headers.get("Authorization") != f"Bot {fake.token}":
        return finish(json_response(401, {"message": "401: Unauthorized", "code": 0}))

    route_key = f"{method} {route.template}"
    rule = fake.failures.take(method, path)
    if rule is not None:
        return finish(fake.failures.render(rule, route_key))

    headers = ratelimit_headers(route_key)
    limits = getattr(fake, "limits", None)
    if limits is not None:  # Discord's rate limits (testbed/fake_discord/limits.py)
        refused, headers = limits.check(method, route.template, params, path)
        if refused is not None:
            return finish(refused)
        headers = headers or ratelimit_headers(route_key)

    req = ApiRequest(fake, method, path, params, request.query, body, files, route_key)
    try:
        result = await route.handler(req)
    except ApiError as exc:
        return finish(json_response(exc.status, exc.body(), headers))
    except Exception as exc:  # a bug in the fake: surface it, and do not trigger 5xx retries
        fake.internal_errors.append(f"{method} {path}: {traceback.format_exc()}")
        log.exception("fake discord internal error")
        return finish(json_response(400, {"message": f"fake-discord bug: {exc!r}", "code": 0}))
    if result is None or result is NoContent:
        return finish(web.Response(status=204, headers=headers))
    status = 200
    if isinstance(result, Created):
        status, result = 201, result.body
    return finish(json_response(status, result, headers), result)
