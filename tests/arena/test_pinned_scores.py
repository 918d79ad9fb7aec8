"""Scores pinned for fixed seeds: speed work on the match loop, the deal or the built-in bots
(Saver's odds hoisted out of its per-base loop) must leave every result as it was."""

from __future__ import annotations

import hashlib

import pytest

from bot.arena.loader import resolve_all
from bot.arena.tournament import run


def _digest(bots: list[str], rounds: int, seed: int, jobs: int = 1) -> tuple[str, int]:
    results = run(resolve_all(bots), rounds, seed, jobs, 1.0)
    return hashlib.sha256(bytes(results.scores)).hexdigest(), sum(results.scores)


def test_all_four_built_ins_score_as_pinned() -> None:
    # Recorded before Saver's odds were hoisted (every match's seat-0 score, in order).
    assert _digest(["saver", "basic-odds", "simple", "minimal-valid"], 300, 2021) == (
        "86ac74bee8a73c3f669853afc3805f6ad5fce2c0d839d67348d3cc0cd23b6e00", 8897)


@pytest.mark.parametrize("jobs", [1, 2])  # both cores (the default) merge to the same scores
def test_minimal_valid_against_simple_scores_as_pinned(jobs: int) -> None:
    assert _digest(["minimal-valid", "simple"], 4000, 1, jobs) == (
        "8534a93d609a3d15d86859231a1aacecd278aa7e2a0149ec0c373b7798349952", 19896)
