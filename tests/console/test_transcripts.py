"""Transcripts (`umpire export --text`, and the host's `/match export` and archive file,
which are the same text) render every placeholder of every game's record, say when the
match started and ended, and date the lines of a match that runs past midnight."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.console.records import span_words, transcript
from bot.transport import PLACEHOLDER, PlayerRef
from games.registry import all_games
from tests.support.demo_records import demo_records


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    games = list(all_games())
    out = demo_records(tmp_path_factory.mktemp("transcripts") / "d.db", games, 11)
    assert sorted(r["game"] for r in out) == sorted(games)
    return out


def test_every_games_transcript_renders_every_placeholder(records: list[dict]) -> None:
    from bot.console.records import transcript_text

    for record in records:
        assert any("{until:" in m["text"] for m in record["messages"])  # there were some
        assert "{P" in json.dumps(record["result"]) or "{P" in json.dumps(record["messages"])
        players = tuple(PlayerRef.from_json(p) for p in record["players"])
        for text in (transcript(record), transcript_text(record, players)):
            assert not PLACEHOLDER.search(text), (record["game"], PLACEHOLDER.search(text))
            assert "{P" not in text and "{until" not in text, record["game"]


def test_the_head_says_when_the_match_started_and_ended(records: list[dict], capsys,
                                                        tmp_path: Path) -> None:
    record = records[0]
    started = datetime.fromisoformat(record["started_at"]).strftime("%Y-%m-%d %H:%M:%S UTC")
    ended = datetime.fromisoformat(record["ended_at"]).strftime("%Y-%m-%d %H:%M:%S UTC")
    lines = transcript(record).splitlines()
    assert lines[2].startswith(f"Started: {started}; ended: {ended}, "), lines[2]
    assert lines[2].endswith(" later")
    assert any(line.startswith("Match commitment (SHA-256 of the players") and
               record["match_commitment"]["sha256"] in line for line in lines)
    assert any(line.startswith("Settings: decision_seconds = ") for line in lines)


def test_a_match_past_midnight_dates_its_lines(records: list[dict]) -> None:
    record = json.loads(json.dumps(records[0]))
    late = datetime(2026, 11, 26, 23, 59, 50, tzinfo=UTC)
    record["started_at"] = late.isoformat()
    for n, m in enumerate(record["messages"]):
        m["at"] = (late + timedelta(seconds=5 * n)).isoformat()
    text = transcript(record)
    assert "\n-- 2026-11-27\n" in text and "-- 2026-11-26" not in text


def test_lengths_of_time_in_words() -> None:
    assert [span_words(s) for s in (0, 4.4, 428, 7205, 3 * 86400 + 7300)] == \
        ["0 s", "4 s", "7 min 8 s", "2 h", "3 d 2 h"]
