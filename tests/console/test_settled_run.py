"""A command whose SQLite file cannot be opened prints its one line and no thread traceback.

aiosqlite stops its worker thread after a failed open without waiting for it; the thread's last
answer then reaches a loop that `asyncio.run` may have closed ("Event loop is closed", printed
from the thread). The race is made certain here by holding each answer a worker sends back for
0.2 s, the window a slow machine gives it by chance (CI hit it once in `umpire health`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bot.health import database_check
from bot.store.settle import run_settled


@pytest.fixture
def slow_workers(monkeypatch: pytest.MonkeyPatch) -> list[BaseException]:
    """Workers answer 0.2 s late; exceptions raised in threads are collected, not printed."""
    loop_class = type(asyncio.new_event_loop())
    original = loop_class.call_soon_threadsafe

    def late(self: Any, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is not threading.main_thread():
            time.sleep(0.2)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(loop_class, "call_soon_threadsafe", late)
    raised: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook",
                        lambda hook_args: raised.append(hook_args.exc_value))
    return raised


def _joined_workers() -> None:
    for thread in threading.enumerate():
        if "_connection_worker_thread" in thread.name:
            thread.join(5)


def _unopenable(tmp_path: Path) -> str:
    """An SQLite "file" that exists but cannot be opened (a folder): the open fails (a
    missing file is not opened at all: health would create it)."""
    (tmp_path / "x.db").mkdir()
    return f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"


def test_the_race_is_real_without_the_settled_run(tmp_path: Path,
                                                  slow_workers: list[BaseException]) -> None:
    """The premise: a plain asyncio.run of the same check leaves a worker that raises."""
    url = _unopenable(tmp_path)
    check = asyncio.run(database_check(url))
    _joined_workers()
    assert not check.ok
    assert any("Event loop is closed" in str(exc) for exc in slow_workers)


def test_a_failed_open_leaves_no_worker_to_raise_after_the_loop_closed(
        tmp_path: Path, slow_workers: list[BaseException]) -> None:
    url = _unopenable(tmp_path)
    before = set(threading.enumerate())  # (an earlier test in this process may keep its own)
    check = run_settled(database_check(url))
    assert not check.ok and "cannot be used" in check.detail
    assert not any("_connection_worker_thread" in t.name
                   for t in set(threading.enumerate()) - before)
    _joined_workers()
    assert slow_workers == []


def test_the_settled_run_returns_the_work_result_and_raises_its_error() -> None:
    async def answer() -> int:
        return 42

    async def fail() -> None:
        raise ValueError("the work's own error")

    assert run_settled(answer()) == 42
    with pytest.raises(ValueError, match="the work's own error"):
        run_settled(fail())
