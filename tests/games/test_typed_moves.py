"""Issue 29, one reading of typed moves in every game: a move is read only as a word of the
decision pending now, and a typed amount that differs from what the rule allows is refused.
The conformance harness checks both (`harness.check_other_words`) in every random match;
here it runs on one state per decision of each game, and must catch a game that does not."""

from __future__ import annotations

import random

import pytest

from games.core.harness import (
    ConformanceError,
    amount_variants,
    check_other_words,
    states_by_decision,
)
from games.registry import PREFERRED_ORDER, all_games


@pytest.mark.parametrize("slug", PREFERRED_ORDER)
def test_every_game_refuses_other_decisions_words_and_mismatched_amounts(slug):
    game = all_games()[slug]
    assert game.decision_words() is not None
    typed = 0
    for (kind, _seat), state in states_by_decision(game).items():
        before = state.model_dump_json()
        typed += check_other_words(game, state, random.Random(kind))
        assert state.model_dump_json() == before
    assert typed > 10


def test_amount_variants_change_only_the_first_number():
    assert amount_variants("call 2") == ["call 1002", "call ２", "call " + "9" * 5000, "call -2"]
    assert amount_variants("keep R3")[:2] == ["keep R1003", "keep R３"]
    assert "keep R-3" not in amount_variants("keep R3")  # "R-3" is the card R3
    assert amount_variants("fold") == []


def test_the_check_catches_a_word_of_another_decision_read_as_this_one(monkeypatch):
    """RPS Poker without its refusal of the other phase's words: "play 1" while drafting
    was read as keeping the first card (its grammar used to accept both phases' keywords)."""
    from games.core.parsing import DecisionWords
    from games.rps_poker import GAME

    state = GAME.setup(GAME.settings_model(), "other-words")
    assert state.phase == "draft"
    check_other_words(GAME, state, random.Random(1))  # refused as it should be
    monkeypatch.setattr(DecisionWords, "refuse_other", lambda self, text, pending, expected: None)
    with pytest.raises(ConformanceError, match="a word of play.*accepted as Keep"):
        check_other_words(GAME, state, random.Random(1))
