"""Optional Prometheus metrics (`[metrics] port`; the prometheus-client package).

Served at http://ADDRESS:PORT/metrics while `umpire run` runs:

- umpire_active_matches{game}: running (or paused) matches per game;
- umpire_commands_total{game,outcome}: typed moves and clicks, accepted or refused;
- umpire_command_seconds{game}: how long each took, from arrival to answer (histogram);
- umpire_outbox_backlog{channel}: messages waiting to be posted, by channel type (room,
  table, host log);
- umpire_held_messages: messages waiting on a channel that cannot take them now (held for
  privacy, or failing);
- umpire_discord_rate_limited_total: Discord's 429 answers (discord.py waits and retries);
- umpire_clock_lateness_seconds: how late each timer fired after its due time (histogram).

The service calls `command` and `clock_late` (no-ops while metrics are off); the rest is
read from the service when Prometheus scrapes.
"""

from __future__ import annotations

import logging
from typing import Any

from bot.status import RUNNING

log = logging.getLogger(__name__)

#: The metrics of this process, once `enable` was called.
ACTIVE: Metrics | None = None
CHANNEL_TYPES = {"public": "room", "umpire": "host_log"}


class MetricsUnavailable(RuntimeError):
    """[metrics] port is set but prometheus-client is not installed (one sentence)."""


class Metrics:
    server: Any = None  # (server, thread) of prometheus-client, once serving

    def __init__(self, service: Any, registry: Any = None) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self.registry = registry if registry is not None else CollectorRegistry()
        self.service = service
        self.commands = Counter("umpire_commands", "Typed moves and clicks by outcome",
                                ["game", "outcome"], registry=self.registry)
        self.latency = Histogram("umpire_command_seconds", "From a command's arrival to its "
                                 "answer", ["game"], registry=self.registry,
                                 buckets=(.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10))
        self.lateness = Histogram("umpire_clock_lateness_seconds", "How late a timer fired",
                                  registry=self.registry,
                                  buckets=(.001, .005, .01, .05, .1, .5, 1, 5, 30))
        self.rate_limited = Counter("umpire_discord_rate_limited", "Discord 429 answers",
                                    registry=self.registry)
        self.registry.register(_Collector(self))
        self._handler = _RateLimits(self.rate_limited)
        logging.getLogger("discord.http").addHandler(self._handler)

    def close(self) -> None:
        logging.getLogger("discord.http").removeHandler(self._handler)
        served = getattr(self, "server", None)  # (server, thread) of prometheus-client
        if isinstance(served, tuple) and served and hasattr(served[0], "shutdown"):
            served[0].shutdown()
            served[0].server_close()


class _RateLimits(logging.Handler):
    """discord.py waits out each 429 itself and logs it: count those lines."""

    def __init__(self, counter: Any) -> None:
        super().__init__(logging.DEBUG)
        self.counter = counter

    def emit(self, record: logging.LogRecord) -> None:
        if "rate limited" in str(record.msg):
            self.counter.inc()


class _Collector:
    """The gauges read from the service at scrape time."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def describe(self) -> list[Any]:
        return []

    def collect(self) -> Any:
        from prometheus_client.core import GaugeMetricFamily

        service = self.metrics.service
        active = GaugeMetricFamily("umpire_active_matches", "Running or paused matches",
                                   labels=["game"])
        counts: dict[str, int] = {}
        for match in list(service.matches.values()):
            if match.status in RUNNING:
                slug = getattr(getattr(match, "game", None), "slug", None) or "unknown"
                counts[slug] = counts.get(slug, 0) + 1
        for slug, n in sorted(counts.items()):
            active.add_metric([slug], n)
        yield active
        backlog = GaugeMetricFamily("umpire_outbox_backlog", "Messages waiting to be posted",
                                    labels=["channel"])
        delivery = service.delivery
        queues = dict(getattr(delivery, "_queues", {}))
        down = set(getattr(delivery, "_down", {}))
        waiting = {"room": 0, "table": 0, "host_log": 0}
        held = 0
        for key, queue in queues.items():
            kind = CHANNEL_TYPES.get(key[1], "table")
            waiting[kind] = waiting.get(kind, 0) + queue.qsize()
            if key in down:
                held += queue.qsize()
        for kind, n in waiting.items():
            backlog.add_metric([kind], n)
        yield backlog
        yield GaugeMetricFamily("umpire_held_messages", "Messages waiting on a channel that "
                                "cannot take them now", value=held)


def enable(service: Any, registry: Any = None) -> Metrics:
    """Collect this process's metrics (without serving them)."""
    global ACTIVE
    try:
        ACTIVE = Metrics(service, registry)
    except ImportError:
        raise MetricsUnavailable("[metrics] port is set, but the prometheus-client package is "
                                 "not installed: pip install 'umpire[metrics]' (or "
                                 "prometheus-client), or set the port to 0.") from None
    return ACTIVE


def serve(service: Any, port: int, address: str = "0.0.0.0") -> Metrics:
    """`enable`, then serve /metrics on `port`."""
    metrics = enable(service)
    from prometheus_client import start_http_server

    try:
        metrics.server = start_http_server(port, addr=address, registry=metrics.registry)
    except OSError as exc:
        disable()
        raise MetricsUnavailable(f"the metrics port {address}:{port} cannot be opened "
                                 f"({exc.strerror or exc}); choose another [metrics] port.") \
            from None
    log.info("metrics at http://%s:%d/metrics", address, port)
    return metrics


def disable() -> None:
    global ACTIVE
    if ACTIVE is not None:
        ACTIVE.close()
    ACTIVE = None


def command(game: str, accepted: bool, seconds: float) -> None:
    """A typed move or click was answered (accepted or refused) after `seconds`."""
    if ACTIVE is not None:
        ACTIVE.commands.labels(game, "accepted" if accepted else "refused").inc()
        ACTIVE.latency.labels(game).observe(seconds)


def clock_late(seconds: float) -> None:
    """A timer fired `seconds` after its due time."""
    if ACTIVE is not None:
        ACTIVE.lateness.observe(max(0.0, seconds))
