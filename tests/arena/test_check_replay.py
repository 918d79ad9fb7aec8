"""`umpire arena --check` (each kind of problem, and ok), `--replay`, and bot names with and
without the `arena:` prefix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.arena.check import check
from bot.arena.cli import main
from bot.arena.names import registered_name

BOT = """
class Bot:
    name = "Author"
    def __init__(self):
        self.plays = 0
    def draft_pick(self, cards):
        return 0
    def draft_receive(self, card):
        pass
    def main_play(self, cards, base):
        self.plays += 1
        if self.plays == 3:
            {action}
        return 0
    def main_postprocess(self, card):
        pass
"""


def _bot(tmp_path: Path, action: str, name: str = "author.py") -> str:
    path = tmp_path / name
    path.write_text(BOT.format(action=action) if action else "x = 1\n")
    return str(path)


@pytest.mark.parametrize("action, returned, expected", [
    # a crash
    ("raise KeyError('X9')", "main_play(['S5', 'S1', 'R1'], 'P8'), raised KeyError: 'X9' in "
     "main_play", "an int from 0 to 2"),
    # a wrong answer
    ("return 7", "main_play(['S5', 'S1', 'R1'], 'P8'), returned 7 after", "an int from 0 to 2"),
    ("return '0'", "returned '0' after", "an int from 0 to 2"),
    # a hang
    ("import time; time.sleep(30)", "main_play(['S5', 'S1', 'R1'], 'P8'), exceeded the time "
     "limit of 0.3 s in main_play: no answer after 0.8 s, so the bot was stopped",
     "an int from 0 to 2 (the index of a card of the hand), within the time limit of 0.3 s"),
    # slow, but it returns
    ("import time; time.sleep(0.4)", "exceeded the time limit of 0.3 s in main_play: took 0.4",
     "an int from 0 to 2 (the index of a card of the hand), within the time limit of 0.3 s"),
])
def test_check_reports_the_first_problem_call_answer_and_expectation(
        tmp_path: Path, action: str, returned: str, expected: str) -> None:
    result = check(_bot(tmp_path, action), limit=0.3, seed=4)
    assert not result.ok
    assert result.text.startswith(f"{tmp_path}/author.py: problem in match 1 (Author in seat 0 "
                                  "against saver, deal 0): call 29 of the match, ")
    assert returned in result.text and f"Expected {expected}" in result.text
    assert result.disqualified
    assert "\n" not in result.text.split("\n\n")[0]  # one paragraph (then a traceback)
    assert [c.method for c in result.calls][:2] == ["draft_pick", "draft_pick"]
    assert result.calls[-1].bot == "Author" and result.calls[-1].method == "main_play"


def test_check_reports_a_bot_that_does_not_load(tmp_path: Path) -> None:
    result = check(_bot(tmp_path, ""), limit=0.5)
    assert not result.ok and "the bot does not load: " in result.text and "has no bot" in result.text
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n")
    result = check(str(broken))
    assert not result.ok and "ModuleNotFoundError" in result.text


def test_check_finds_a_javascript_bot_that_logs_and_passes_a_good_one(tmp_path: Path) -> None:
    js = tmp_path / "chatty.js"
    js.write_text("({name: 'Chatty', draftPick(c) { console.log('pick', c); return 0; },\n"
                  "draftReceive(c) {}, mainPlay(c, b) { return 0; }, mainPostprocess(c) {}})")
    result = check(str(js), limit=1.0)
    assert not result.ok and not result.disqualified  # a warning: it plays on
    assert result.text.startswith(f"{js}: warning, in match 1 (Chatty in seat 0 against saver, "
                                  "deal 0): call 1 of the match, draft_pick(['S1', 'S6']), "
                                  "printed \"pick [ 'S1', 'S6' ]\\n\" (79 more calls of the "
                                  "matches checked printed too). Expected nothing on standard "
                                  "output")
    assert result.text.endswith("In a tournament the output is discarded and the bot plays on.")
    example = Path(__file__).resolve().parents[2] / "bot" / "arena" / "examples" / "simple.js"
    result = check(str(example))
    assert result.ok and result.text.startswith(f"{example}: ok. 16 matches against saver, ")
    assert "main_play 160 calls, median " in result.text


def test_check_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check", "arena:simple", "--json", str(tmp_path / "c.json")]) == 0
    assert capsys.readouterr().out.startswith("arena:simple: ok. 16 matches")
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["ok"] and len(data["calls"]) == 16 * 60
    assert main(["--check", _bot(tmp_path, "return 9")]) == 1
    assert "returned 9 after" in capsys.readouterr().out


def test_replay_plays_a_recorded_match_call_by_call(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = _bot(tmp_path, "return 7")
    record = tmp_path / "t.json"
    assert main(["arena:simple", bad, "saver", "--rounds", "3", "--seed", "4", "--jobs", "1",
                 "--json", str(record), "--no-progress"]) == 0
    data = json.loads(record.read_text())
    assert all(len(m["match_seed"]) == 64 for m in data["matches"])
    counted = next(m for m in data["matches"] if m["seats"] == ["simple", "saver"])
    capsys.readouterr()
    assert main(["--replay", str(record), str(counted["match"])]) == 0
    out = capsys.readouterr().out
    score = counted["score"]
    assert f"Score: {score[0]}-{score[1]} (as recorded)" in out
    assert "seat 0 simple  draft_pick(['R" in out and "seat 1 saver  " in out
    assert len([line for line in out.splitlines() if " seat " in line]) == 60
    # the void match of the disqualified bot replays too, to its failure
    gone = data["disqualified"][0]
    assert main(["--replay", str(record), str(gone["match"])]) == 0
    out = capsys.readouterr().out
    assert "seat 1 Author  main_play(['P4', 'R0', 'S3'], 'P8')  -> 7" in out and out.rstrip().endswith(
        "Disqualified: Author: returned an invalid index 7 from main_play (hand of 3)")
    assert main(["--replay", str(record), "99"]) == 2
    assert "has matches 1 to 9" in capsys.readouterr().err


def test_names_with_and_without_the_arena_prefix() -> None:
    bots = ["heuristic", "random", "arena:saver", "arena:basic-odds"]
    assert registered_name(bots, "saver") == "arena:saver"
    assert registered_name(bots, "arena:saver") == "arena:saver"
    assert registered_name(bots, "Basic_Odds") == "arena:basic-odds"
    assert registered_name(bots, "random") == "random"
    assert registered_name(bots, "nobody") == "nobody"
    from bot.console.demo import demo_players
    from games.registry import get_game

    players = demo_players(get_game("rps-poker"), ["saver", "arena:simple"])
    assert [p.bot for p in players] == ["arena:saver", "arena:simple"]


def test_replay_says_when_a_bot_kept_one_object_for_the_tournament(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    obj = tmp_path / "obj.py"
    obj.write_text("class _B:\n    name = 'Obj'\n"
                   "    def draft_pick(self, cards): return 0\n"
                   "    def draft_receive(self, card): pass\n"
                   "    def main_play(self, cards, base): return 0\n"
                   "    def main_postprocess(self, card): pass\nbot = _B()\n")
    record = tmp_path / "t.json"
    js = Path(__file__).resolve().parents[2] / "bot" / "arena" / "examples" / "simple.js"
    assert main([str(obj), str(js), "--rounds", "2", "--seed", "1", "--jobs", "1",
                 "--json", str(record), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["--replay", str(record), "2"]) == 0
    out = capsys.readouterr().out
    assert "Note: Obj keeps one object for the whole tournament" in out
    assert "Simple keeps" not in out and "(as recorded)" in out


def test_check_reports_what_disqualifies_before_a_print(tmp_path: Path) -> None:
    """Issue 42, item 13: a JavaScript draftPick that prints and returns "0" is disqualified
    in a tournament for the invalid index; --check says so first, the print after."""
    js = tmp_path / "printer.js"
    js.write_text("{\nname: 'Printer',\ndraftPick(cards) { console.log(0); return \"0\"; },\n"
                  "draftReceive(card) {},\nmainPlay(cards, base) { return 0; },\n"
                  "mainPostprocess(card) {},\n},\n")
    result = check(str(js))
    problem, warning = result.text.split("\n\n")
    assert result.disqualified and not result.ok
    assert problem.startswith(f"{js}: problem in match 1 (Printer in seat 0 against saver, "
                              "deal 0): call 1 of the match, draft_pick(['S1', 'S6']), "
                              "returned \"0\" after ")
    assert problem.endswith("In a tournament the bot would be disqualified: returned an "
                            "invalid index \"0\" from draft_pick.")
    assert warning.startswith(f"{js}: warning, in match 1 (Printer in seat 0 against saver, "
                              "deal 0): call 1 of the match, draft_pick(['S1', 'S6']), "
                              "printed '0\\n'. Expected nothing on standard output")
    # A print in one match, the disqualification in a later one: the disqualification first.
    late = tmp_path / "late.py"
    late.write_text(BOT.format(action="print('three'); return 0").replace(
        "def __init__(self):", "games = 0\n    def __init__(self):\n"
        "        Bot.games += 1\n        if Bot.games == 3:\n            self.draft_pick = None"))
    result = check(str(late))
    assert result.disqualified
    problem, warning = result.text.split("\n\n")[0], result.text.split("\n\n")[-1]
    assert problem.startswith(f"{late}: problem in match 3 ") and "raised TypeError" in problem
    assert warning.startswith(f"{late}: warning, in match 1 ") and "printed 'three\\n'" in warning


def test_a_python_bots_error_comes_with_its_line_and_traceback(tmp_path: Path) -> None:
    """Issue 42, item 14: the reason names the bot's file and line, --check (text and JSON)
    shows the bot's frames of the traceback, not the harness's; a tournament's reason too."""
    bot = tmp_path / "raiser.py"
    bot.write_text("TABLE = {}\n\nclass Raiser:\n    def draft_pick(self, cards):\n"
                   "        return 0\n    def draft_receive(self, card):\n        pass\n"
                   "    def main_play(self, cards, base):\n        return self.lookup(base)\n"
                   "    def lookup(self, base):\n        return TABLE[base]\n"
                   "    def main_postprocess(self, card):\n        pass\n")
    result = check(str(bot))
    assert "raised KeyError: 'R2' in main_play (raiser.py, line 11: return TABLE[base])." \
        in result.text.split("\n\n")[0]
    assert result.traceback == (
        "Traceback (the bot's frames, most recent call last):\n"
        f'  File "{bot}", line 9, in main_play\n    return self.lookup(base)\n'
        "           ^^^^^^^^^^^^^^^^^\n"
        f'  File "{bot}", line 11, in lookup\n    return TABLE[base]\n'
        "           ~~~~~^^^^^^\nKeyError: 'R2'")
    assert result.text.split("\n\n")[1] == result.traceback
    data = result.to_json()
    assert data["traceback"] == result.traceback and data["calls"][-1]["traceback"] == \
        result.traceback and "pyhost" not in json.dumps(data)
    # A tournament (lockstep, in the bot's process) gives the same reason.
    out = tmp_path / "t.json"
    assert main([str(bot), "simple", "--rounds", "2", "--seed", "1", "--json", str(out),
                 "--no-progress"]) == 0
    reason = json.loads(out.read_text())["disqualified"][0]["reason"]
    assert reason.endswith("in main_play (raiser.py, line 11: return TABLE[base])"), reason


