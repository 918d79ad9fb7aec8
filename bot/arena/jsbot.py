"""A JavaScript bot in the seed's object format, run unchanged under Node.js.

One long-lived `node host.js BOT.js LIMIT ANSWER_FD` process per bot (per worker process),
speaking the line protocol of `bot/arena/process.py` (one short text line per call; calls
that return nothing are sent without waiting, and their failures come back with the next
answer). Node times every call itself; the controller also stops waiting after the limit
(a bot stuck in a loop), kills the process and reports the call as over the limit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.arena.faults import NodeMissing
from bot.arena.process import PipeBot

HOST = Path(__file__).with_name("host.js")


def node_path() -> str:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise NodeMissing("JavaScript bots need Node.js (the `node` command), which was not "
                          "found on PATH. Install Node.js 18 or newer, or use Python bots.")
    return node


class JsBot(PipeBot):
    """The four seed methods, forwarded to a Node.js process."""

    names = {"draft_pick": "draftPick", "draft_receive": "draftReceive",
             "main_play": "mainPlay", "main_postprocess": "mainPostprocess"}

    def command(self, answer_fd: int) -> list[str]:
        return [node_path(), str(HOST), self.path, repr(float(self.limit)), str(answer_fd)]
