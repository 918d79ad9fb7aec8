"""The conformance harness over seeded random Decoder matches: legal prompts, no secret (hands,
setup tiles, swap offers, tank values, extra-tile tanks, recharge timers) reaching the room, the
spectators or the other seat, invariants, JSON round trips, replay, termination."""

from __future__ import annotations

import random

import pytest

from games.core.contract import Command, Prompt
from games.core.harness import play_random_match, run_conformance
from games.decoder import GAME
from games.decoder.engine import DecoderGame
from games.decoder.settings import DecoderSettings, Items
from games.decoder.state import DecoderState

ALL_ITEMS = Items(hand_insurance=2, new_evidence=2, power_surge=2, unexpected_sabotage=2)


@pytest.mark.slow
def test_500_default_matches() -> None:
    records = run_conformance(GAME, 500)
    assert len(records) == 500
    assert all(r.outcome is not None and r.outcome.winner in (0, 1) for r in records)
    reasons = {r.outcome.reason.split(" ", 1)[1] for r in records if r.outcome}
    assert any("last tile" in why for why in reasons)  # some matches are won on tiles
    assert any("ran out of time" in why for why in reasons)


@pytest.mark.slow
def test_60_long_matches_with_every_item() -> None:
    """Few timeouts, so matches run long: swaps, sabotages, restores and items all happen."""
    s = DecoderSettings(items=[ALL_ITEMS, ALL_ITEMS])
    records = run_conformance(GAME, 60, first_seed=10_000, settings=s, timeout_rate=0.005)
    kinds = {type(c).__name__ for r in records for _, c in r.log}
    assert {"Swap", "GuessTotal", "SabotageTank", "UnexpectedSabotage", "GiveUp",
            "ChooseClue"} <= kinds
    events = {e.kind for r in records for e in r.events}
    assert {"turn.sabotage", "turn.unexpected", "turn.insurance", "swap.offer"} <= events


class TimedDecoder(DecoderGame):
    """Decoder whose random player also reports how long each decision took, as the runtime does,
    so the time banks are charged (and sometimes exhausted) during conformance."""

    def random_command(self, state: DecoderState, prompt: Prompt, rng: random.Random) -> Command:
        command = super().random_command(state, prompt, rng)
        elapsed = rng.choice([1.0, 30.0, 59.0, 61.0, 89.5, 91.0, 120.0, 200.0])
        if prompt.kind in ("rarity", "hand"):  # a setup choice later than its clock is refused
            elapsed = min(elapsed, prompt.time_limit if prompt.time_limit is not None
                          else elapsed)  # (the clock's default applies to a later one)
        return command.model_copy(update={"elapsed": elapsed})


@pytest.mark.slow
def test_60_matches_with_time_banks_charged() -> None:
    game = TimedDecoder()
    banks_used = 0
    for i in range(60):
        record = play_random_match(game, f"timed-{i}", timeout_rate=0.01)
        banks_used += sum(1 for e in record.events if e.kind == "clock.bank")
        assert record.outcome is not None
    assert banks_used > 0
