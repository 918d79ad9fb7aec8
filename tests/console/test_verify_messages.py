"""`verify` checks the record's message list exactly (issue 42, item 12): one message added
(a public "{P1} forfeits the match."), deleted (a mid-match message, "Match over") or put
in another order is named; every record the service writes still verifies."""

from __future__ import annotations

import copy

import pytest

from bot.console.records import RecordError, verify
from games.registry import installed_games
from tests.support.demo_records import demo_records

GAMES = installed_games()  # (not the test suite's toy games)


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    return demo_records(tmp_path_factory.mktemp("messages") / "d.db", GAMES, 8)


def _refused(record: dict) -> str:
    with pytest.raises(RecordError) as refused:
        verify(record)
    return str(refused.value)


def test_every_game_record_verifies(records: list[dict]) -> None:
    for record in records:
        assert verify(copy.deepcopy(record)).startswith("verified: "), record["game"]


def test_an_added_public_message_is_named(records: list[dict]) -> None:
    for record in records:
        data = copy.deepcopy(record)
        messages = data["messages"]
        middle = len(messages) // 2
        forged = dict(messages[middle], audience="public", text="{P1} forfeits the match.")
        forged.pop("id", None)  # (a new message: no id of another)
        messages.insert(middle + 1, forged)
        why = _refused(data)
        assert "says \"Bea" in why and "forfeits the match." in why, why
        assert "a message was added" in why


def test_a_deleted_mid_match_message_is_named(records: list[dict]) -> None:
    for record in records:
        data = copy.deepcopy(record)
        messages = data["messages"]
        # a room message with something the replay tells it, halfway through the match
        middle = next(n for n, m in enumerate(messages) if n >= len(messages) // 2
                      and m["audience"] == "public" and not m["text"].startswith("⏰"))
        del messages[middle]
        why = _refused(data)
        assert "the record has no message to the room" in why, why
        assert "a message was deleted" in why


def test_a_deleted_match_over_is_named(records: list[dict]) -> None:
    data = copy.deepcopy(records[0])
    data["messages"] = [m for m in data["messages"] if "🏁 Match over" not in m["text"]]
    why = _refused(data)
    assert "a message was deleted" in why, why


def test_two_messages_swapped_are_named(records: list[dict]) -> None:
    data = copy.deepcopy(records[0])
    messages = data["messages"]
    n = next(i for i in range(1, len(messages)) if messages[i]["seq"] > messages[i - 1]["seq"])
    messages[n - 1], messages[n] = messages[n], messages[n - 1]
    why = _refused(data)
    assert "the messages were reordered" in why, why
    assert f"message {n}" in why  # the first one out of place


def test_a_pruned_start_is_not_a_deletion(records: list[dict]) -> None:
    """Retention deletes the oldest delivered messages: a record whose first steps' messages
    are gone still verifies."""
    data = copy.deepcopy(records[0])
    cut = max(m["seq"] for m in data["messages"]) // 2
    data["messages"] = [m for m in data["messages"] if m["seq"] >= cut]
    assert verify(data).startswith("verified: ")
