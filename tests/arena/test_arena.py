"""The bot arena: disqualification, JavaScript bots, reproducibility, totals, strength."""

from __future__ import annotations

import json
import multiprocessing as mp
import time
from pathlib import Path

import pytest

from bot.arena import jsbot
from bot.arena.cli import main
from bot.arena.loader import BotLoadError, resolve_all
from bot.arena.report import leaderboard_text, standings, to_json
from bot.arena.tournament import Schedule, run, worker_chunks

# The seed's Simple bot in JavaScript, as shipped with the arena's examples.
SIMPLE_JS = str(Path(__file__).resolve().parents[2] / "bot" / "arena" / "examples" / "simple.js")


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _tournament(args: list[str], rounds: int, seed: int = 7, jobs: int = 1,
                limit: float = 1.0):
    specs = resolve_all(args, limit)
    results = run(specs, rounds, seed, jobs, limit)
    return specs, results, {s.name: s for s in standings(specs, results)}


FAILING = """
class Bot:
    name = "Failing"
    def __init__(self):
        self.games = 0
    def draft_pick(self, cards):
        return 0
    def draft_receive(self, card):
        pass
    def main_play(self, cards, base):
        self.games += 1
        if self.games == 4:
            {action}
        return 0
    def main_postprocess(self, card):
        pass
"""


# --- disqualification -------------------------------------------------------------------------
@pytest.mark.parametrize("action, reason", [
    ("raise ValueError('boom')", "raised ValueError: boom in main_play"),
    ("return 3", "returned an invalid index 3 from main_play (hand of 3)"),
    ("return True", "returned an invalid index True from main_play (hand of 3)"),
    ("import time; time.sleep(0.3)", "exceeded the time limit of 0.2 s in main_play: took 0.3"),
])
def test_disqualified_at_once_leaves_the_tournament_and_all_its_matches_are_void(
        tmp_path: Path, action: str, reason: str) -> None:
    bad = _write(tmp_path, "bad.py", FAILING.format(action=action))
    specs, results, table = _tournament(["simple", bad, "minimal-valid"], rounds=4, limit=0.2)
    # bot order: simple=0, Failing=1, minimal-valid=2; match 0 is simple v Failing
    match, why = results.disqualified[1]
    assert match == 0 and reason in why
    assert not any(1 in r.seats for r in results)  # void, for every opponent
    assert "Failing" not in table
    assert len(results) == 4  # the other pair plays all four cycles
    text = leaderboard_text(specs, results, seed=7, rounds=4, jobs=1, seconds=1.0)
    assert f"  Failing: match 1 against simple: {reason}" in text
    assert sum(s.points for s in table.values()) == 10 * len(results)


@pytest.mark.parametrize("action", [
    "while True: pass",  # a loop in Python
    "sum(range(10**10))",  # stuck in C code: no signal can interrupt it
    "import time; time.sleep(60)",  # asleep
])
def test_a_python_call_that_never_returns_is_stopped_at_its_limit(tmp_path: Path,
                                                                   action: str) -> None:
    bad = _write(tmp_path, "hang.py", FAILING.format(action=action))
    start = time.perf_counter()
    _, results, table = _tournament([bad, "simple"], rounds=2, limit=0.2)
    assert time.perf_counter() - start < 5
    assert results.disqualified[0] == (0, "exceeded the time limit of 0.2 s in main_play: "
                                          "no answer after 0.7 s, so the bot was stopped")
    assert len(results) == 0


def test_a_python_bot_that_prints_is_not_disqualified(tmp_path: Path,
                                                      capfd: pytest.CaptureFixture[str]) -> None:
    chatty = _write(tmp_path, "chatty.py", FAILING.format(action="print('thinking...')"))
    _, results, _ = _tournament([chatty, "simple"], rounds=2)
    assert all(r.disqualified is None for r in results) and len(results) == 2
    assert "thinking" not in capfd.readouterr().out


def test_a_bot_file_never_runs_in_the_controller(tmp_path: Path) -> None:
    # Its import runs in its own process: a file that sleeps on import cannot hold us up
    # past the load limit, and its module-level state is not ours.
    marker = tmp_path / "ran"
    bot = _write(tmp_path, "b.py", f"open({str(marker)!r}, 'a').write('x')\n"
                 + FAILING.format(action="pass"))
    specs = resolve_all([bot, "simple"])
    assert specs[0].kind == "python" and specs[0].name == "Failing"
    import sys
    assert not any("arena_bot_" in m for m in sys.modules)
    assert marker.read_text() == "x"  # loaded once, in the bot's process