def test_a_javascript_error_comes_with_its_line_and_column(tmp_path: Path) -> None:
    """Issue 42, item 14: a throw names the line and column in the bot's file, and the stack
    keeps the bot's frames only; a syntax error names its line and column too."""
    js = tmp_path / "thrower.js"
    js.write_text("{\nname: 'Thrower',\ndraftPick(cards) { return 0; },\ndraftReceive(card) {},\n"
                  "mainPlay(cards, base) {\n    return cards.foo.bar;\n},\n"
                  "mainPostprocess(card) {},\n},\n")
    result = check(str(js))
    assert "threw TypeError: Cannot read properties of undefined (reading 'bar') in mainPlay " \
        "(thrower.js, line 6, column 22)." in result.text.split("\n\n")[0]
    assert result.traceback == ("TypeError: Cannot read properties of undefined (reading "
                                f"'bar')\n    at Object.mainPlay ({js}:6:22)")
    broken = tmp_path / "broken.js"
    broken.write_text("{\nname: 'Broken',\ndraftPick(cards) { return 0; }\n"
                      "draftReceive(card) {},\n}\n")
    result = check(str(broken))
    assert "the file does not parse: SyntaxError: Unexpected identifier 'draftReceive' " \
        "(broken.js, line 4, column 1)" in result.text, result.text
    module = tmp_path / "module.js"
    module.write_text("module.exports = {\n  draftPick(cards) { return 0; },\n"
                      "  draftReceive(card) { }, }}\n")
    result = check(str(module))
    assert "SyntaxError: Unexpected token '}' (module.js, line 3, column 28)" in result.text, \
        result.text
