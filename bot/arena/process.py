"""A bot file run in its own process, where the controller can stop it whatever it does.

A user's bot (Python or JavaScript) runs in a host process (`pyhost.py`, `host.js`) that
answers one short text line per call. The controller waits at most the call's time limit
plus a little slack for pipes and scheduling; a bot that has not answered by then (stuck in
C code, sleeping, in an endless loop) is killed, and its call is reported as over the limit.
A call that returns but took too long is reported by the host, which times every call.

The bot's own output (print, console.log) never mixes with its answers: answers come back
on a pipe of their own, and what the bot writes goes to the controller's standard error
when asked (`show_output`), else nowhere.

Protocol (controller -> host, one line each):
    n              a new match (a Python class gets a fresh instance)  -> nothing
    p C1 C2        draft_pick([C1, C2])                               -> the index
    r C            draft_receive(C)                                   -> nothing
    m BASE C1 ..   main_play([C1, ..], BASE)                          -> the index
    o C            main_postprocess(C)                                -> nothing
    s              sync                                               -> "ok"
Answer lines: an integer; "X <text>" for a value that is not an integer (shown as text);
"E timeout\t<sentence>" or "E error\t<sentence>" when this call or an earlier notification
failed (an exception's line ends with a tab and its traceback, the bot's frames, as a JSON
string); the first line after start is "ok <json name>" or "E load\t<sentence>".
Lockstep mode sends one line per step for many matches ("@<step> <slots> <records>",
answered by one character per match; `lockstep.py`, `hostloop.answer_batch`).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

from bot.arena.faults import BotProcessError, CallTimeout

SLACK = 0.5  # seconds allowed on top of the limit for pipes and scheduling
LOAD_SECONDS = 10.0  # time allowed for starting the host and loading the bot


class PipeBot:
    """The four arena methods, forwarded to a bot running in a host process."""

    names: dict[str, str] = {}  # the methods' names in the bot's language, if not Python's

    def __init__(self, path: str, limit: float, show_output: bool = False,
                 capture_output: bool = False, wait: bool = True) -> None:
        self.path = str(path)
        self.limit = limit
        self.show_output = show_output
        self.capture_output = capture_output  # `--check`: what the bot prints, by `printed()`
        self._spawn()
        if wait:
            self.loaded()

    def _start(self) -> None:
        """Start the host process and load the bot (BotProcessError if it does not load)."""
        self._spawn()
        self.loaded()

    def _spawn(self) -> None:
        """Start the host process (`loaded()` then waits until it has loaded the bot, so
        that several processes can start at the same time)."""
        show_output = self.show_output
        answers_r, answers_w = os.pipe()
        capture = self.capture_output
        try:  # the bot's own output: to our standard error (fd 2) when shown
            self.proc = subprocess.Popen(
                self.command(answers_w), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE if capture else 2 if show_output else subprocess.DEVNULL,
                stderr=None if show_output else subprocess.DEVNULL,
                pass_fds=(answers_w,), bufsize=0,
                # captured: unbuffered, so a print is in the pipe before the call's answer
                env={**os.environ, "PYTHONUNBUFFERED": "1"} if capture else None,
                start_new_session=True)  # Ctrl-C stops the controller, which stops the bot
        except OSError:
            os.close(answers_r)
            raise
        finally:
            os.close(answers_w)
        assert self.proc.stdin is not None
        self.wfd = self.proc.stdin.fileno()
        self.rfd = answers_r
        self.buf = b""
        self.pending: list[str] = []  # notifications sent since the last answer

    def loaded(self) -> None:
        """Wait until the host has loaded the bot (BotProcessError if it does not load)."""
        limit = self.limit
        try:
            first = self._line(max(LOAD_SECONDS, limit + SLACK))
        except TimeoutError:
            self.close()
            raise BotProcessError(f"could not load {self.path}: it did not start within "
                                  f"{max(LOAD_SECONDS, limit + SLACK):g} s") from None
        if not first.startswith("ok "):
            self.close()
            raise BotProcessError(f"could not load {self.path}: {first.partition(chr(9))[2]}")
        hello = json.loads(first[3:])
        self.name = hello["name"] if isinstance(hello, dict) else hello
        # a Python class: a fresh instance plays each match (JS bots: one object throughout)
        self.fresh_instances = bool(isinstance(hello, dict) and hello.get("fresh"))
        self.skip = list(hello.get("skip", ())) if isinstance(hello, dict) else []
        for method in self.skip:
            setattr(self, method, _nothing)  # a method that can do nothing: not sent

    def command(self, answer_fd: int) -> list[str]:
        raise NotImplementedError

    # --- the arena API ----------------------------------------------------------------------
    def new_match(self) -> PipeBot:
        """Start a match; a bot stopped earlier (over its time limit) gets a new process."""
        if self.rfd < 0:
            self._start()
        self._send("n\n")
        return self

    def draft_pick(self, cards: list[str]) -> object:
        self._send(f"p {cards[0]} {cards[1]}\n")
        return self._answer("draft_pick")

    def draft_receive(self, card: str) -> None:
        self._send(f"r {card}\n")
        self.pending.append("draft_receive")

    def main_play(self, cards: list[str], base: str) -> object:
        self._send(f"m {base} {' '.join(cards)}\n")
        return self._answer("main_play")

    def main_postprocess(self, card: str) -> None:
        self._send(f"o {card}\n")
        self.pending.append("main_postprocess")

    def arena_sync(self) -> None:
        """Collect failures of the last notifications (called at the end of each match)."""
        self._send("s\n")
        line = self._wait("the end of the match")
        if line.startswith("E "):
            self._fail(line)

    # --- plumbing -------------------------------------------------------------------------
    def _send(self, text: str) -> None:
        if self.rfd < 0:
            raise BotProcessError("the process of the bot was stopped earlier")
        try:
            os.write(self.wfd, text.encode())
        except OSError:
            raise BotProcessError(f"the process of the bot ended ({self._ended()})") from None

    def _answer(self, where: str) -> object:
        line = self._wait(where)
        if line.startswith("E "):
            self._fail(line)
        if line.startswith("X "):
            return _Invalid(line[2:])
        try:
            return int(line)
        except ValueError:
            return _Invalid(line)

    def _fail(self, line: str) -> None:
        kind, sentence, trace = failure_parts(line)
        if kind == "timeout":
            raise CallTimeout(sentence)
        raise BotProcessError(sentence, trace)

    def _wait(self, where: str) -> str:
        """The next answer line; the bot is killed if none comes within its calls' limits."""
        calls = [self.names.get(c, c) for c in (*self.pending, where)]
        self.pending = []
        timeout = self.limit * len(calls) + SLACK
        try:
            return self._line(timeout)
        except TimeoutError:
            self.close()
            what = " or ".join(dict.fromkeys(calls))
            raise CallTimeout(f"exceeded the time limit of {self.limit:g} s in {what}: no "
                              f"answer after {timeout:.1f} s, so the bot was stopped") from None

    def _line(self, timeout: float) -> str:
        while b"\n" not in self.buf:
            ready, _, _ = select.select([self.rfd], [], [], timeout)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.rfd, 65536)
            if not chunk:
                raise BotProcessError(f"the process of the bot ended ({self._ended()})")
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return line.decode(errors="replace")

    def _ended(self) -> str:
        try:
            code = self.proc.wait(0.5)
        except subprocess.TimeoutExpired:
            return "it closed its answer pipe"
        if code < 0:
            return f"killed by signal {-code}"
        return f"exit code {code}"

    def printed(self) -> str:
        """What the bot wrote to its standard output since the last look (capture_output)."""
        out = self.proc.stdout
        if out is None:
            return ""
        data = b""
        while select.select([out], [], [], 0)[0]:
            chunk = os.read(out.fileno(), 65536)
            if not chunk:
                break
            data += chunk
        return data.decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        if self.rfd >= 0:
            os.close(self.rfd)
            self.rfd = -1


def failure_parts(line: str) -> tuple[str, str, str]:
    """(kind, sentence, traceback or "") of a failure's answer line, `E <kind>\t<sentence>`
    with, for an exception, a tab and its traceback (the bot's frames) as a JSON string."""
    kind, _, rest = line[2:].partition("\t")
    sentence, _, trace = rest.partition("\t")
    try:
        trace = json.loads(trace) if trace else ""
    except ValueError:
        trace = ""
    return kind, sentence, trace if isinstance(trace, str) else ""


def _nothing(card: str) -> None:
    """Stands for a notification method of the bot whose body is empty."""


class _Invalid:
    """A value that is not an integer, returned by a bot in a process (shown as text)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class PyBot(PipeBot):
    """A Python bot file (`bot.py` or `bot.py:Name`) in its own Python process."""

    def command(self, answer_fd: int) -> list[str]:
        return [sys.executable, "-m", "bot.arena.pyhost", self.path, repr(float(self.limit)),
                str(answer_fd)]


def python_path(arg: str) -> Path:
    """The file of a Python bot argument (`bot.py` or `bot.py:Name`)."""
    path_text, _, attr = arg.partition(".py:")
    return Path(path_text + ".py" if attr else path_text)
