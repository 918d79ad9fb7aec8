"""The toy game kit (tests/support/toy_game: a sixth game) through the service and the
console, by what its package declares alone: its quick settings, its reveal once the hosts
end a match, its rules page read from its package."""

from __future__ import annotations

import io

from bot.console.demo import run_demo
from bot.console.play import rules_text
from bot.transport import PlayerRef
from bot.umpire import MatchService
from tests.support.memory_repo import MemoryRepository
from tests.support.toy_game import DUEL_KIT
from tests.support.transport import RecordingTransport

ANN, BOB = PlayerRef("u:ann", "Ann"), PlayerRef("u:bob", "Bob")


async def test_the_kit_runs_through_the_service_with_its_quick_settings_and_reveal() -> None:
    service = MatchService(MemoryRepository(), RecordingTransport())  # type: ignore[arg-type]
    await service.start()
    try:
        match = await service.start_match(DUEL_KIT.slug, [ANN, BOB],
                                          settings=DUEL_KIT.quick_settings(60))
        assert match.settings.rounds == 1 and match.settings.pick_seconds == 60
        assert (await service.submit(match.id, ANN.id, "pick 4", table_of=0)).accepted
        await service.abort(match.id)
        record = await service.export(match.id)
        assert record["reveal"] == "🔓 Picks of the unfinished round: {P0} n4."
    finally:
        await service.stop()


async def test_the_kit_plays_in_the_console_demo_and_shows_its_own_rules_page() -> None:
    [line] = await run_demo([DUEL_KIT.slug], seed=3, out=io.StringIO())
    assert line.startswith(f"{DUEL_KIT.slug}: match #1: ")
    shown = rules_text(DUEL_KIT.slug, "", 80, 30)
    assert shown.startswith("# Duel Kit (test game)")
    assert "own package (`rules.md`)" in " ".join(shown.split())
