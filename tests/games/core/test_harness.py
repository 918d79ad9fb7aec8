"""The conformance harness itself must catch what it promises to catch."""

import pytest

from games.core.harness import ConformanceError, play_random_match, run_conformance
from tests.support.toy_game import DUEL, DuelSettings


def test_harness_passes_a_correct_game():
    records = run_conformance(DUEL, 50)
    assert len(records) == 50 and all(r.outcome is not None for r in records)
    assert sum(r.timeouts for r in records) > 0


def test_harness_catches_a_secret_in_a_public_event():
    with pytest.raises(ConformanceError, match="pending pick 'n.' visible to spectators"):
        play_random_match(DUEL, "leak", DuelSettings(leak=True))


def test_harness_catches_a_match_that_never_ends():
    with pytest.raises(ConformanceError, match="did not end within 3 steps"):
        play_random_match(DUEL, "long", DuelSettings(rounds=9), max_steps=3)


def test_harness_catches_nondeterministic_replay(monkeypatch):
    import random as stdlib_random

    from tests.support import toy_game

    original = toy_game.Duel.apply

    def apply_with_global_random(self, state, seat, command):  # a rule that reads global random
        events = original(self, state, seat, command)
        state.score[0] += stdlib_random.random() < 0.5
        return events

    monkeypatch.setattr(toy_game.Duel, "apply", apply_with_global_random)
    with pytest.raises(ConformanceError, match="replaying the log does not reproduce"):
        for i in range(20):
            play_random_match(DUEL, f"nd{i}")
