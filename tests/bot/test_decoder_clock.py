"""Decoder's clocks through the real match service, under fast-forwarded loop time.

The turn timer (90 s for the player on turn, 60 s for the opponent's responses) runs first,
then the player's 5-minute time bank, charged in 5-second steps; a player whose bank runs
out during any of their decisions loses. Reminders come at 30, 15 and 5 s left and at every
30 s of bank used.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from games.decoder.commands import TakeTurn
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive

pytestmark = pytest.mark.looptime


async def _to_first_turn(service, match) -> None:
    """Host locks the puzzle times; both players make their setup choices at once."""
    rng = random.Random(0)
    await service.expire(match.id)  # the host locks setup: pending tuning prompts time out
    while any(p.kind in ("rarity", "hand") for p in match.prompts):
        for p in list(match.prompts):
            reply = await service.submit_command(
                match.id, p.seat, match.game.random_command(match.state, p, rng))
            assert reply.accepted, reply.message
    assert match.state.phase == "play"


async def _turn_prompt(match):
    (prompt,) = match.prompts
    assert prompt.time_limit == 90 and prompt.bank == 300
    return prompt


async def test_active_player_reminders_then_bank_then_loss(memory_service):
    service, transport, _ = memory_service
    match = await service.start_match("decoder", [ANN, BOB], seed="clock-active")
    await _to_first_turn(service, match)
    prompt = await _turn_prompt(match)
    where = "public" if not prompt.private else f"seat{prompt.seat}"
    seen: list[str] = []

    async def reminders() -> list[str]:
        await drive(service).drain()
        new = [t for t in transport.texts(match.id, where) if t.startswith("⏰") and t not in seen]
        seen.extend(new)
        return new

    await asyncio.sleep(59.5)
    assert await reminders() == []
    await asyncio.sleep(1)
    assert await reminders() == [f"⏰ {{P{prompt.seat}}}, 30 s left for your decision."]
    await asyncio.sleep(15)
    assert [r[-28:] for r in await reminders()] == ["15 s left for your decision."]
    await asyncio.sleep(10)
    assert "5 s left" in (await reminders())[0]
    await asyncio.sleep(5)
    assert "time bank of 300 s is running" in (await reminders())[0]
    await asyncio.sleep(30)
    assert "has used 30 s of their time bank (270 s left)" in (await reminders())[0]
    await asyncio.sleep(269)  # 389.5 s since the turn began (90 s + the 300 s bank = 390 s)
    assert match.status == "active"
    await asyncio.sleep(1)
    assert match.status == "finished"
    assert match.result["winner"] == 1 - prompt.seat and "time" in match.result["reason"]


async def test_bank_is_charged_in_five_second_steps(memory_service):
    service, _, _ = memory_service
    match = await service.start_match("decoder", [ANN, BOB], seed="clock-steps")
    await _to_first_turn(service, match)
    prompt = await _turn_prompt(match)
    await asyncio.sleep(102)  # 12 s over the turn timer: three 5 s steps
    rng = random.Random(1)
    command = match.game.random_command(match.state, prompt, rng)
    assert (await service.submit_command(match.id, prompt.seat, command)).accepted
    assert match.state.seats[prompt.seat].bank == 285
    assert match.state.seats[1 - prompt.seat].bank == 300


async def test_responding_player_loses_when_their_bank_runs_out(memory_service):
    service, _, _ = memory_service
    match = await service.start_match("decoder", [ANN, BOB], seed="clock-respond")
    await _to_first_turn(service, match)
    prompt = await _turn_prompt(match)
    rng = random.Random(2)
    ask = next(c for c in (match.game.random_command(match.state, prompt, rng) for _ in range(500))
               if isinstance(c, TakeTurn) and c.action == "ask")
    assert (await service.submit_command(match.id, prompt.seat, ask)).accepted
    (response,) = match.prompts
    responder = response.seat
    assert responder == 1 - prompt.seat and response.time_limit == 60
    await asyncio.sleep(359.5)  # 60 s to respond + the 300 s bank
    assert match.status == "active"
    await asyncio.sleep(1)
    assert match.status == "finished" and match.result["winner"] == prompt.seat


async def test_each_message_carries_the_time_banks_of_its_own_moment(memory_service):
    """The public status line (`Game.status`) is stored with each message when it is made,
    so a message delivered (or resent) later still shows the figures of its moment."""
    service, transport, repo = memory_service
    match = await service.start_match("decoder", [ANN, BOB], seed="clock-status")
    await drive(service).drain()
    assert all("status" not in m.payload for _, m in transport.sent), "none during setup"
    await _to_first_turn(service, match)
    prompt = await _turn_prompt(match)
    await drive(service).drain()
    first_turn = [m for _, m in transport.sent if m.audience == "public"][-1]
    assert first_turn.payload["status"] == "⏳ Time banks: {P0} 5:00 · {P1} 5:00"
    sent_before = len(transport.sent)
    await asyncio.sleep(102)  # 12 s over the turn timer: three 5 s steps of the bank
    command = match.game.random_command(match.state, prompt, random.Random(1))
    assert (await service.submit_command(match.id, prompt.seat, command)).accepted
    await drive(service).drain()
    banks = {prompt.seat: "4:45", 1 - prompt.seat: "5:00"}
    expected = f"⏳ Time banks: {{P0}} {banks[0]} · {{P1}} {banks[1]}"
    step = [m for _, m in transport.sent[sent_before:] if m.seq == match.seq]
    assert {m.audience for m in step} >= {"public", "umpire"}
    for m in step:  # the host log gets none (it is no player's view)
        assert m.payload.get("status") == (None if m.audience == "umpire" else expected)
    # What a resend after a restart would use: the stored row keeps the figures of its moment.
    stored = {m.id: m for m in await repo.messages(match.id)}
    assert stored[first_turn.id].payload["status"] == "⏳ Time banks: {P0} 5:00 · {P1} 5:00"
    assert stored[step[0].id].payload["status"] == expected


# --- The turn timer is a budget per turn (ruling) ------------------------------------------
def _wrong_letter(match, seat: int) -> str:
    """A letter the opponent of `seat` does not hold and nobody named."""
    state = match.state
    held = set(state.seats[1 - seat].hand) | set(state.named)
    return next(ch for ch in "ZQXJVKWYBCFHMPGDLNORSTUAEI" if ch not in held)


async def _guess_wrong(service, match, prompt, after: float) -> None:
    await asyncio.sleep(after)
    tank = match.state.seats[prompt.seat].unused()[0].name
    guess = TakeTurn(tank=tank, action="guess", letter=_wrong_letter(match, prompt.seat))
    assert (await service.submit_command(match.id, prompt.seat, guess)).accepted


async def test_a_turn_whose_decisions_together_use_100_s_draws_10_s_of_bank(memory_service):
    """Seed: "On your turn during the game, you have 90 seconds (1.5 minutes) for your decisions
    in the turn": a wrong guess after 60 s leaves 30 s to give up a letter, and 40 s for that
    takes 10 s of the bank (two 5 s steps), not a fresh 90 s."""
    service, _, _ = memory_service
    match = await service.start_match("decoder", [ANN, BOB], seed="budget-100")
    await _to_first_turn(service, match)
    prompt = await _turn_prompt(match)
    seat = prompt.seat
    await _guess_wrong(service, match, prompt, 60)
    (give_up,) = match.prompts
    assert give_up.kind == "give_up" and give_up.seat == seat
    assert give_up.time_limit == 30 and give_up.bank == 300  # what is left of the 90 s budget
    await asyncio.sleep(40)
    letter = match.state.seats[seat].hand[0]
    reply = await service.submit(match.id, [ANN, BOB][seat].id, f"give up {letter}")
    assert reply.accepted, reply.message
    assert match.state.seats[seat].bank == 290
    assert match.state.seats[1 - seat].bank == 300


async def test_reminders_count_down_the_rest_of_the_turn_budget(memory_service):
    service, transport, _ = memory_service
    match = await service.start_match("decoder", [ANN, BOB], seed="budget-reminders")
    await _to_first_turn(service, match)
    prompt = await _turn_prompt(match)
    await _guess_wrong(service, match, prompt, 70)  # 20 s of the budget left
    await drive(service).drain()
    before = len(transport.texts(match.id, "public"))

    async def new_reminders() -> list[str]:
        await drive(service).drain()
        return [t for t in transport.texts(match.id, "public")[before:] if t.startswith("⏰")]

    await asyncio.sleep(4.5)
    assert await new_reminders() == []
    await asyncio.sleep(1)  # 15 s left of the turn's 90 s
    assert [t.split(", ", 1)[1] for t in await new_reminders()] == [
        "15 s left for your decision."]
    await asyncio.sleep(10)  # 5 s left
    assert "5 s left" in (await new_reminders())[-1]
    await asyncio.sleep(5)  # the budget is spent: the bank runs
    assert "time bank of 300 s is running" in (await new_reminders())[-1]


async def test_unexpected_sabotage_silence_is_pass_not_a_loss(memory_service):
    """Ruling: Unexpected Sabotage is offered, never required: the question runs on the
    holder's remaining turn budget without the time bank, and at its limit the answer is
    "pass"."""
    service, transport, _ = memory_service
    items = [{}, {"unexpected_sabotage": 1}]
    match = await service.start_match("decoder", [ANN, BOB], seed="us-silence",
                                      settings={"items": items})
    await _to_first_turn(service, match)
    (prompt,) = match.prompts
    assert prompt.seat == 0
    restore = TakeTurn(tank=match.state.seats[0].unused()[0].name, action="restore")
    assert (await service.submit_command(match.id, 0, restore)).accepted  # nothing to restore
    (question,) = match.prompts
    assert (question.seat, question.kind) == (1, "sabotage_option")
    assert question.time_limit == 60 and question.bank is None
    await asyncio.sleep(59.5)
    assert match.state.step == "sabotage_option"
    await asyncio.sleep(1)
    await drive(service).drain()
    assert match.status == "active"
    assert match.state.step == "turn" and match.state.turn == 2
    assert match.state.seats[1].bank == 300 and match.state.seats[1].items.unexpected_sabotage == 1
    assert any("{P1} passes." in t for t in transport.texts(match.id, "public"))


async def test_a_decision_with_no_budget_left_runs_on_the_bank_at_once(memory_service):
    """After a 95 s wrong guess (one 5 s bank step paid, nothing left of the 90 s), giving up a
    letter has a 0 s turn timer: the bank runs at once, and its end still loses (a 0 s limit is
    a clock, not an untimed decision)."""
    service, _, _ = memory_service
    match = await service.start_match("decoder", [ANN, BOB], seed="budget-zero")
    await _to_first_turn(service, match)
    prompt = await _turn_prompt(match)
    await _guess_wrong(service, match, prompt, 95)
    (give_up,) = match.prompts
    assert give_up.time_limit == 0 and give_up.bank == 295
    await asyncio.sleep(294.5)
    assert match.status == "active"
    await asyncio.sleep(1)
    assert match.status == "finished" and match.result["winner"] == 1 - prompt.seat
