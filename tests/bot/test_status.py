"""Match and clock statuses: the enums are the stored strings, and a live match says
whether it is still umpired (`running`) or over (`ended`)."""

from __future__ import annotations

import json

import pytest

from bot.live import LiveMatch
from bot.status import ENDED, LIVE, RUNNING, ClockStatus, MatchStatus
from bot.store.repository import ACTIVE_STATUSES, ENDED_STATUSES, LIVE_CLOCKS


def _match(status: str) -> LiveMatch:
    return LiveMatch(id=1, game=None, settings=None, seed="", commitment="",  # type: ignore[arg-type]
                     players=(), state=None, seq=0, status=status)  # type: ignore[arg-type]


def test_a_status_is_its_stored_string() -> None:
    assert MatchStatus.PAUSED == "paused" and f"{MatchStatus.PAUSED}" == "paused"
    assert json.dumps({"status": MatchStatus.FINISHED}) == '{"status": "finished"}'
    assert ClockStatus("break") is ClockStatus.BREAK
    # the store binds plain strings
    assert ACTIVE_STATUSES == ("active", "paused") and ENDED_STATUSES == ("finished", "aborted")
    assert LIVE_CLOCKS == ("armed", "break")
    assert {type(s) for s in (*ACTIVE_STATUSES, *ENDED_STATUSES, *LIVE_CLOCKS)} == {str}
    assert set(RUNNING) | set(ENDED) == set(MatchStatus) and not set(RUNNING) & set(ENDED)
    assert set(LIVE) == {ClockStatus.ARMED, ClockStatus.BREAK}


@pytest.mark.parametrize(("status", "running", "ended"), [
    ("active", True, False), ("paused", True, False),
    ("finished", False, True), ("aborted", False, True)])
def test_a_live_match_is_running_or_ended(status: str, running: bool, ended: bool) -> None:
    match = _match(status)
    assert match.status is MatchStatus(status)
    assert (match.running, match.ended) == (running, ended)


def test_a_status_the_store_never_wrote_is_refused() -> None:
    with pytest.raises(ValueError, match="'over'"):
        _match("over")
