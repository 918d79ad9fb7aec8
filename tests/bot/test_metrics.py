"""Prometheus metrics (`[metrics] port`) and the command's logging (one line per event;
local commands print no log lines)."""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import sys
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from bot import metrics
from bot.clock import Scheduler, wall_clock
from bot.console.runtime import local_service
from bot.transport import PlayerRef


class Silent:
    async def send(self, match, message) -> None:  # noqa: ANN001
        return None


def _value(text: str, line_start: str) -> float:
    found = [line for line in text.splitlines() if line.startswith(line_start + " ")]
    assert found, f"{line_start} not in:\n{text}"
    return float(found[0].rsplit(" ", 1)[1])


@pytest.fixture
def registry():
    registry = CollectorRegistry()
    yield registry
    metrics.disable()


async def test_commands_latency_matches_backlog_held_429_and_lateness(
        tmp_path: Path, registry: CollectorRegistry) -> None:
    async with local_service(Silent(), db=str(tmp_path / "m.db")) as service:
        metrics.enable(service, registry)
        match = await service.start_match("rps-poker", [PlayerRef("u:a", "Ann"),
                                                        PlayerRef("u:b", "Bob")])
        refused = await service.submit(match.id, "u:a", "keep nothing", table_of=0)
        accepted = await service.submit(match.id, "u:a", "#1", table_of=0)  # (a position: "1" alone may be a card)
        assert not refused.accepted and accepted.accepted
        logging.getLogger("discord.http").warning(
            "We are being rate limited. %s %s responded with 429. Retrying in %.2f seconds.",
            "POST", "/channels/1/messages", 0.5)
        fired = asyncio.Event()

        async def due(token: object) -> None:
            fired.set()
        scheduler = Scheduler(wall_clock, due)
        scheduler.start()
        scheduler.set("t", wall_clock() - timedelta(seconds=2))  # two seconds late
        await asyncio.wait_for(fired.wait(), 5)
        await scheduler.stop()
        text = generate_latest(registry).decode()
        await service.abort(match.id, "done")
    assert _value(text, 'umpire_commands_total{game="rps-poker",outcome="refused"}') == 1
    assert _value(text, 'umpire_commands_total{game="rps-poker",outcome="accepted"}') == 1
    assert _value(text, 'umpire_command_seconds_count{game="rps-poker"}') == 2
    assert _value(text, 'umpire_active_matches{game="rps-poker"}') == 1
    for kind in ("room", "table", "host_log"):
        assert _value(text, f'umpire_outbox_backlog{{channel="{kind}"}}') >= 0
    assert _value(text, "umpire_held_messages") == 0
    assert _value(text, "umpire_discord_rate_limited_total") == 1
    assert _value(text, "umpire_clock_lateness_seconds_count") >= 1
    assert _value(text, 'umpire_clock_lateness_seconds_bucket{le="1.0"}') < \
        _value(text, "umpire_clock_lateness_seconds_count")  # the 2 s late one


def test_the_held_messages_and_backlog_are_read_from_the_outbox(registry) -> None:  # noqa: ANN001
    class Queue:
        def __init__(self, n: int) -> None:
            self.n = n

        def qsize(self) -> int:
            return self.n

    class Service:
        matches: dict = {}

        class delivery:  # noqa: N801
            _queues = {(1, "public"): Queue(2), (1, "seat0"): Queue(3), (1, "umpire"): Queue(1)}
            _down = {(1, "seat0"): None}
    metrics.enable(Service(), registry)
    text = generate_latest(registry).decode()
    assert _value(text, 'umpire_outbox_backlog{channel="room"}') == 2
    assert _value(text, 'umpire_outbox_backlog{channel="table"}') == 3
    assert _value(text, 'umpire_outbox_backlog{channel="host_log"}') == 1
    assert _value(text, "umpire_held_messages") == 3


def test_metrics_are_served_on_the_port() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    class Service:
        matches: dict = {}

        class delivery:  # noqa: N801
            _queues: dict = {}
            _down: dict = {}
    try:
        metrics.serve(Service(), port, "127.0.0.1")
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
    finally:
        metrics.disable()
    assert b"umpire_outbox_backlog" in body and b"umpire_commands" in body
    with socket.socket() as s:  # a port in use is one sentence
        s.bind(("127.0.0.1", 0))
        s.listen()
        with pytest.raises(metrics.MetricsUnavailable, match="cannot be opened"):
            metrics.serve(Service(), s.getsockname()[1], "127.0.0.1")


@pytest.fixture
def root_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)


def test_local_commands_log_no_warnings_and_run_logs_one_line_per_event(
        root_logging, capsys) -> None:  # noqa: ANN001
    from bot.logs import setup

    setup("demo")
    logging.getLogger("bot.store.writer").warning("a commit of 1 writes took 107 ms")
    assert capsys.readouterr().err == ""
    setup("run")
    logging.getLogger("discord.client").warning(
        "PyNaCl is not installed, voice will NOT be supported")
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("bad\nthing")
    except ValueError:
        logging.getLogger("bot.umpire").exception("a timer failed")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a timer failed | ValueError: bad ⏎ thing (at " in err


def test_demo_quiet_prints_only_result_lines() -> None:
    done = subprocess.run([sys.executable, "-m", "bot.cli", "demo", "rps-poker", "--quiet",
                           "--seed", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("rps-poker: match #1")


def test_metrics_without_prometheus_client_is_one_sentence(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setitem(sys.modules, "prometheus_client", None)  # as if not installed
    with pytest.raises(metrics.MetricsUnavailable, match=r"pip install 'umpire\[metrics\]'"):
        metrics.enable(object())
    assert metrics.ACTIVE is None


def test_the_metrics_port_is_closed_when_metrics_stop() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    class Service:
        matches: dict = {}

        class delivery:  # noqa: N801
            _queues: dict = {}
            _down: dict = {}
    metrics.serve(Service(), port, "127.0.0.1")
    metrics.disable()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)
