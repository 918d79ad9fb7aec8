"""The optional compiled core (setup.py, bot/arena/core.py): the same results as pure Python,
never used when stale, and a build that falls back to pure Python without a compiler."""

from __future__ import annotations

import importlib
import json
import os
import random
import runpy
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from bot.arena import core, match
from bot.arena.core import COMPILED, PURE, compiled, source_hash
from bot.arena.faults import CallTimeout, Disqualified

ROOT = Path(__file__).resolve().parents[2]
TWIN = "bot.arena._match_c"
BOT_FILE = ("class Bot:\n"
            "    def draft_pick(self, cards): return 1 if cards[0][1] < cards[1][1] else 0\n"
            "    def draft_receive(self, card): pass\n"
            "    def main_play(self, cards, base): return len(cards) - 1\n"
            "    def main_postprocess(self, card): pass\n")


def _built() -> bool:
    """Whether a current compiled core is built (used unless UMPIRE_PURE_PYTHON is set)."""
    try:
        twin = importlib.import_module(TWIN)
    except ImportError:
        return False
    return getattr(twin, "SOURCE_SHA256", None) == source_hash(match.__file__)


def _arena(args: list[str], pure: bool, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "UMPIRE_PURE_PYTHON": "1" if pure else "0"}
    return subprocess.run([sys.executable, "-m", "bot.cli", "arena", *args], env=env,
                          capture_output=True, text=True, timeout=300, check=True, cwd=cwd)


