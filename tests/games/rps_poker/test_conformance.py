"""The conformance harness over 2,000 seeded random matches (both CPU cores).

Runtime: see the report (about a minute on the 2-core machine).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from games.core.harness import run_conformance
from games.rps_poker import GAME

MATCHES = 2000


def _chunk(first: int, count: int) -> tuple[int, int, int, int]:
    records = run_conformance(GAME, count, first_seed=first)
    draws = sum(r.outcome.winner is None for r in records)
    timeouts = sum(r.timeouts for r in records)
    return len(records), draws, timeouts, sum(sum(r.outcome.score) for r in records)


@pytest.mark.slow
def test_conformance_2000_seeded_matches() -> None:
    jobs = max(1, min(os.cpu_count() or 1, 8))
    size = 50
    with ProcessPoolExecutor(jobs) as pool:
        results = list(pool.map(_chunk, range(0, MATCHES, size), [size] * (MATCHES // size)))
    played = sum(r[0] for r in results)
    assert played == MATCHES
    assert sum(r[3] for r in results) == 10 * MATCHES  # every match is 10 games
    assert sum(r[2] for r in results) > 0  # timeouts were exercised
    assert sum(r[1] for r in results) > 0  # drawn matches happen


def test_conformance_quick_20() -> None:
    assert len(run_conformance(GAME, 20, first_seed=100_000)) == 20
