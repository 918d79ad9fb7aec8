"""Decoder's prompt fix, as ruled: "the host will take the first legal submission you make,
unless you promptly fix the submission (e.g. in case of making a typo or sending a move too
early)".

A move typed in the room is taken when its fix window closes, `fix_seconds` after it was
sent (default 3 s; 0 takes every move at once). Within the window an edit of the message
replaces the move and a deletion withdraws it; a second message does not replace the first.
The player's clock stops at the first message and the window is never charged. The room sees
the move only when it is taken. Also: a guess that cannot succeed (a letter already revealed,
or one in the guesser's own hand) is told to the guesser privately before it is taken, and
stands. Through the real match service under fast-forwarded loop time.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from bot.clock import loop_clock
from bot.store.repository import StoredMessage
from bot.transport import MatchInfo
from bot.umpire import MatchService
from games.decoder.letters import ALPHABET
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive
from tests.support.memory_repo import MemoryRepository
from tests.support.transport import RecordingTransport

pytestmark = pytest.mark.looptime


class TimedTransport(RecordingTransport):
    """Records when each message went out (loop time), for the two-world comparison."""

    def __init__(self) -> None:
        super().__init__()
        self.timed: list[tuple[float, str, str]] = []

    async def send(self, match: MatchInfo, message: StoredMessage) -> None:
        await super().send(match, message)
        self.timed.append((asyncio.get_running_loop().time(), message.audience, message.text))


@pytest.fixture
async def fixing() -> Any:
    transport = TimedTransport()
    service = MatchService(MemoryRepository(), transport, now=loop_clock())  # type: ignore[arg-type]
    await service.start()
    yield service, transport
    await service.stop()


async def first_turn(service: MatchService, seed: str, **settings: Any) -> Any:
    """A match at its first turn (setup locked by the host, setup choices made at random)."""
    match = await service.start_match("decoder", [ANN, BOB], seed=seed, settings=settings)
    rng = random.Random(0)
    await service.expire(match.id)
    while any(p.kind in ("rarity", "hand") for p in match.prompts):
        for p in list(match.prompts):
            reply = await service.submit_command(
                match.id, p.seat, match.game.random_command(match.state, p, rng))
            assert reply.accepted, reply.message
    (prompt,) = match.prompts
    assert prompt.kind == "turn" and not prompt.private
    await drive(service).drain()
    return match


def player(match: Any, seat: int) -> str:
    return match.players[seat].id


def tank(match: Any, seat: int) -> str:
    return match.state.seats[seat].unused()[0].name


def letters(match: Any, seat: int) -> tuple[str, str]:
    """A letter the guesser could hope for, and one in their own hand."""
    own = match.state.seats[seat].hand
    hopeful = next(c for c in ALPHABET if c not in own and c not in match.state.revealed)
    return hopeful, own[0]


async def guess(service: MatchService, match: Any, seat: int, letter: str,
                ref: str = "m1") -> None:
    """The seat on turn types a guess of `letter` in the room (message `ref`)."""
    reply = await service.submit(match.id, player(match, seat),
                                 f"use {tank(match, seat)} guess {letter}", message_ref=ref)
    assert reply.accepted, reply.message


def public_since(transport: TimedTransport, mark: int) -> list[str]:
    return [text for _, audience, text in transport.timed[mark:] if audience == "public"]


async def test_a_move_is_taken_when_its_window_closes_not_before(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-window")
    base = match.seq
    seat = match.prompts[0].seat
    hopeful, _ = letters(match, seat)
    mark = len(transport.timed)
    reply = await service.submit(match.id, player(match, seat),
                                 f"use {tank(match, seat)} guess {hopeful}", message_ref="m1")
    assert reply.accepted, reply.message
    await asyncio.sleep(2.9)
    await drive(service).drain()
    assert match.seq == base, "taken before its window closed"
    assert not any("guesses" in t for t in public_since(transport, mark))
    await asyncio.sleep(0.2)
    await drive(service).drain()
    assert match.seq == base + 1
    assert any(f"guesses {hopeful}" in t for t in public_since(transport, mark))


async def test_a_fixed_typo_is_taken_as_fixed(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-typo")
    base = match.seq
    seat = match.prompts[0].seat
    hopeful, _ = letters(match, seat)
    typo = next(c for c in ALPHABET if c != hopeful)
    mark = len(transport.timed)
    name = tank(match, seat)
    await guess(service, match, seat, typo)
    await asyncio.sleep(1.5)
    fixed = await service.fix(match.id, player(match, seat), f"use {name} guess {hopeful}",
                              message_ref="m1")
    assert fixed.accepted and not fixed.ignored
    await asyncio.sleep(2)
    await drive(service).drain()
    said = " ".join(public_since(transport, mark))
    assert f"guesses {hopeful}" in said and f"guesses {typo}:" not in said
    assert match.seq == base + 1 and match.state.history[-1].letter == hopeful


async def test_an_edit_after_the_window_changes_nothing(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-late")
    seat = match.prompts[0].seat
    hopeful, _ = letters(match, seat)
    name = tank(match, seat)
    await guess(service, match, seat, hopeful)
    await asyncio.sleep(3.5)
    seq = match.seq
    late = await service.fix(match.id, player(match, seat), f"use {name} restore",
                             message_ref="m1")
    assert late.ignored
    assert match.seq == seq and match.state.history[-1].action == "guess"


async def test_a_deletion_withdraws_the_move(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-delete")
    base = match.seq
    seat = match.prompts[0].seat
    hopeful, _ = letters(match, seat)
    key = match.prompts[0].key
    mark = len(transport.timed)
    await guess(service, match, seat, hopeful)
    await asyncio.sleep(1)
    assert (await service.withdraw(match.id, message_ref="m1")).accepted
    await asyncio.sleep(5)
    await drive(service).drain()
    assert match.seq == base and match.prompts[0].key == key, "a withdrawn move was taken"
    assert not public_since(transport, mark)
    assert any("withdrew your move" in t for t in transport.texts(match.id, f"seat{seat}"))


async def test_a_second_message_in_the_window_does_not_replace_the_first(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-second")
    seat = match.prompts[0].seat
    hopeful, _ = letters(match, seat)
    name = tank(match, seat)
    await guess(service, match, seat, hopeful)
    second = await service.submit(match.id, player(match, seat), f"use {name} restore",
                                  message_ref="m2")
    assert not second.accepted and "first move is still waiting" in second.message
    await asyncio.sleep(3.5)
    assert match.state.history[-1].action == "guess"


async def test_the_clock_does_not_run_during_the_window(fixing: Any) -> None:
    """A move sent 1 s before the turn timer ends is taken with 89 s used, though it is taken
    2 s after the timer would have ended; the bank is not touched."""
    service, transport = fixing
    match = await first_turn(service, "fix-clock")
    prompt = match.prompts[0]
    seat = prompt.seat
    bank = match.state.seats[seat].bank
    hopeful, _ = letters(match, seat)
    await asyncio.sleep(89)
    await guess(service, match, seat, hopeful)
    await asyncio.sleep(3.5)
    assert match.state.history[-1].action == "guess"
    assert match.state.seats[seat].bank == bank, "the window was charged to the bank"
    assert match.status == "active"


async def test_a_withdrawn_move_gives_back_the_window(fixing: Any) -> None:
    """Withdrawn 2 s into its window, the move's clock goes on with the time it had when the
    move arrived: the timer ends 2 s later than it would have."""
    service, transport = fixing
    match = await first_turn(service, "fix-withdraw-clock")
    key = match.prompts[0].key
    limit = match.clocks[key].limit_at
    seat = match.prompts[0].seat
    hopeful, _ = letters(match, seat)
    await guess(service, match, seat, hopeful)
    await asyncio.sleep(2)
    assert (await service.withdraw(match.id, message_ref="m1")).accepted
    moved = (match.clocks[key].limit_at - limit).total_seconds()
    assert moved == pytest.approx(2, abs=0.05)


async def test_no_timeout_while_a_move_waits(fixing: Any) -> None:
    """Sent in the last half second of the whole clock (turn timer and bank), the move is
    taken, not timed out, though its window ends after the deadline."""
    service, transport = fixing
    match = await first_turn(service, "fix-deadline", time_bank=0)
    base = match.seq
    seat = match.prompts[0].seat
    right = match.state.seats[1 - seat].hand[0]  # (a right guess: nothing more to decide)
    await asyncio.sleep(89.5)
    await guess(service, match, seat, right)
    await asyncio.sleep(4)
    assert match.seq == base + 1
    assert match.state.history[-1].action == "guess" and match.state.history[-1].correct
    assert "ran out of time" not in str(match.result)


async def test_fix_seconds_zero_takes_moves_at_once(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-zero", fix_seconds=0)
    base = match.seq
    seat = match.prompts[0].seat
    hopeful, _ = letters(match, seat)
    await guess(service, match, seat, hopeful)
    assert match.seq == base + 1 and match.state.history[-1].action == "guess"


async def test_a_click_is_taken_at_once(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-click")
    base = match.seq
    prompt = match.prompts[0]
    assert (await service.submit(match.id, player(match, prompt.seat), prompt.choices[0],
                                 prompt_key=prompt.key)).accepted
    assert match.seq == base + 1


async def test_a_guess_that_cannot_succeed_is_told_privately_and_stands(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-hopeless")
    base = match.seq
    seat = match.prompts[0].seat
    _, own = letters(match, seat)
    mark = len(transport.timed)
    await guess(service, match, seat, own)
    await drive(service).drain()
    told = [t for _, a, t in transport.timed[mark:] if a == f"seat{seat}"]
    assert any(f"{own} cannot be in" in t and "in your own hand" in t for t in told), told
    assert not any("cannot be in" in t for _, a, t in transport.timed[mark:]
                   if a != f"seat{seat}"), "the warning reached someone else"
    assert match.seq == base  # told before the guess is taken
    await asyncio.sleep(3.5)
    await drive(service).drain()
    assert any(f"guesses {own}: wrong" in t for t in public_since(transport, mark))


async def test_a_revealed_letter_is_warned_at_once_with_no_window(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-revealed", fix_seconds=0)
    base = match.seq
    seat = match.prompts[0].seat
    match.state.revealed.append("Q")  # (as after a right guess or a letter given up)
    match.prepare_draft()
    if "Q" in match.state.seats[seat].hand:
        pytest.skip("the seed dealt Q to the guesser")
    mark = len(transport.timed)
    assert (await service.submit(match.id, player(match, seat),
                                 f"use {tank(match, seat)} guess Q")).accepted
    await drive(service).drain()
    told = [t for _, a, t in transport.timed[mark:] if a == f"seat{seat}"]
    assert told and "already revealed" in told[0], told
    assert match.seq == base + 1


async def test_a_pause_withdraws_a_waiting_move(fixing: Any) -> None:
    service, transport = fixing
    match = await first_turn(service, "fix-pause")
    base = match.seq
    seat = match.prompts[0].seat
    hopeful, _ = letters(match, seat)
    await guess(service, match, seat, hopeful)
    await asyncio.sleep(1)
    await service.pause(match.id)
    await asyncio.sleep(5)
    await service.resume(match.id)
    await asyncio.sleep(1)
    await drive(service).drain()
    assert match.seq == base
    assert any("paused the match before your move was taken" in t
               for t in transport.texts(match.id, f"seat{seat}"))


async def test_whether_a_move_was_fixed_shows_the_opponent_only_its_timing() -> None:
    """Two worlds: in one the player types the right move; in the other a typo, fixed a
    second later. Everything the opponent and a spectator see (their messages, when they
    go out) is the same in both."""
    seen: list[list[tuple[float, str, str]]] = []
    for fix in (False, True):
        transport = TimedTransport()
        service = MatchService(MemoryRepository(), transport,  # type: ignore[arg-type]
                               now=loop_clock())
        await service.start()
        try:
            match = await first_turn(service, "fix-two-worlds")
            seat = match.prompts[0].seat
            hopeful, _ = letters(match, seat)
            name = tank(match, seat)
            start = asyncio.get_running_loop().time()
            mark = len(transport.timed)
            first = f"use {name} guess {'Z' if fix and hopeful != 'Z' else 'Y' if fix else hopeful}"
            assert (await service.submit(match.id, player(match, seat), first,
                                         message_ref="m1")).accepted
            if fix:
                await asyncio.sleep(1)
                await service.fix(match.id, player(match, seat), f"use {name} guess {hopeful}",
                                  message_ref="m1")
            await asyncio.sleep(10)
            await drive(service).drain()
            seen.append([(round(t - start, 2), a, text) for t, a, text in transport.timed[mark:]
                         if a != f"seat{seat}"])
        finally:
            await service.stop()
    assert seen[0] and seen[0] == seen[1]


async def test_in_the_terminal_fix_replaces_and_undo_withdraws(fixing: Any) -> None:
    """`umpire play decoder`: `/fix TEXT` replaces the move waiting to be taken, `/undo`
    withdraws it, and either with nothing waiting says so."""
    import io

    from bot.console.play import HUMAN_ID, NOTHING_WAITING, _handle
    from bot.transport import PlayerRef

    service, transport = fixing
    you = PlayerRef(HUMAN_ID, "You")
    match = await service.start_match("decoder", [you, BOB], seed="fix-console")
    rng = random.Random(0)
    await service.expire(match.id)
    while any(p.kind in ("rarity", "hand") for p in match.prompts):
        for p in list(match.prompts):
            await service.submit_command(match.id, p.seat,
                                         match.game.random_command(match.state, p, rng))
    base = match.seq
    out = io.StringIO()
    assert match.prompts[0].seat == 0 and match.prompts[0].kind == "turn"  # (the advantage)
    await _handle(service, match.id, 0, "/undo", out)
    assert NOTHING_WAITING in out.getvalue()
    hopeful, _ = letters(match, 0)
    typo = next(c for c in ALPHABET if c != hopeful)
    name = tank(match, 0)
    await _handle(service, match.id, 0, f"use {name} restore", out)
    await _handle(service, match.id, 0, "/undo", out)
    await asyncio.sleep(3.5)
    assert match.seq == base  # withdrawn
    await _handle(service, match.id, 0, f"use {name} guess {typo}", out)
    await _handle(service, match.id, 0, f"/fix use {name} guess {hopeful}", out)
    await asyncio.sleep(3.5)
    assert match.seq == base + 1
    assert [r.letter for r in match.state.history if r.seat == 0][-1] == hopeful


async def test_a_record_with_fixed_withdrawn_and_warned_moves_verifies(fixing: Any) -> None:
    """The prompt fix's lines (a warning, a withdrawal) are the umpire's own: the record of
    a match that has them replays and verifies as any other."""
    from bot.console.records import verify

    service, transport = fixing
    match = await first_turn(service, "fix-verify")
    seat = match.prompts[0].seat
    hopeful, own = letters(match, seat)
    await guess(service, match, seat, hopeful, ref="m1")
    assert (await service.withdraw(match.id, message_ref="m1")).accepted
    await guess(service, match, seat, own, ref="m2")  # warned, and it stands
    await asyncio.sleep(3.5)
    await service.abort(match.id, "a test ends it")
    await drive(service).drain()
    texts = " ".join(transport.texts(match.id, f"seat{seat}"))
    assert "withdrew your move" in texts and "cannot be in" in texts
    record = json.loads(service.export_json(await service.export(match.id)))
    assert verify(record).startswith("verified")
