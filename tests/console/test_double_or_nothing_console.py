"""`umpire play double-or-nothing` and `umpire demo double-or-nothing` through the registry:
a person draws a joker in the terminal, places it privately, and leaves."""

from __future__ import annotations

import io
import threading
import time

from bot.console.demo import run_demo
from bot.console.play import run_play


class Slow(io.StringIO):
    """Lines typed one at a time, a little apart (the bot seat answers in between)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.lock = threading.Lock()

    def readline(self, size: int = -1) -> str:
        time.sleep(0.3)
        with self.lock:
            return super().readline(size)


async def test_a_person_draws_a_joker_and_places_it_in_the_terminal():
    out = io.StringIO()
    result = await run_play("double-or-nothing", bot="random", seat=0, seed="console-don",
                            db=None, name="Tess", stream=Slow("me\njoker\nat 1\n/quit\n"),
                            out=out, bot_think=0.01)
    text = out.getvalue()
    assert "Tess draws one of their jokers" in text
    assert "You placed a joker at position 1" in text
    assert "Tess has placed a joker in their hand" in text
    assert result is not None


async def test_demo_plays_double_or_nothing_to_the_end():
    lines = await run_demo(["double-or-nothing"], seed=5, out=io.StringIO())
    [line] = lines
    assert line.startswith("double-or-nothing: match #") and " wins " in line
