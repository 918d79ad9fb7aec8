"""A JavaScript bot in the seed's object format, run unchanged under Node.js.

One long-lived `node host.js BOT.js LIMIT` subprocess per bot (per worker process), talking
one short text line per call over pipes (see host.js). Calls that return nothing
(draftReceive, mainPostprocess) are sent without waiting; their failures come back with the
next answer. Node times every call itself; this side also stops waiting after the limit
(a bot stuck in a loop), kills the process and reports a call timeout.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
from pathlib import Path

from bot.arena.match import CallTimeout

HOST = Path(__file__).with_name("host.js")
SLACK = 0.5  # seconds allowed on top of the limit for pipes and scheduling


class NodeMissing(RuntimeError):
    pass


class JsBotError(Exception):
    """The JavaScript bot threw, ran too long, or returned a bad value."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.arena_reason = reason


def node_path() -> str:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise NodeMissing("JavaScript bots need Node.js (the `node` command), which was not "
                          "found on PATH. Install Node.js 18 or newer, or use Python bots.")
    return node


class JsBot:
    """The four seed methods, forwarded to a Node.js process."""

    def __init__(self, path: str | Path, limit: float) -> None:
        self.path = str(path)
        self.limit = limit
        self.proc = subprocess.Popen(
            [node_path(), str(HOST), self.path, repr(float(limit))],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            bufsize=0)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        self.buf = b""
        self.pending = 0  # notifications sent since the last answer
        first = self._line(max(10.0, limit + SLACK))
        if first.startswith("E "):
            self.close()
            raise JsBotError(f"could not load {self.path}: {first[2:].replace(chr(9), ': ')}")
        self.name = json.loads(first[3:]) if first.startswith("ok ") else Path(self.path).stem

    # --- the seed's API -----------------------------------------------------------------
    def draft_pick(self, cards: list[str]) -> object:
        self._send(f"p {cards[0]} {cards[1]}\n")
        return self._answer("draftPick")

    def draft_receive(self, card: str) -> None:
        self._send(f"r {card}\n")
        self.pending += 1

    def main_play(self, cards: list[str], base: str) -> object:
        self._send(f"m {base} {' '.join(cards)}\n")
        return self._answer("mainPlay")

    def main_postprocess(self, card: str) -> None:
        self._send(f"o {card}\n")
        self.pending += 1

    def arena_sync(self) -> None:
        """Collect failures of the last notifications (called at the end of each match)."""
        self._send("s\n")
        line = self._wait(self.limit * (self.pending + 1) + SLACK)
        self.pending = 0
        if line.startswith("E "):
            self._fail(line)

    # --- plumbing -------------------------------------------------------------------------
    def _send(self, text: str) -> None:
        try:
            os.write(self.wfd, text.encode())
        except OSError as exc:
            raise JsBotError(f"the Node.js process of the bot ended ({exc})") from None

    def _answer(self, where: str) -> object:
        line = self._wait(self.limit * (self.pending + 1) + SLACK, where)
        self.pending = 0
        if line.startswith("E "):
            self._fail(line)
        if line.startswith("X "):
            return _Invalid(line[2:])
        try:
            return int(line)
        except ValueError:
            return _Invalid(line)

    def _fail(self, line: str) -> None:
        where, _, message = line[2:].partition("\t")
        if message.startswith("exceeded"):
            raise CallTimeout(f"{message} in {where}")
        raise JsBotError(f"{message} in {where}")

    def _wait(self, timeout: float, where: str = "a call") -> str:
        try:
            return self._line(timeout)
        except TimeoutError:
            self.close()
            raise CallTimeout(f"exceeded the call time limit in {where} (no answer within "
                              f"{timeout:.1f} s; the bot was stopped)") from None

    def _line(self, timeout: float) -> str:
        while b"\n" not in self.buf:
            ready, _, _ = select.select([self.rfd], [], [], timeout)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.rfd, 65536)
            if not chunk:
                raise JsBotError("the Node.js process of the bot ended unexpectedly")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()


class _Invalid:
    """A non-integer value returned by a JS bot (shown in the disqualification reason)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text