@pytest.mark.parametrize("body, reason", [
    ("throw new Error('nope')", "threw Error: nope in mainPlay"),
    ("return 5", "returned an invalid index 5 from main_play"),
    ("return '0'", "returned an invalid index \"0\" from main_play"),
    ("const t = Date.now(); while (Date.now() - t < 400) {} return 0",
     "exceeded the time limit of 0.2 s in mainPlay: took 0."),
    ("while (true) {}", "exceeded the time limit of 0.2 s in mainPlay: no answer after 0.7 s, "
     "so the bot was stopped"),
])
def test_javascript_bot_disqualified(tmp_path: Path, body: str, reason: str) -> None:
    bad = _write(tmp_path, "bad.js", "module.exports = {name: 'BadJS', n: {c: 0},\n"
                 " draftPick(cards) { return 0; }, draftReceive(card) {},\n"
                 " mainPlay(cards, base) { if (++this.n.c === 4) { " + body + " } return 0; },\n"
                 " mainPostprocess(card) {} };\n")
    _, results, table = _tournament([bad, "simple"], rounds=3, limit=0.2)
    (match, why), = results.disqualified.values()
    assert match == 0 and reason in why and 0 in results.disqualified
    assert len(results) == 0 and "BadJS" not in table


def test_a_javascript_bot_that_logs_is_not_disqualified_and_shows_its_output_on_request(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    chatty = _write(tmp_path, "chatty.js", "({name: 'Chatty', draftPick(c) {\n"
                    "console.log('picking', c); process.stdout.write('7\\n'); return 0; },\n"
                    "draftReceive(c) {}, mainPlay(c, b) { console.log(0); return 0; },\n"
                    "mainPostprocess(c) {}})")
    _, results, _ = _tournament([chatty, "simple"], rounds=2)
    assert all(r.disqualified is None for r in results) and len(results) == 2
    captured = capfd.readouterr()
    assert "picking" not in captured.out + captured.err
    assert main([chatty, "simple", "--rounds", "1", "--no-progress", "--show-output"]) == 0
    captured = capfd.readouterr()
    assert "picking" in captured.err and "picking" not in captured.out
    assert "Chatty" in captured.out


def test_javascript_notification_error_is_caught(tmp_path: Path) -> None:
    bad = _write(tmp_path, "late.js", "({name: 'Late', draftPick(c) { return 0; },\n"
                 "draftReceive(c) {}, mainPlay(c, b) { return 0; },\n"
                 "mainPostprocess(c) { throw new TypeError('late'); }});")
    _, results, _ = _tournament(["simple", bad], rounds=1)
    assert results.disqualified[1][0] == 0 and "threw TypeError: late" in results.disqualified[1][1]


# --- JavaScript bots in the seed's format ----------------------------------------------------
def test_seed_simple_js_plays_a_full_tournament_like_the_python_port() -> None:
    specs, results, table = _tournament(
        [SIMPLE_JS, "simple", "minimal-valid", "basic-odds"], rounds=20, jobs=2)
    assert [s.name for s in specs][0] == "Simple" and specs[0].kind == "js"
    assert len(results) == 20 * 6 and not any(r.disqualified is not None for r in results)
    js, py = table["Simple"], table["simple"]
    # The same bot in JavaScript and Python meets the same deals: identical results.
    assert js.head_to_head[2] == py.head_to_head[2]
    assert js.head_to_head[3] == py.head_to_head[3]
    assert js.head_to_head[1] == py.head_to_head[0] == 100  # mirror matches split evenly


def test_the_frozen_bot_cannot_assign_its_properties(tmp_path: Path) -> None:
    # As in the seed's controller (Object.freeze): assignment fails silently in sloppy code...
    sloppy = _write(tmp_path, "sloppy.js", "({name: 'Sloppy', count: 0,\n"
                    "draftPick(c) { this.count = 1; return this.count; },\n"
                    "draftReceive(c) {}, mainPlay(c, b) { return 0; }, mainPostprocess(c) {}})")
    _, results, _ = _tournament([sloppy, "simple"], rounds=1)
    assert results[0].disqualified is None  # this.count stayed 0, a valid index
    # ...and throws in strict code.
    strict = _write(tmp_path, "strict.js", "'use strict'; module.exports = {name: 'Strict',\n"
                    "count: 0, draftPick(c) { this.count = 1; return 0; },\n"
                    "draftReceive(c) {}, mainPlay(c, b) { return 0; }, mainPostprocess(c) {}};")
    _, results, _ = _tournament([strict, "simple"], rounds=1)
    assert results.disqualified[0][0] == 0 and "TypeError" in results.disqualified[0][1]


def test_missing_node_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(jsbot.shutil, "which", lambda name: None)
    assert main([SIMPLE_JS, "simple", "--rounds", "1", "--no-progress"]) == 2
    assert "JavaScript bots need Node.js" in capsys.readouterr().err


def test_unknown_bot_is_refused() -> None:
    with pytest.raises(BotLoadError, match="neither a built-in bot"):
        resolve_all(["no-such-bot", "simple"])


# --- schedule, reproducibility, totals --------------------------------------------------------
def test_schedule_round_robin_with_seats_swapped_on_the_same_deal() -> None:
    s = Schedule(3, 4)
    assert s.matches == 12
    assert [s.match(m) for m in range(6)] == [
        (0, 1, 0), (0, 2, 0), (1, 2, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0)]
    assert s.match(6) == (0, 1, 1) and s.match(9) == (1, 0, 1)


def test_same_seed_same_results_and_jobs_do_not_change_fresh_bots(tmp_path: Path) -> None:
    bots = ["simple", "minimal-valid", "basic-odds", "saver"]
    out = []
    for jobs in (1, 2, 2):
        path = tmp_path / f"r{len(out)}.json"
        assert main([*bots, "--rounds", "30", "--seed", "11", "--jobs", str(jobs),
                     "--json", str(path), "--no-progress"]) == 0
        data = json.loads(path.read_text())
        out.append((data["leaderboard"], data["matches"]))
    assert out[0] == out[1] == out[2]
    _, a, _ = _tournament(bots, rounds=10, seed=1)
    _, b, _ = _tournament(bots, rounds=10, seed=2)
    assert [r.score for r in a] != [r.score for r in b]


def test_totals_always_equal_10_per_match_played(tmp_path: Path) -> None:
    bad = _write(tmp_path, "bad.py", FAILING.format(action="return -1"))
    for rounds in (1, 3, 8):
        specs, results, table = _tournament(["simple", "saver", bad, "minimal-valid"], rounds)
        assert sum(s.points for s in table.values()) == 10 * len(results)
        assert sum(s.matches for s in table.values()) == 2 * len(results)


def test_cli_output_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "out.json"
    assert main(["simple", "minimal-valid", "--rounds", "10", "--seed", "3", "--jobs", "1",
                 "--json", str(path), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "rank" in text and "points" in text and "Head to head" in text
    data = json.loads(path.read_text())
    assert data["seed"] == 3 and len(data["matches"]) == 10
    board = {row["bot"]: row for row in data["leaderboard"]}
    assert board["simple"]["points"] + board["minimal-valid"]["points"] == 100
    assert data["head_to_head"]["simple"]["minimal-valid"] == board["simple"]["points"]


# --- strength over 2,000 seeded matches --------------------------------------------------------
def _pair_points(a: str, b: str, matches: int = 2000, seed: int = 2021) -> tuple[int, int]:
    _, results, table = _tournament([a, b], rounds=matches, seed=seed, jobs=2)
    assert len(results) == matches
    return table[a].points, table[b].points


def test_simple_beats_minimal_valid_over_2000_matches() -> None:
    simple, minimal = _pair_points("simple", "minimal-valid")
    assert simple + minimal == 20000
    assert simple > 0.6 * 20000, (simple, minimal)


@pytest.mark.parametrize("strong", ["basic-odds", "saver"])
def test_stronger_bots_beat_simple_over_2000_matches(strong: str) -> None:
    mine, simple = _pair_points(strong, "simple")
    assert mine > 0.55 * 20000, (mine, simple)


R0_BOT = ("class Bot:\n    name = 'R0'\n"
          "    def draft_pick(self, cards):\n"
          "        if cards[0] == 'R0':\n            raise ValueError('R0')\n"
          "        return 0\n"
          "    def draft_receive(self, card): pass\n"
          "    def main_play(self, cards, base): return 0\n"
          "    def main_postprocess(self, card): pass\n")


def test_a_disqualification_counts_the_same_with_parallel_workers(tmp_path: Path) -> None:
    # The bot fails the first time it is offered R0 first. With 2 jobs the second worker
    # plays (and reports) some of its matches after that before it meets its own failure:
    # none of them may count, and the table is the one of a single worker.
    bad = _write(tmp_path, "r0.py", R0_BOT)
    runs = [_tournament(["simple", bad, "minimal-valid"], rounds=1000, jobs=jobs)
            for jobs in (1, 2)]
    (specs, one, table), (_, two, _) = runs
    assert [(r.number, r.score) for r in one] == [(r.number, r.score) for r in two]
    assert one.disqualified == two.disqualified
    (m, reason), = one.disqualified.values()
    assert "raised ValueError: R0" in reason and m < 500  # in the first worker's chunk
    assert len(one) == 1000 and all(set(r.seats) == {0, 2} for r in one)
    assert "R0" not in table
    assert sum(s.points for s in table.values()) == 10 * len(one)


def _board(specs, results) -> tuple[list, list]:
    data = to_json(specs, results, seed=0, rounds=0, jobs=1, call_timeout=1.0, seconds=0.0)
    rows = [{k: v for k, v in row.items() if k != "index"} for row in data["leaderboard"]]
    gone = [(d["bot"], d["reason"]) for d in data["disqualified"]]
    return rows, gone


def test_the_leaderboard_does_not_depend_on_the_schedule(tmp_path: Path) -> None:
    # The same matches (every pair plays deals 0-19 from both seats) in two schedules: the
    # bots listed in one order and in the reverse order. R0 fails in a different match of
    # each (the first in schedule order where it is offered R0 first): under a rule that
    # scored its failed match 0-10, whoever met it first would gain ten points.
    bad = _write(tmp_path, "r0.py", R0_BOT)
    bots = ["simple", "saver", bad, "basic-odds", "minimal-valid"]
    forward = _tournament(bots, rounds=40, seed=5)
    backward = _tournament(bots[::-1], rounds=40, seed=5)
    first = [to_json(*run[:2], seed=0, rounds=0, jobs=1, call_timeout=1.0,
                     seconds=0.0)["disqualified"][0]["opponent"] for run in (forward, backward)]
    assert first == ["simple", "minimal-valid"]  # a different victim in each schedule
    a, b = _board(*forward[:2]), _board(*backward[:2])
    assert a == b
    assert a[1] == [("R0", "raised ValueError: R0 in draft_pick (r0.py, line 5: raise "
                            "ValueError('R0'))")]
    assert [row["bot"] for row in a[0]][0] != "R0" and len(a[0]) == 4
    assert all(row["matches"] == 3 * 40 for row in a[0])


def test_built_in_bots_share_out_chunks_other_bots_keep_a_fixed_split(tmp_path: Path) -> None:
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    shared = worker_chunks(resolve_all(["simple", "saver"]), 7, 2, ctx)
    first, second = iter(shared[0]), iter(shared[1])
    taken = [next(first), next(second), next(first), next(first), *second, *first]
    assert taken == [0, 1, 2, 3, 4, 5, 6]  # one counter: each chunk once, to who asks
    bot = _write(tmp_path, "plain.py", FAILING.format(action="pass"))
    assert worker_chunks(resolve_all(["simple", bot]), 7, 2, ctx) == [[0, 2, 4, 6], [1, 3, 5]]


def test_a_bot_stopped_at_its_limit_gets_a_new_process_for_its_next_match(tmp_path: Path) -> None:
    from bot.arena.match import CallTimeout
    from bot.arena.process import PyBot

    once = tmp_path / "slept"
    bot = PyBot(_write(tmp_path, "sleepy.py", "import os, time\nclass Bot:\n"
                       "    def draft_pick(self, cards):\n"
                       f"        if not os.path.exists({str(once)!r}):\n"
                       f"            open({str(once)!r}, 'w').close()\n"
                       "            time.sleep(60)\n"
                       "        return 1\n"
                       "    def draft_receive(self, card): pass\n"
                       "    def main_play(self, cards, base): return 0\n"
                       "    def main_postprocess(self, card): pass\n"), 0.2)
    try:
        first = bot.proc
        start = time.perf_counter()
        with pytest.raises(CallTimeout, match="exceeded the time limit of 0.2 s in draft_pick: "
                                              "no answer after 0.7 s, so the bot was stopped"):
            bot.new_match().draft_pick(["R1", "P2"])
        assert time.perf_counter() - start < 3
        assert first.poll() is not None  # killed
        assert bot.new_match().draft_pick(["R1", "P2"]) == 1  # a new process answers
        assert bot.proc is not first
    finally:
        bot.close()
