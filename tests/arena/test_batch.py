"""Bot files at batch speed: the same results as one call at a time, and a hang in one of
many concurrent matches stops only its bot, within its time limit."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from bot.arena.loader import resolve_all
from bot.arena.tournament import run

EXAMPLES = Path(__file__).resolve().parents[2] / "bot" / "arena" / "examples"
CLASS_BOT = """
class Bot:
    name = "{name}"
    def __init__(self):
        self.seen = []
    def draft_pick(self, cards):
        self.seen += cards
        return 1 if cards[1][1] > cards[0][1] else 0
    def draft_receive(self, card):
        self.seen.append(card)
    def main_play(self, cards, base):
        {play}
    def main_postprocess(self, card):
        self.seen.append(card)
"""


def _file(tmp_path: Path, name: str, play: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(CLASS_BOT.format(name=name, play=play))
    return str(path)


def _js(tmp_path: Path) -> str:
    """A JavaScript bot whose answers depend on its state: each match must start it afresh
    (a shared object would answer by what other matches did)."""
    path = tmp_path / "count.js"
    path.write_text("({name: 'CountJS', state: {n: 0},\n"
                    " draftPick(c) { this.state.n++; return this.state.n % 2; },\n"
                    " draftReceive(c) { this.state.n += 2; },\n"
                    " mainPlay(c, b) { this.state.n++; return this.state.n % c.length; },\n"
                    " mainPostprocess(c) { this.state.n += 3; }})")
    return str(path)


def test_batch_mode_gives_the_same_results_as_one_call_at_a_time(tmp_path: Path) -> None:
    bots = [
        _file(tmp_path, "Counter", "return len(self.seen) % len(cards)"),
        _file(tmp_path, "Lowest", "return min(range(len(cards)), key=lambda i: cards[i][1])"),
        # fails in some match: a disqualification must come out the same too
        _file(tmp_path, "Picky", "return 5 if base == 'S7' and len(self.seen) > 14 else 0"),
        str(EXAMPLES / "simple.js"),
        "saver",
        _js(tmp_path),
    ]
    specs = resolve_all(bots)
    for jobs in (1, 2):
        one = run(specs, 40, 9, jobs, 1.0, batch=False)
        many = run(specs, 40, 9, jobs, 1.0, batch=True)
        assert bytes(one.scores) == bytes(many.scores)
        assert one.disqualified.keys() == many.disqualified.keys() == {2}
        assert one.disqualified[2][1] == many.disqualified[2][1]
        assert one.disqualified[2][1].startswith("returned an invalid index 5 from main_play")
        assert len(one) == 10 * 40  # the five other bots' pairs, every cycle


def _js_file(tmp_path: Path, name: str, play: str) -> str:
    path = tmp_path / f"{name}.js"
    path.write_text("({name: 'NAME', state: {seen: []},\n"
                    " draftPick(c) { this.state.seen.push(...c); return c[1][1] > c[0][1] ? 1 : 0; },\n"
                    " draftReceive(c) { this.state.seen.push(c); },\n"
                    " mainPlay(cards, base) { const seen = this.state.seen; PLAY },\n"
                    " mainPostprocess(c) { this.state.seen.push(c); }})"
                    .replace("NAME", name).replace("PLAY", play))
    return str(path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_bot_files_only_lockstep_gives_the_same_results_as_one_call_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    """Only bot files: the lockstep path (one message per bot per step), failures included:
    an invalid index, a raise, a JavaScript throw and a wrong type, each in some match."""
    from bot.arena import lockstep

    calls = []
    monkeypatch.setattr(lockstep, "_play_wave", lambda *a, _p=lockstep._play_wave:
                        calls.append(1) or _p(*a))
    bots = [
        _file(tmp_path, "Summer", "return sum(int(c[1]) for c in self.seen) % len(cards)"),
        _file(tmp_path, "Picky", "return 5 if base == 'S7' and len(self.seen) > 14 else 0"),
        _file(tmp_path, "Raises", "return [0][len(self.seen) - 40 if base == 'P2' else 0]"),
        _js_file(tmp_path, "ThrowsJS", "if (base === 'R5' && seen.length > 16) "
                 "throw new Error('no  R5'); return seen.length % cards.length;"),
        _js_file(tmp_path, "TypeJS", "return base === 'S1' && seen.length > 17 ? '0' : 0;"),
        str(EXAMPLES / "simple.js"),
        _js(tmp_path),
    ]
    specs = resolve_all(bots)
    one = run(specs, 40, 9, jobs, 1.0, batch=False)
    if jobs == 1:
        assert not calls
    many = run(specs, 40, 9, jobs, 1.0, batch=True)
    if jobs == 1:
        assert calls  # the lockstep path was taken
    assert bytes(one.scores) == bytes(many.scores)
    assert one.disqualified == many.disqualified
    reasons = sorted(reason.split(" in ")[0].split(" from ")[0]
                     for _, reason in many.disqualified.values())
    assert reasons == ["raised IndexError: list index out of range",
                       'returned an invalid index "0"', "returned an invalid index 5",
                       "threw Error: no R5"], reasons
    assert len(many) == 3 * 40  # the pairs of Summer, Simple and CountJS


def test_a_hang_in_one_of_many_concurrent_matches_stops_only_its_bot(tmp_path: Path) -> None:
    marker = tmp_path / "hung"
    hang = _file(tmp_path, "Hangs", f"""import os, time
        if len(self.seen) == 17 and not os.path.exists({str(marker)!r}):
            open({str(marker)!r}, "w").close()
            time.sleep(60)
        return 0""")
    other = _file(tmp_path, "Other", "return 0")
    specs = resolve_all([hang, other, str(EXAMPLES / "simple.js")])
    start = time.perf_counter()
    results = run(specs, 300, 3, 1, 0.3)  # 900 matches, up to 256 at a time
    took = time.perf_counter() - start
    assert marker.exists()
    (match, reason), = results.disqualified.values()
    assert 0 in results.disqualified
    # (the host had main_postprocess and main_play to do: which one hung cannot be known)
    assert reason.startswith("exceeded the time limit of 0.3 s in main_postprocess or "
                             "main_play: no answer after 0.")
    assert reason.endswith(", so the bot was stopped")
    assert len(results) == 300 and all(set(r.seats) == {1, 2} for r in results)
    assert took < 0.3 + 0.5 + 6, took  # the others waited for the limit and slack only


@pytest.mark.parametrize("third", ["simple", "file"])  # a built-in beside; files only
@pytest.mark.parametrize("action, reason", [
    ("raise KeyError('X9')", "raised KeyError: 'X9' in main_play (Bad.py, line 13: raise "
     "KeyError('X9'))"),
    ("return 'one'", "returned an invalid index 'one' from main_play (hand of 3)"),
    ("import os; os._exit(3)", "the process of the bot ended (exit code 3)"),
    ("print('0'); return 0", None),  # output is never an answer, nor a failure
])
def test_failures_in_batch_mode_disqualify_as_one_call_at_a_time(
        tmp_path: Path, action: str, reason: str | None, third: str) -> None:
    bad = _file(tmp_path, "Bad", f"""if len(self.seen) == 17:
            {action}
        return 0""")
    if third == "file":
        third = _file(tmp_path, "Third", "return 0")
    specs = resolve_all([bad, str(EXAMPLES / "simple.js"), third])
    one = run(specs, 30, 4, 1, 1.0, batch=False)
    many = run(specs, 30, 4, 1, 1.0, batch=True)
    assert bytes(one.scores) == bytes(many.scores)
    assert one.disqualified == many.disqualified
    if reason is None:
        assert not many.disqualified and len(many) == 90
    else:
        assert many.disqualified == {0: (0, reason)} and len(many) == 30


def test_a_built_in_call_that_never_returns_in_lockstep_is_stopped_by_the_watchdog(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A built-in bot beside a bot file plays in lockstep inside the worker: a call of it
    that never returns is stopped (watchdog) and disqualifies it in that match only."""
    from bot.arena.builtins import BUILTINS

    simple = BUILTINS["simple"]  # the compiled class when built: its Python subclass's own
    # main_play is the one called
    started = []

    class Stuck(simple):  # type: ignore[misc, valid-type]
        def main_play(self, cards: list[str], base: str) -> int:
            started.append(1)
            if len(started) == 700:
                while True:
                    time.sleep(0.01)
            return 0

    monkeypatch.setitem(BUILTINS, "simple", Stuck)
    specs = resolve_all([_file(tmp_path, "Other", "return 0"), "simple"])
    start = time.perf_counter()
    results = run(specs, 200, 3, 1, 0.2)  # one job: the worker is this process
    took = time.perf_counter() - start
    (match, reason), = results.disqualified.values()
    assert 1 in results.disqualified
    assert reason == ("exceeded the time limit of 0.2 s in main_play: the call never "
                      "returned and was stopped")
    assert 0 < match < 200 and len(results) == 0  # its only pair is void
    assert took < 4 * 0.2 + 1 + 5, took


def test_the_watchdog_stops_a_stuck_call_even_where_sigint_was_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An earlier setting of the process (an embedding program, or a worker's own Ctrl-C
    handling) ignores SIGINT: the watchdog's interrupt would do nothing and the call would
    hang for ever; the arena puts Python's handler back while it plays, then restores it."""
    from bot.arena.builtins import BUILTINS

    simple = BUILTINS["simple"]  # the compiled class when built: its Python subclass's own
    # main_play is the one called

    class Stuck(simple):  # type: ignore[misc, valid-type]
        def main_play(self, cards: list[str], base: str) -> int:
            while True:
                time.sleep(0.01)

    monkeypatch.setitem(BUILTINS, "simple", Stuck)
    specs = resolve_all([_file(tmp_path, "Other", "return 0"), "simple"])
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        results = run(specs, 2, 3, 1, 0.2)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # restored
    finally:
        signal.signal(signal.SIGINT, before)
    (match, reason), = results.disqualified.values()
    assert "never returned and was stopped" in reason
