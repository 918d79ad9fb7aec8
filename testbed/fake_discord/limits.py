"""Discord's rate limits, as the fake applies them when `fake.limits` is set (opt-in).

- Per-route buckets, keyed by the route and its major parameter (channel, guild, webhook):
  a fixed window of `limit` requests per `window` seconds from the bucket's first request.
  Every answer carries `X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket`, so discord.py
  waits ahead of an exhausted bucket as it does on Discord.
- The per-channel message limit: 5 messages per 5 s in a channel (`POST .../messages`).
- The global limit: `global_per_second` requests per second per token (interaction
  callbacks and an interaction's webhook, its follow-ups, are not counted, as on Discord).
- A request over a limit gets 429 with Discord's body (`message`, `retry_after`, `global`,
  and `code` 0) and headers (`Retry-After`, `X-RateLimit-Scope`, `X-RateLimit-Global` for the
  global limit, `Via`: discord.py takes a 429 without it for a Cloudflare ban).

`scale` multiplies every window (0.1: the same limits ten times faster, for quick tests);
the default is Discord's real numbers. The Discord test suite runs every test with the limits
on at `TEST_SCALE` (testbed/fake_discord/fixtures.py); tests/fake_discord/test_limits.py and
`python -m bench.discord` use Discord's numbers.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import Counter, deque
from dataclasses import dataclass, field

from aiohttp import web

from .failures import json_response

#: (method, route template) -> (limit, window seconds); anything else gets DEFAULT.
ROUTES: dict[tuple[str, str], tuple[int, float]] = {
    ("POST", "/channels/{channel_id}/messages"): (5, 5.0),
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"): (5, 5.0),
    ("DELETE", "/channels/{channel_id}/messages/{message_id}"): (5, 1.0),
    ("PATCH", "/channels/{channel_id}"): (5, 15.0),
    ("PUT", "/channels/{channel_id}/permissions/{overwrite_id}"): (10, 10.0),
    ("DELETE", "/channels/{channel_id}/permissions/{overwrite_id}"): (10, 10.0),
    ("POST", "/guilds/{guild_id}/channels"): (5, 5.0),
    ("DELETE", "/channels/{channel_id}"): (5, 5.0),
}
DEFAULT = (5, 5.0)
MAJOR = ("channel_id", "guild_id", "webhook_id")
UNLIMITED = ("/interactions/",)  # interaction callbacks: no bucket, not in the global limit
#: An interaction's webhook (its follow-ups, its original response): a bucket per interaction
#: token, outside the global limit.
WEBHOOK = "/webhooks/"
#: The fixture's scale: every window 50 times shorter (a channel's 5 messages per 5 s: per
#: 0.1 s), so the suite stays fast (at 0.1 an e2e match took twice as long).
TEST_SCALE = 0.02


@dataclass
class Bucket:
    limit: int
    window: float
    reset_at: float = 0.0
    used: int = 0


@dataclass
class RateLimits:
    scale: float = 1.0
    global_per_second: int = 50
    buckets: dict[tuple[str, str], Bucket] = field(default_factory=dict)
    recent: deque[float] = field(default_factory=deque)  # times of counted requests
    limited: int = 0  # 429s answered
    #: 429s by what was exhausted: "global", or the route ("POST /channels/{channel_id}/...").
    refused: Counter[str] = field(default_factory=Counter)

    def check(self, method: str, template: str, params: dict[str, str],
              path: str) -> tuple[web.Response | None, dict[str, str]]:
        """(a 429 to answer, or None) and the rate limit headers for this request."""
        if any(p in path for p in UNLIMITED):
            return None, {}
        now = time.monotonic()
        webhook = path.startswith(WEBHOOK)
        second = 1.0 * self.scale
        while self.recent and self.recent[0] <= now - second:
            self.recent.popleft()
        if not webhook and len(self.recent) >= self.global_per_second:
            retry = self.recent[0] + second - now
            self.refused["global"] += 1
            return self._limited(retry, None, is_global=True), {}
        route = f"{method} {template}"
        major = f"{params.get('application_id')}/{params.get('token')}" if webhook else \
            next((params[k] for k in MAJOR if k in params), "")
        limit, window = ROUTES.get((method, template), DEFAULT)
        bucket = self.buckets.get((route, major))
        if bucket is None:
            bucket = self.buckets[(route, major)] = Bucket(limit, window * self.scale)
        if now >= bucket.reset_at:
            bucket.reset_at, bucket.used = now + bucket.window, 0
        hashed = hashlib.sha1(route.encode()).hexdigest()[:32]
        if bucket.used >= bucket.limit:
            self.refused[route] += 1
            return self._limited(bucket.reset_at - now, (bucket, hashed), is_global=False), {}
        bucket.used += 1
        if not webhook:
            self.recent.append(now)
        return None, self._headers(bucket, hashed, now)

    @staticmethod
    def _headers(bucket: Bucket, hashed: str, now: float) -> dict[str, str]:
        after = max(0.0, bucket.reset_at - now)
        return {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(bucket.limit - bucket.used),
            "X-RateLimit-Reset": f"{time.time() + after:.3f}",
            "X-RateLimit-Reset-After": f"{after:.3f}",
            "X-RateLimit-Bucket": hashed,
        }

    def _limited(self, retry: float, bucket: tuple[Bucket, str] | None, *,
                 is_global: bool) -> web.Response:
        self.limited += 1
        retry = max(0.001, retry)
        headers = {"Retry-After": str(max(1, math.ceil(retry))), "Via": "1.1 google",
                   "X-RateLimit-Scope": "global" if is_global else "user"}
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        else:
            assert bucket is not None
            headers.update(self._headers(bucket[0], bucket[1], time.monotonic()))
        body = {"message": "You are being rate limited.", "retry_after": round(retry, 3),
                "global": is_global, "code": 0}
        return json_response(429, body, headers)
