"""The two-world information harness must catch what a token search cannot."""

import pytest

from games.core.harness import ConformanceError
from games.core.information import (
    InformationLeak,
    check_two_worlds,
    first_difference,
    run_information,
)
from tests.support.toy_game import DUEL, Duel, DuelSettings


def test_a_game_that_keeps_its_secrets_passes_and_is_really_compared():
    summary = run_information(DUEL, 40, DuelSettings(rounds=9))
    # In Duel a twin exists only between one seat's pick and the other's, whose pick then
    # reveals both: every comparison is probed and then ends with that legitimate reveal.
    assert summary.twins >= 40 and summary.probes >= 4 * summary.twins
    assert summary.reveals == summary.twins


@pytest.mark.parametrize("leak, symptom", [
    ("prompt", "your opponent picked high"),
    ("refusal", "Your opponent already picked that number"),
    ("timing", "time_limit"),
])
def test_a_leak_no_secret_token_reveals_is_caught(leak, symptom):
    with pytest.raises(InformationLeak, match=symptom) as caught:
        run_information(DUEL, 60, DuelSettings(rounds=9, info_leak=leak))
    assert "seed 'information-" in str(caught.value)


def test_the_old_token_search_misses_these_leaks():
    """The reason for two worlds: the conformance harness's token check passes them."""
    from games.core.harness import run_conformance

    for leak in ("prompt", "refusal", "timing"):
        run_conformance(DUEL, 20, settings=DuelSettings(rounds=9, info_leak=leak))


def test_a_game_without_twins_cannot_pass_by_doing_nothing(monkeypatch):
    monkeypatch.setattr(Duel, "twin", lambda self, state, seat, rng: None)
    with pytest.raises(ConformanceError, match="never made a second world"):
        run_information(DUEL, 5)


def test_a_twin_that_differs_publicly_is_reported_at_creation(monkeypatch):
    def bad_twin(self, state, seat, rng):
        twin = state.model_copy(deep=True)
        twin.score[seat] += 1  # the score is public: not a secret's twin
        return twin

    monkeypatch.setattr(Duel, "twin", bad_twin)
    with pytest.raises(InformationLeak, match=r"view\.score\[.\]: 0 != 1 \(at the twin's creation"):
        check_two_worlds(DUEL, "bad-twin")


def test_first_difference_names_the_path():
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == ".a[1].b: 2 != 3"
    assert first_difference([1, 2], [1, 2, 3]) == ": 2 items != 3 items"
    assert first_difference({"x": 1}, {"x": 1}) is None
