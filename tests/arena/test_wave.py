"""Lockstep's match state as bytes (bot/arena/wave.py): the bench's bot files as authors write
them score as they did before it, and the compiled `Wave` makes the same records and
results as the pure-Python one."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import shutil
from pathlib import Path

import pytest

from bench.arena import WORK_FILES
from bot.arena import wave
from bot.arena.core import COMPILED
from bot.arena.loader import resolve_all
from bot.arena.match import _DRAFT_BYTES, _GAMES_BYTES, SIZES, Deal, match_key
from bot.arena.tournament import run
from games.rps_poker.rules import DRAFT_DEAL, DRAFT_ROUNDS, GAMES


@pytest.mark.parametrize("ext", ["py", "js"])
def test_the_work_files_score_as_pinned_in_lockstep(tmp_path: Path, ext: str) -> None:
    """Recorded before the wave's state moved to bytes (the same digest for both languages:
    the same bots); one call at a time agrees."""
    if ext == "js" and shutil.which("node") is None:
        pytest.skip("Node.js is not installed")
    for name, text in WORK_FILES.items():
        (tmp_path / name).write_text(text)
    specs = resolve_all([str(tmp_path / f"work_minimal_valid.{ext}"),
                         str(tmp_path / f"work_simple.{ext}")])
    many = run(specs, 3000, 7, 1, 1.0, batch=True)
    assert (hashlib.sha256(bytes(many.scores)).hexdigest(), sum(many.scores)) == (
        "b132a2fecd7a1a10c6a7b86a7b76f5e1abdf427dfc6c2426f4ad17c7095f6ccd", 15028)
    one = run(specs, 200, 7, 1, 1.0, batch=False)
    assert bytes(one.scores) == bytes(many.scores[:200])


def _pure_wave(monkeypatch: pytest.MonkeyPatch) -> type:
    """wave.py's own `Wave`, loaded afresh without its compiled twin."""
    monkeypatch.setenv("UMPIRE_PURE_PYTHON", "1")
    spec = importlib.util.spec_from_file_location("wave_pure", wave.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Wave


def test_the_compiled_wave_makes_the_same_records_and_scores(
        monkeypatch: pytest.MonkeyPatch) -> None:
    if wave.CORE != COMPILED:
        pytest.skip("the compiled core is not built")
    pure = _pure_wave(monkeypatch)
    assert pure is not wave.Wave
    rng = random.Random(5)
    n = 40
    waves = [cls(n, _DRAFT_BYTES, _GAMES_BYTES) for cls in (pure, wave.Wave)]
    for w in range(n):
        blob = wave.deal_bytes(Deal(match_key(11, w // 2)))
        for cards in waves:
            cards.deal(w, blob)
    steps = [("d", r, DRAFT_DEAL) for r in range(DRAFT_ROUNDS)] + \
        [("m", g, SIZES[g]) for g in range(GAMES)]
    for kind, step, size in steps:
        for seat in (0, 1):
            ws = rng.sample(range(n), n // 2)  # some of the matches, in another order
            records = [cards.records(kind, step, seat, ws) for cards in waves]
            assert records[0] == records[1] and len(records[0]) > 0
            assert isinstance(records[1], bytes)
            chars = "".join(rng.choice("0123456789"[:size]) for _ in range(n))
            every = list(range(n))
            for cards in waves:
                if seat == 0:
                    cards.picks(every, chars)
                else:
                    cards.plays(kind, step, every[:n // 2], chars)
                    for w in every[n // 2:]:  # the fallback's one-match calls
                        if kind == "d":
                            cards.drafted(w, step, ord(chars[w]) - 48)
                        else:
                            cards.played(w, step, ord(chars[w]) - 48)
    for w in range(n):
        assert waves[0].score1(w) == waves[1].score1(w)
        assert 0 <= waves[1].score1(w) <= GAMES
        assert waves[0].notice(w, 0) == waves[1].notice(w, 0)
        assert waves[0].notice(w, 1) == waves[1].notice(w, 1)


def test_a_batch_reports_a_raise_with_the_bot_frames_only(tmp_path: Path) -> None:
    """The loop over a batch (`hostloop.answer_batch`, compiled when the core is built)
    leaves its own frames out of the bot's traceback, as one call at a time does."""
    from bot.arena.hostloop import answer_batch

    (tmp_path / "raiser.py").write_text("class R:\n    def draft_pick(self, cards): return 0\n"
                                        "    def main_play(self, cards, base):\n"
                                        "        return {}[base]\n")
    spec = importlib.util.spec_from_file_location("raiser", tmp_path / "raiser.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out: list[str] = []
    slots: dict = {}
    answer_batch("@d0 a,b R1R2S3S4", slots, module.R, 1.0, out.append)
    answer_batch("@m0 a,b P1R3R1R2R3P1R3R1R2R3", slots, module.R, 1.0, out.append)
    assert out[0] == "00\n"
    chars, first, second = out[1].rstrip("\n").split("\x1f")
    assert chars == "!!"
    assert first.startswith("E error\traised KeyError: 'R3' in main_play (raiser.py, line 4:")
    trace = json.loads(first.split("\t")[2])
    assert trace.count("File ") == 1 and "raiser.py" in trace, trace
