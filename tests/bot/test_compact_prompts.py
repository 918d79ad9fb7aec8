"""Prompts a player reads at a glance: the full how-to the first time a player meets a kind
of decision in a match, the game's compact line (`Prompt.brief`) after that."""

from __future__ import annotations

import random

from bot.messages import compose
from games.core import Prompt
from tests.bot.conftest import ANN, BOB
from tests.support.driver import drive

FULL = "Draft round 1 of 5: keep 🪨1 or 📄2. Type keep 🪨1, or 1 or 2."
BRIEF = "draft 1/5: keep 🪨1 or 📄2."


def draft(brief: str = BRIEF) -> Prompt:
    return Prompt(key="k1", seat=0, kind="draft_pick", private=True, text=FULL, brief=brief,
                  timeout_text="If time runs out, the bot keeps one for you.")


def table0(**options: object) -> str:
    """The text of seat 0's table message composed for the draft prompt."""
    [message] = [o for o in compose((), [draft(**options.pop("prompt", {}))], {}, **options)
                 if o.audience == "seat0"]
    return message.text


def test_the_first_prompt_of_a_kind_is_full_and_later_ones_compact() -> None:
    first = table0()
    assert first == f"▶ {{P0}}, your decision: {FULL} If time runs out, the bot keeps " \
                         "one for you."
    assert table0(met={(0, "draft_pick")}) == f"▶ {{P0}}, your decision: {BRIEF}"
    assert FULL in table0(met={(1, "draft_pick")})  # the other seat's meeting does not count
    # a decision without a compact line: always the full text
    assert FULL in table0(met={(0, "draft_pick")}, prompt={"brief": ""})


async def test_a_seat_sees_each_kind_in_full_once_then_compact(sqlite_service) -> None:
    service, transport = sqlite_service
    rng = random.Random(2)
    match = await service.start_match("rps-poker", [ANN, BOB])
    for _ in range(2):  # two draft rounds
        for prompt in list(match.prompts):
            await service.submit_command(match.id, prompt.seat,
                                         match.game.random_command(match.state, prompt, rng))
    await drive(service).drain()
    for seat in (0, 1):
        asks = [t for t in transport.texts(match.id, f"seat{seat}") if "your decision" in t]
        assert "Draft round 1 of" in asks[0] and "Type keep" in asks[0]
        assert all("draft " in t and "Type keep" not in t for t in asks[1:]) and asks[1:]
