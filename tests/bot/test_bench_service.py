"""Smoke test of the load bench (bench/service.py) at tiny sizes on both databases: every
figure it prints is there and plausible. Not timed: the speed targets are the bench's job."""

from __future__ import annotations

import asyncio

import pytest

from bench import service as bench
from games.registry import installed_games
from tests.bot.conftest import DATABASES


@pytest.fixture(params=DATABASES)
def bench_db(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    if request.param == "sqlite":
        return "sqlite", None
    return "postgresql", request.getfixturevalue("pg_template")


async def test_the_bench_measures_every_figure_on_both_databases(bench_db):
    kind, pg_url = bench_db
    args = bench.parser().parse_args([
        "--db", kind, "--matches", "5", "--games", "all", "--think", "0.02", "--limit", "0.05",
        "--memory-matches", "0", "--floor-samples", "20", "--resume", "6", "12",
        "--resume-fill", "6"])
    args.pg_url = pg_url
    result = await bench.run(args)

    floor = result["floor"]
    assert floor["samples"] == 20 and 0 < floor["p50_ms"] <= floor["p99_ms"]
    load = result["load"]
    assert load["games"] == installed_games()  # "--games all": every game
    assert load["finished"] == 5, "every match is played to its end"
    assert load["commands"] > 5 * 3 and load["commands_per_second"] > 0
    assert 0 < load["p50_ms"] <= load["p99_ms"] <= load["max_ms"]
    # by phase: 5 matches, so the third one to end closes "at least half running"
    steady, after = load["while_half_running"], load["after"]
    assert steady["commands"] > 0 and after["commands"] > 0
    assert steady["commands"] + after["commands"] == load["commands"]
    assert 0 < steady["p50_ms"] <= steady["p99_ms"] <= load["max_ms"]
    assert load["clocks_fired"] > 0, "limits of 0.05 s against 0.02 s of thought: clocks run out"
    assert 0 <= load["lateness_p50_ms"] <= load["lateness_p99_ms"] <= load["lateness_max_ms"]
    assert load["messages_delivered"] > load["commands"] / 2
    assert load["messages_pruned"] > 0 and load["bytes_per_finished_before_prune"] > 0
    assert "memory" not in result  # skipped here (traced, it is slow): measured below
    six, twelve = result["resume"]
    for how in ("after_crash", "after_stop"):
        assert 0 < six[how]["matches"] <= 6
        # 12 is the 6 played and a copy of each: the copies resume like their originals
        assert twelve[how]["matches"] == 2 * six[how]["matches"]
        assert twelve[how]["seconds"] > 0
        assert twelve[how]["longest_block_ms"] >= 0
    assert set(result["targets"]) == {"p99_latency", "timer_lateness", "memory_active",
                                      "memory_finished", "resume_10000"}
    assert result["targets"]["resume_10000"] is None  # not measured at this size
    lines = bench.report(result)
    for figure in ("throughput", "command latency", "while at least half of the matches ran",
                   "after (fewer matches left)", "timer lateness", "per finished match",
                   "resume after crash", "resume after stop",
                   "target p99 command latency", "target timer lateness"):
        assert any(figure in line for line in lines), figure


async def test_the_bench_can_start_its_matches_one_by_one(tmp_path):
    """`--ramp`: the matches start spread over the given seconds, not all at once."""
    args = bench.parser().parse_args(["--ramp", "0.4"])
    assert args.ramp == 0.4 and bench.parser().parse_args([]).ramp == 0
    load = await bench.load(bench.Database(tmp_path), 4, ["rps-poker"], 0.02, 0.05, ramp=0.4)
    assert load["ramp_seconds"] == 0.4 and load["finished"] == 4
    assert load["seconds"] >= 0.3  # the last match started 0.3 s in
    result = {"db": "sqlite", "floor": {"what": "fsync", "samples": 1, "p50_ms": 1, "p99_ms": 1},
              "load": load, "resume": []}
    result["targets"] = bench.targets(result)
    assert any("started over 0.4 s" in line for line in bench.report(result))


async def test_the_bench_measures_memory_per_active_and_finished_match(tmp_path):
    memory = await bench.memory(bench.Database(tmp_path), 3, ["rps-poker"], waves=3)
    assert memory["matches_per_wave"] == 3 and memory["keep_ended"] == 3
    assert 0 < memory["kb_per_active_match"] < 1000
    assert abs(memory["kb_per_finished_match"]) < 1000
    each = memory["kb_per_finished_match_each_wave"]
    assert memory["waves"] == 3 and len(each) == 2  # three waves' ends, two differences
    # the slope lies within the wave-to-wave growths it is fitted to
    assert min(each) - 0.01 <= memory["kb_per_finished_match"] <= max(each) + 0.01
    lines = bench.report({"db": "sqlite", "floor": {"what": "fsync", "samples": 1, "p50_ms": 1,
                                                    "p99_ms": 1},
                          "memory": memory, "resume": [], "targets": bench.targets(
                              {"floor": {"p99_ms": 1}, "memory": memory, "resume": []})})
    assert any("KB per active match" in line and "slope over 3 waves" in line for line in lines)
    assert any(line.startswith("target <= 50 KB per active match: ") and "not measured" not in line
               for line in lines)


def test_the_bench_refuses_fewer_than_two_memory_waves_before_it_starts():
    args = bench.parser().parse_args(["--memory-waves", "1"])
    with pytest.raises(SystemExit, match="at least 2 waves"):
        asyncio.run(bench.run(args))
