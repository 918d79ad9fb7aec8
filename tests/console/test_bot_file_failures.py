"""Issue 42, item 15: a bot file that fails once in `umpire play` / `umpire demo` is told
once (each decision replays the bot's history, so the failing call is made again at every
later decision: that must not count again). That the error is named, with its line:
tests/console/test_small_items.py."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

UMPIRE = [sys.executable, "-m", "bot.cli"]
ONCE = """class Bot:
    def __init__(self):
        self.picks = 0
    def draft_pick(self, cards):
        self.picks += 1
        if self.picks == 1:
            raise KeyError(cards[0])
        return 0
    def draft_receive(self, card): pass
    def main_play(self, cards, base): return 0
    def main_postprocess(self, card): pass
"""
NOTICE = """class Bot:
    def __init__(self):
        self.seen = []
    def draft_pick(self, cards): return 0
    def draft_receive(self, card):
        self.seen.append(card)
        if len(self.seen) == 2:
            raise ValueError("second card")
    def main_play(self, cards, base): return 0
    def main_postprocess(self, card): pass
"""
NOTICE_JS = """{
name: 'Notice',
seen: [],
draftPick(cards) { return 0; },
draftReceive(card) {
  this.seen.push(card);
  if (this.seen.length === 2) throw new Error('second card');
},
mainPlay(cards, base) { return 0; },
mainPostprocess(card) {},
},
"""


@pytest.mark.parametrize("name, text", [("once.py", ONCE), ("notice.py", NOTICE),
                                        ("notice.js", NOTICE_JS)])
def test_a_bot_file_that_fails_once_is_told_once(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    done = subprocess.run([*UMPIRE, "demo", "rps-poker", "--quiet", "--seed", "3", "--bots",
                           f"{name},random"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(rf"the bot file {re.escape(name)} failed on 1 decision \(a random card "
                     r"was played for it\)$", done.stdout.strip()), done.stdout

