"""Every game's grammar, fuzzed: whatever a player types is a command or a clear refusal.

For states reached by seeded random play, any text typed by either seat must end in one of:
a command that `check` accepts, a `ParseError` or an `IllegalMove` with a message. Never
another exception (a traceback for the player, "something went wrong" on Discord), and never
a changed state.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core import IllegalMove, ParseError
from games.core.contract import Game
from games.registry import all_games

GAMES = list(all_games())


@cache
def _state_json(slug: str, seed: int, steps: int) -> str:
    """The state after `steps` random moves of seeded match `seed` (or at its end)."""
    game = all_games()[slug]
    rng = random.Random(seed)
    state = game.setup(game.settings_model(), f"fuzz-{seed}")
    for _ in range(steps):
        prompts = game.prompts(state)
        if not prompts:
            break
        prompt = rng.choice(prompts)
        game.apply(state, prompt.seat, game.random_command(state, prompt, rng))
    return state.model_dump_json()


#: Words the games know, digits of other scripts, huge and odd numbers, emoji cards.
_TOKENS = st.sampled_from([
    "raise", "call", "fold", "keep", "play", "take", "discard", "ask", "guess", "give up",
    "restore", "swap", "insurance", "sabotage", "pass", "yes", "no", "set aside", "unused:",
    "renounce", "set", "draw", "joker", "double", "accept", "forfeit", "at", "any", "odd",
    "²", "٣", "４", "⁹", "½", "Ⅻ", "9" * 5000, "-1", "0", "007", "1e9", "3.5", "#2", "2nd",
    "R3", "B9", "G5", "Y3", "🟥7", "🟨3", "🪨7", "J", "10", "1-2-3", "3..5", "|", "/", "\n",
    "{P0}", "{P1}", "@everyone", "<@123>",
])
_TEXT = st.one_of(
    st.text(max_size=60),
    st.lists(_TOKENS, min_size=1, max_size=6).map(" ".join),
    st.lists(st.one_of(_TOKENS, st.text(max_size=4)), min_size=1, max_size=6).map(" ".join),
)


def _answer(game: Game, state, seat: int, text: str) -> None:  # noqa: ANN001
    try:
        command = game.parse(state, seat, text)
        game.check(state, seat, command)
    except (ParseError, IllegalMove) as exc:
        assert str(exc).strip(), f"empty refusal for {text!r}"


@pytest.mark.parametrize("slug", GAMES)
@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 5), steps=st.integers(0, 60), seat=st.integers(0, 1), text=_TEXT)
def test_any_typed_text_is_a_command_or_a_clear_refusal(slug, seed, steps, seat, text):
    game = all_games()[slug]
    before = _state_json(slug, seed, steps)
    state = game.load_state(before)
    _answer(game, state, seat, text)
    assert state.model_dump_json() == before, f"typing {text!r} changed the state"
