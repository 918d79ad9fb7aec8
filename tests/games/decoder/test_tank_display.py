"""Issue 6: the owner keeps a running display of their used and unused tanks, privately."""

from games.core.harness import play_random_match
from games.core.replay import replay
from games.decoder import GAME
from games.decoder.commands import TakeTurn
from games.decoder.settings import DecoderSettings
from games.decoder.text import tank_token


def test_after_every_turn_the_owner_alone_sees_their_tanks_used_and_unused():
    checked = 0
    for i in range(15):
        # No timeouts, so no clock ends tuning: the house option locks it once both are ready.
        record = play_random_match(GAME, f"tanks-{i}", DecoderSettings(lock_when_ready=True),
                                   timeout_rate=0.0)
        state = GAME.setup(record.settings, record.seed)
        for seat, command in record.log:
            events = GAME.apply(state, seat, command)
            if not isinstance(command, TakeTurn):
                continue
            (shown,) = [e for e in events if e.kind == "tanks.status"]
            assert shown.audience.kind == "seat" and shown.audience.seat == seat
            used_part = shown.text.split("Used:")[1]
            tank = next(t for t in state.seats[seat].tanks if t.name == command.tank)
            if not command.power_surge:
                assert tank_token(seat, tank.name, tank.units) in used_part
            for t in state.seats[seat].tanks:
                assert tank_token(seat, t.name, t.units) in shown.text
            checked += 1
        final, _ = replay(GAME, record.settings, record.seed, record.log)
        assert final.model_dump_json() == state.model_dump_json()
    assert checked > 30
