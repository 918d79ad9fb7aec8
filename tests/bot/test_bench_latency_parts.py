"""The latency split (bench/latency_parts.py): its parts add up, every part is measured, and `--storage none` really
stores no player's move while `real` does. Tiny sizes; the figures themselves are the
bench's job."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from bench import latency_parts as parts


def test_summary_splits_each_command_and_describes_the_tail():
    commands = [parts.Command(submitted=0.0, write_started=0.001 * i, write_ended=0.002 * i,
                              commit=0.0005 * i, done=0.003 * i) for i in range(1, 201)]
    commands.append(parts.Command(submitted=0.0))  # refused before writing: not counted
    commands.append(parts.Command(submitted=-1.0, write_started=0, write_ended=0, done=9))
    result = parts.summary(commands, since=0.0)
    assert result["commands"] == 200
    # totals are 3, 6, ..., 600 ms: p99 is the 199th (597 ms), one command is over it
    assert result["total"]["p99_ms"] == pytest.approx(597.0)
    assert result["over_p99"] == 1
    assert result["total"]["mean_over_p99_ms"] == pytest.approx(600.0)
    assert result["before_write"]["mean_over_p99_ms"] == pytest.approx(200.0)
    assert result["write"]["mean_over_p99_ms"] == pytest.approx(200.0)
    assert result["commit"]["mean_over_p99_ms"] == pytest.approx(100.0)
    assert result["after_write"]["mean_over_p99_ms"] == pytest.approx(200.0)
    assert result["total"]["p50_ms"] == pytest.approx(301.5)
    assert parts.summary([], since=0.0) == {"commands": 0}
    one = commands[9].parts()
    assert one is not None and one["before_write"] + one["write"] + one["after_write"] == \
        pytest.approx(one["total"])


def _players_moves(path) -> int:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT count(*) FROM actions WHERE source = 'player'").fetchone()[0]


@pytest.mark.parametrize("store", [True, False])
async def test_every_part_is_measured_and_none_stores_no_players_move(tmp_path, store):
    result = await parts.measure(tmp_path, seconds=2.0, skip=0.2, matches=10, think=0.05,
                                 limit=2.0, store=store)
    assert result["storage"] == ("real" if store else "none")
    assert result["commands"] > 20
    for part in parts.PARTS:
        assert 0 <= result[part]["p50_ms"] <= result[part]["p99_ms"]
    assert result["before_write"]["p50_ms"] > 0
    if store:
        assert 0 < result["commit"]["p50_ms"] <= result["write"]["p99_ms"]
        assert _players_moves(tmp_path / "parts.db") >= result["commands"]
    else:
        assert result["commit"]["p99_ms"] == 0
        assert _players_moves(tmp_path / "parts.db") == 0
    lines = parts.report(result)
    assert lines[0].startswith(f"storage: {result['storage']}; 10 matches")
    assert [line.split(":")[0].strip() for line in lines[1:]] == list(parts.PARTS)
