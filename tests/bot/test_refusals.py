"""Refusals that cannot leak (issue 10) and names that are data, never templates (issue 14):
where text was typed is checked before it is parsed, and every reply has its `{P0}` / `{P1}`
filled in by one substitution pass."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.console.render import render_text as console_text
from bot.discord.render import render, render_plain
from bot.store.repository import StoredMessage
from bot.transport import PlayerRef, render_names
from bot.umpire import PRIVATE_IN_ROOM
from games.core import ParseError
from tests.bot.conftest import ANN, BOB

TRICKY = PlayerRef("u:x", "X {P1}")
SNEAKY = PlayerRef("u:y", "{P0} {until:2026-01-01T00:00:00+00:00} {until:nonsense}")


async def test_text_for_a_private_decision_typed_in_the_room_is_refused_before_parsing(
        sqlite_service, monkeypatch: pytest.MonkeyPatch):
    service, _ = sqlite_service
    match = await service.start_match("duel", [ANN, BOB])
    parsed: list[str] = []

    def parse(state, seat, text):
        parsed.append(text)
        raise ParseError("Pick one of your numbers: 1 2 3 4 5 6 7 8 9")  # private state

    monkeypatch.setattr(match.game, "parse", parse)
    reply = await service.submit(match.id, ANN.id, "give up Z")
    assert not reply.accepted and reply.delete
    assert reply.message == PRIVATE_IN_ROOM and parsed == []
    # In the player's own table the same text is parsed (and refused) as usual.
    reply = await service.submit(match.id, ANN.id, "give up Z", table_of=0)
    assert parsed == ["give up Z"] and reply.message.startswith("Pick one of your numbers")


async def test_refusals_fill_in_the_players_names(sqlite_service,
                                                  monkeypatch: pytest.MonkeyPatch):
    """Issue 14: "{P1} refused ANY: choose ODD or TWO" reached the player unrendered."""
    service, _ = sqlite_service
    match = await service.start_match("duel", [ANN, BOB])

    def parse(state, seat, text):
        raise ParseError("{P1} refused ANY: choose ODD or TWO.")

    monkeypatch.setattr(match.game, "parse", parse)
    reply = await service.submit(match.id, ANN.id, "any", table_of=0)
    assert reply.message == "Bob refused ANY: choose ODD or TWO."


async def test_a_name_that_looks_like_a_placeholder_shows_literally(sqlite_service):
    service, transport = sqlite_service
    match = await service.start_match("duel", [TRICKY, SNEAKY])
    assert (await service.submit(match.id, TRICKY.id, "pick 4", table_of=0)).accepted
    again = await service.submit(match.id, TRICKY.id, "pick 3", table_of=0)
    assert again.message == f"It is not your decision now; waiting for {SNEAKY.name}."
    status = service.status_text(match.id)
    assert f"{TRICKY.name} vs {SNEAKY.name}" in status
    assert f"Waiting for {SNEAKY.name}: pick" in status
    assert render_names("{P0} vs {P1}", [TRICKY.name, SNEAKY.name]) == \
        f"{TRICKY.name} vs {SNEAKY.name}"
    # The Discord and terminal renderers fill names and deadlines in the same single pass.
    players = [TRICKY, SNEAKY]
    text = "{P0} waits for {P1} until {until:2026-01-01T00:00:05+00:00}"
    assert render_plain(text, players) == f"X {{P1}} waits for {SNEAKY.name} until 00:00:05 UTC"
    assert render(text, players).startswith(f"**X {{P1}}** waits for **{SNEAKY.name}** until <t:")
    message = StoredMessage(id=1, match_id=match.id, seq=0, audience="public", text=text,
                            payload={}, created_at=datetime(2026, 1, 1, tzinfo=UTC))
    shown = console_text(match.info, message, lambda: datetime(2026, 1, 1, tzinfo=UTC))
    assert shown == f"X {{P1}} waits for {SNEAKY.name} until in 5 s"