def test_both_cores_give_the_same_tournament(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(BOT_FILE)
    (tmp_path / "b.py").write_text(BOT_FILE.replace("len(cards) - 1", "0"))
    args = ["saver", "basic-odds", "simple", "minimal-valid", "a.py", "b.py", "--rounds",
            "12", "--seed", "31", "--jobs", "1", "--no-progress", "--json", "-"]
    runs = {pure: json.loads(_arena(args, pure, tmp_path).stdout) for pure in (False, True)}
    assert runs[True]["core"] == PURE
    assert runs[False]["core"] == (COMPILED if _built() else PURE)
    for run in runs.values():
        del run["core"], run["seconds"]
    assert runs[False] == runs[True]
    assert len(runs[True]["matches"]) == 12 * 15


@pytest.mark.skipif(match.CORE != COMPILED, reason="this process runs pure Python")
def test_the_pinned_scores_hold_in_pure_python_too() -> None:
    # This process runs the compiled core (skipped otherwise): the pinned file once more,
    # with it forced off.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "UMPIRE_PURE_PYTHON": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(ROOT / "tests/arena/test_pinned_scores.py")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]


def test_failures_are_the_same_classes_in_both_cores() -> None:
    assert match.Disqualified is Disqualified and match.CallTimeout is CallTimeout
    if _built():
        twin = importlib.import_module(TWIN)
        assert twin.Disqualified is Disqualified and twin.CallTimeout is CallTimeout


def test_the_compiled_permutation_is_the_tables_permutation() -> None:
    # _swapped is the compiled core's way (here run as Python), _by_tables pure Python's.
    rng = random.Random(8)
    for n, limit in ((30, match._LIM30), (10, match._LIM10)):
        for _ in range(2000):
            r = rng.randrange(limit)
            assert match._swapped(r, n) == match._by_tables(r, n) == match.permutation(r, n)


def _fake_twin(monkeypatch: pytest.MonkeyPatch, digest: str) -> types.ModuleType:
    twin = types.ModuleType("fake_twin_c")
    twin.SOURCE_SHA256 = digest  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_twin_c", twin)
    monkeypatch.delenv("UMPIRE_PURE_PYTHON", raising=False)
    monkeypatch.delenv(core._WARNED, raising=False)
    return twin


def test_a_twin_built_from_another_source_is_not_used(tmp_path: Path, capsys,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "mod.py"
    source.write_text("x = 1\n")
    twin = _fake_twin(monkeypatch, source_hash(source))
    assert compiled("fake_twin_c", source) is twin
    source.write_text("x = 2\n")  # edited, not rebuilt
    assert compiled("fake_twin_c", source) is None
    assert compiled("fake_twin_c", source) is None
    err = capsys.readouterr().err
    assert err.count("older mod.py; running pure Python") == 1  # said once
    assert "pip install -e ." in err


def test_umpire_pure_python_forces_pure_python(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "mod.py"
    source.write_text("x = 1\n")
    _fake_twin(monkeypatch, source_hash(source))
    monkeypatch.setenv("UMPIRE_PURE_PYTHON", "1")
    assert compiled("fake_twin_c", source) is None
    monkeypatch.setenv("UMPIRE_PURE_PYTHON", "0")
    assert compiled("fake_twin_c", source) is not None


@pytest.mark.skipif(not _built(), reason="the compiled core is not built (pip install -e .)")
@pytest.mark.parametrize("edited", ["bot/arena/match.py", "games/rps_poker/players.py"])
def test_an_edited_source_runs_pure_python_until_rebuilt(tmp_path: Path, edited: str) -> None:
    # A copy of the code with the compiled twins beside it, then one source edited in the copy.
    for package in ("bot", "games"):
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("UMPIRE_PURE_PYTHON", None)
    env.pop(core._WARNED, None)
    show = [sys.executable, "-c", "import bot.arena.match as m; from bot.arena.builtins "
            "import BUILTINS as b; print(m.__file__, b['simple'].__module__, m.CORE)"]

    def core_of_copy() -> subprocess.CompletedProcess:
        return subprocess.run(show, env=env, capture_output=True, text=True, check=True,
                              cwd=tmp_path)

    assert core_of_copy().stdout.split() == [str(tmp_path / "bot/arena/match.py"),
                                             "games.rps_poker._players_c", COMPILED]
    with (tmp_path / edited).open("a") as f:
        f.write("# an edit\n")
    done = core_of_copy()
    if edited.endswith("match.py"):
        assert done.stdout.split()[1:] == ["games.rps_poker._players_c", "pure", "Python"]
    else:
        assert done.stdout.split()[1:] == ["games.rps_poker.players", COMPILED]
    assert "running pure Python. Rebuild it with: pip install -e ." in done.stderr
    assert Path(edited).name in done.stderr


@pytest.mark.skipif(match.CORE != COMPILED, reason="this process runs pure Python")
def test_the_built_ins_are_the_compiled_classes_and_a_subclass_keeps_its_own_methods() -> None:
    """The compiled core calls a compiled built-in's methods in C; a Python subclass that
    overrides one (or answers wrongly) plays exactly as the same subclass of the Python class."""
    from bot.arena.builtins import BUILTINS
    from games.rps_poker.players import PLAYERS

    assert all(cls.__module__ == "games.rps_poker._players_c" for cls in BUILTINS.values())

    def variants(base: type) -> list[type]:
        class Last(base):  # type: ignore[misc, valid-type]
            def main_play(self, cards: list[str], base: str) -> int:
                return len(cards) - 1

        class Receives(base):  # type: ignore[misc, valid-type]
            def draft_receive(self, card: str) -> None:
                if card == "S9":
                    raise ValueError("no S9")

        class Truthful(base):  # type: ignore[misc, valid-type]
            def draft_pick(self, cards: list[str]) -> int:
                return True  # not a valid index (the seed's Number.isInteger)

        return [base, Last, Receives, Truthful]

    def outcome(bot0: object, bot1: object, key: bytes) -> object:
        try:
            return match.play_match(bot0, bot1, match.Deal(key), 1.0, [0.0, False])
        except Disqualified as dq:
            return dq.side, dq.reason

    for name in ("simple", "saver"):
        compiled_kinds, pure_kinds = variants(BUILTINS[name]), variants(PLAYERS[name])
        for d in range(30):
            key = match.match_key(7, d)
            for i, j in ((0, 1), (1, 2), (3, 0), (2, 2)):
                assert outcome(compiled_kinds[i](), compiled_kinds[j](), key) == \
                    outcome(pure_kinds[i](), pure_kinds[j](), key)


def _setup_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict:
    """setup.py's names, with one tiny module to compile instead of match.py."""
    names = runpy.run_path(str(ROOT / "setup.py"), run_name="setup_under_test")
    (tmp_path / "tiny.py").write_text("def f(x: int) -> int:\n    return x + 1\n")
    build = names["OptionalBuildExt"]
    monkeypatch.setitem(build.finalize_options.__globals__, "HERE", tmp_path)
    monkeypatch.setitem(build.finalize_options.__globals__, "TWINS",
                        (("tiny.py", "tiny_c"),))
    return names


def _build(names: dict, tmp_path: Path):
    from setuptools import Distribution

    dist = Distribution({"name": "t", "ext_modules": [], "script_name": "setup.py"})
    command = names["OptionalBuildExt"](dist)
    command.build_lib = str(tmp_path / "lib")
    command.build_temp = str(tmp_path / "temp")
    command.ensure_finalized()
    command.run()
    return command


def test_the_build_without_a_compiler_warns_and_installs_pure_python(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("Cython.Build")
    names = _setup_module(monkeypatch, tmp_path)
    monkeypatch.setenv("CC", "false")  # a compiler that always fails
    command = _build(names, tmp_path)
    err = capsys.readouterr().err
    assert "umpire: the compiled arena core was not built" in err
    assert "pure Python will run" in err
    assert command.extensions == [] and command.get_outputs() == []
    assert not list((tmp_path / "lib").glob("tiny_c*"))


def test_the_build_without_cython_warns_and_installs_pure_python(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    names = _setup_module(monkeypatch, tmp_path)
    monkeypatch.setitem(sys.modules, "Cython.Build", None)  # import fails
    command = _build(names, tmp_path)
    assert "umpire: the compiled arena core was not built" in capsys.readouterr().err
    assert command.extensions == []


def test_a_call_is_timed_to_within_a_tick_of_at_most_ten_milliseconds() -> None:
    """The compiled core reads the coarse monotonic clock (match.pxd): a call is timed to
    within its tick, which Linux keeps at 1 to 10 ms; pure Python reads perf_counter. A
    call well over the limit is caught, with its time, by either."""
    assert 0 < match.TICK <= (0.01 if match.CORE == COMPILED else 1e-6)

    from games.rps_poker.players import MinimalValid

    class Slow(MinimalValid):
        def draft_pick(self, cards: list[str]) -> int:
            import time

            time.sleep(0.06)
            return 0

    with pytest.raises(Disqualified) as caught:
        match.play_match(Slow(), Slow(), match.Deal(match.match_key(1, 0)), 0.03,
                         [0.0, False])
    took = float(caught.value.reason.rsplit("took ", 1)[1].removesuffix(" s"))
    assert caught.value.side == 0 and 0.06 - match.TICK <= took < 0.5, caught.value.reason
