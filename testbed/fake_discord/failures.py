"""Failure injection: make the next N matching REST calls fail with 5xx or 429."""

from __future__ import annotations

import fnmatch
import hashlib
import math
import re
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web


@dataclass(eq=False)
class InjectedFailure:
    method: str
    pattern: str | re.Pattern[str]
    status: int
    times: int
    retry_after: float
    is_global: bool
    hits: int = 0
    skip: int = 0  # matching calls let through before failing

    @property
    def remaining(self) -> int:
        return self.times - self.hits

    def matches(self, method: str, path: str) -> bool:
        if self.remaining <= 0:
            return False
        if self.method not in ("*", method.upper()):
            return False
        if isinstance(self.pattern, re.Pattern):
            hit = bool(self.pattern.fullmatch(path))
        else:
            hit = fnmatch.fnmatchcase(path, self.pattern)
        if hit and self.skip > 0:
            self.skip -= 1
            return False
        return hit


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
    """Discord labels JSON exactly 'application/json' (discord.py compares the header verbatim)."""
    import json

    return web.Response(
        status=status,
        body=json.dumps(body, separators=(",", ":")).encode(),
        content_type="application/json",
        headers=headers,
    )


def bucket_hash(route_key: str) -> str:
    return hashlib.sha1(route_key.encode()).hexdigest()[:32]


def ratelimit_headers(
    route_key: str, *, remaining: int = 4, reset_after: float = 1.0
) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": bucket_hash(route_key),
    }


class FailureInjector:
    def __init__(self) -> None:
        self.rules: list[InjectedFailure] = []

    def add(
        self,
        method: str,
        pattern: str | re.Pattern[str],
        *,
        status: int = 500,
        times: int = 1,
        retry_after: float = 0.2,
        is_global: bool = False,
        skip: int = 0,
    ) -> InjectedFailure:
        rule = InjectedFailure(method.upper(), pattern, status, times, retry_after, is_global,
                               skip=skip)
        self.rules.append(rule)
        return rule

    def take(self, method: str, path: str) -> InjectedFailure | None:
        for rule in self.rules:
            if rule.matches(method, path):
                rule.hits += 1
                return rule
        return None

    def render(self, rule: InjectedFailure, route_key: str) -> web.Response:
        if rule.status == 429:
            headers = ratelimit_headers(route_key, remaining=0, reset_after=rule.retry_after)
            headers.update(
                {
                    "Retry-After": str(max(1, math.ceil(rule.retry_after))),
                    "X-RateLimit-Scope": "global" if rule.is_global else "user",
                    # discord.py treats a 429 without Via as a Cloudflare ban and does not retry.
                    "Via": "1.1 google",
                }
            )
            if rule.is_global:
                headers["X-RateLimit-Global"] = "true"
            body = {
                "message": "You are being rate limited.",
                "retry_after": rule.retry_after,
                "global": rule.is_global,
                "code": 0,
            }
            return json_response(429, body, headers)
        reason = {400: "Bad Request", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
        body = {"message": f"{rule.status}: {reason.get(rule.status, 'Server Error')}", "code": 0}
        return json_response(rule.status, body)
