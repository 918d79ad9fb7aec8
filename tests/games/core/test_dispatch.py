"""The contract's dispatch: `Game.check` and `Game.apply` route through the tables a game
declares, and refuse the same way in every game (match over, stale timeout, out of turn)."""

from __future__ import annotations

import random
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from games.core.contract import (
    MATCH_OVER,
    NOT_A_PLAYER,
    STALE_TIMEOUT,
    Audience,
    Command,
    Event,
    Game,
    IllegalMove,
    Outcome,
    Prompt,
    Secret,
    Timeout,
    say,
)


class Count(Command):
    type: Literal["count"] = "count"
    n: int


class Stop(Command):
    type: Literal["stop"] = "stop"


class Award(Command):
    type: Literal["award"] = "award"


class Other(Command):
    type: Literal["other"] = "other"


class CountState(BaseModel):
    turn: int = 0
    total: int = 0
    over: bool = False
    log: list[str] = []


def check_count(state: CountState, seat: int, c: Count) -> None:
    if c.n not in (1, 2):
        raise IllegalMove("Count 1 or 2.")


def apply_count(state: CountState, seat: int, c: Count, ev: list[Event]) -> None:
    state.total += c.n
    state.turn = 1 - seat
    say(ev, "count", f"{{P{seat}}} counts {c.n}: {state.total}.")
    say(ev, "count.umpire", f"total {state.total}", Audience.umpire())


def apply_stop(state: CountState, seat: int, c: Stop, ev: list[Event]) -> None:
    state.over = True


def stop_refused(state: CountState, seat: int, c: Stop) -> str | None:
    """Stop's own words out of turn, once two have been counted (before that: none)."""
    return "Stop on your own turn." if state.total >= 2 else None


def count_timeout(state: CountState, seat: int, prompt: Prompt, ev: list[Event]) -> None:
    apply_count(state, seat, Count(n=1), ev)


class Counting(Game[CountState]):
    """Players take turns counting 1 or 2; seat 1's turn has no automatic timeout."""

    slug = "counting"
    title = "Counting"
    settings_model = BaseModel
    state_model = CountState
    command_types = (Count, Stop, Award, Timeout)
    answers = {"count": (Count, Stop), "count_late": (Count, Stop)}
    checks = {"count": check_count, "stop": lambda s, seat, c: None,
              "award": lambda s, seat, c: None}
    applies = {"count": apply_count, "stop": apply_stop, "award": apply_stop}
    refusals = {"stop": stop_refused}
    timeouts = {"count": count_timeout}
    log_keep = 3

    def setup(self, settings: BaseModel, seed: str) -> CountState:
        return CountState()

    def prompts(self, state: CountState) -> list[Prompt]:
        if state.over:
            return []
        kind = "count" if state.turn == 0 else "count_late"
        return [Prompt(key=f"c{state.total}", seat=state.turn, kind=kind, private=False,
                       text="count 1 or 2")]

    def outcome(self, state: CountState) -> Outcome | None:
        return Outcome(winner=None, reason="stopped") if state.over else None

    def view(self, state: CountState, seat: int | None) -> BaseModel:
        return state

    def secrets(self, state: CountState) -> list[Secret]:
        return []

    def parse(self, state: CountState, seat: int, text: str) -> Command:
        return Count(n=int(text))

    def random_command(self, state: CountState, prompt: Prompt, rng: random.Random) -> Any:
        return Count(n=1)


GAME = Counting()


def new() -> CountState:
    return CountState()


def refusal(state: CountState, seat: int, command: Command) -> str:
    with pytest.raises(IllegalMove) as caught:
        GAME.check(state, seat, command)
    return str(caught.value)


def test_a_command_goes_to_its_check_and_apply_handlers() -> None:
    state = new()
    assert refusal(state, 0, Count(n=3)) == "Count 1 or 2."
    events = GAME.submit(state, 0, Count(n=2))
    assert state.total == 2 and state.turn == 1
    assert [e.kind for e in events] == ["count", "count.umpire"]


def test_out_of_turn_and_wrong_kind_are_refused_before_the_handler() -> None:
    state = new()
    assert refusal(state, 1, Count(n=3)) == "It is not your decision now (waiting for: count)."
    assert refusal(state, 7, Count(n=1)) == NOT_A_PLAYER


def test_a_command_types_own_refusal_comes_first_and_may_leave_it_to_the_general_one() -> None:
    state = new()
    waiting = "It is not your decision now (waiting for: count)."
    assert refusal(state, 1, Stop()) == waiting  # its handler says nothing yet
    GAME.submit(state, 0, Count(n=2))
    assert refusal(state, 0, Stop()) == "Stop on your own turn."
    assert refusal(state, 0, Count(n=1)) == waiting.replace("count)", "count late)")
    GAME.check(state, 1, Stop())  # in its decision: the refusal handler is not asked


def test_a_command_of_no_table_is_not_a_move_and_one_of_no_kind_answers_no_prompt() -> None:
    state = new()
    assert refusal(state, 0, Other()) == "That is not a Counting move."
    assert refusal(state, 0, Timeout(prompt_key="nope")) == STALE_TIMEOUT
    GAME.check(state, 1, Award())  # a host's award answers no prompt: its handler alone


def test_a_finished_match_refuses_everything_with_one_text() -> None:
    state = new()
    GAME.submit(state, 0, Stop())
    for seat, command in ((0, Count(n=1)), (1, Stop()), (0, Timeout(prompt_key="c0"))):
        assert refusal(state, seat, command) == MATCH_OVER


def test_a_timeout_applies_the_prompt_kinds_default_or_is_left_to_the_hosts() -> None:
    state = new()
    assert refusal(state, 1, Timeout(prompt_key="c0")) == STALE_TIMEOUT  # not seat 1's
    GAME.submit(state, 0, Timeout(prompt_key="c0"))
    assert state.total == 1 and state.turn == 1
    assert refusal(state, 1, Timeout(prompt_key="c1")) == (
        "Going over the time limit has no automatic outcome in Counting: the hosts decide.")


def test_the_public_log_keeps_the_last_public_texts_only() -> None:
    state = new()
    for seat in (0, 1, 0, 1):
        GAME.submit(state, seat, Count(n=1))
    assert state.log == ["{P1} counts 1: 2.", "{P0} counts 1: 3.", "{P1} counts 1: 4."]
