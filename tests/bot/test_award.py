"""Hosts award a part of a match (a Double or Nothing bout) through the service."""

from __future__ import annotations

import pytest

from bot.umpire import UmpireError
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive


async def test_a_host_awards_the_running_bout_and_the_match_goes_on(sqlite_service):
    service, transport = sqlite_service
    match = await service.start_match("double-or-nothing", [ANN, BOB],
                                      settings={"target": 2})
    with pytest.raises(UmpireError, match="No bout is running"):
        await service.award(match.id, 1, "too early", unit="bout")
    assert (await service.submit(match.id, ANN.id, "I start")).accepted
    await service.award(match.id, 1, "Ann did not move", unit="bout")
    await drive(service).drain()
    assert match.state.score == [0, 1] and match.status == "active"
    actions = await drive(service).actions(match.id)
    assert actions[-1].source == "host" and actions[-1].seat == 1
    assert any("award bout 1 to {P1}: Ann did not move" in t
               for t in transport.texts(match.id, "public"))
    await service.award(match.id, 1, "Ann did not move again", unit="bout")
    assert match.status == "finished" and match.outcome().winner == 1


async def test_games_without_parts_offer_only_the_match(sqlite_service):
    service, _ = sqlite_service
    match = await service.start_match("duel", [ANN, BOB])
    with pytest.raises(UmpireError, match="Only the whole match"):
        await service.award(match.id, 0, "", unit="bout")
    assert match.seq == 0
