"""The built-in players: random legal play, and the heuristic "fate-reader"."""

from __future__ import annotations

from games.renounce_fate import GAME
from games.renounce_fate.bots import BOTS, Estimator, HeuristicBot, RandomBot
from games.renounce_fate.settings import RenounceFateSettings
from tests.support.games.renounce_fate import play_bots


def test_bots_are_registered_by_the_package_strongest_first():
    assert list(GAME.bots()) == ["fate-reader", "random"]
    assert BOTS["fate-reader"] is HeuristicBot and BOTS["random"] is RandomBot


def test_engine_does_not_import_the_bots():
    import ast
    from pathlib import Path

    import games.renounce_fate.engine as engine

    tree = ast.parse(Path(engine.__file__).read_text())
    names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not any(m and m.endswith(".bots") for m in names)


def test_heuristic_beats_random_clearly_over_200_matches():
    matches, wins = 200, 0
    for i in range(matches):
        seat = i % 2  # both seats
        bots = [RandomBot(), RandomBot()]
        bots[seat] = HeuristicBot()
        outcome = GAME.outcome(play_bots(bots, f"arena-{i}"))
        assert outcome is not None
        wins += outcome.winner == seat
    print(f"fate-reader beat random in {wins} of {matches} matches ({wins / matches:.0%})")
    assert wins / matches >= 0.85, f"heuristic won only {wins} of {matches}"


def test_estimate_is_exact_with_the_community_known():
    """With the community known the estimate counts every hand the opponent may hold: a red
    flush 5-4-3-1 is a far better bet than a hand that ranks nothing."""
    est = Estimator(["R4", "R5"], [["R1", "Y1", "Y2"], ["R3", "Y3", "Y4"], ["Y5", "R1", "Y3"]],
                    RenounceFateSettings())
    strong = est.equity(["R1", "R3", "Y5"])
    weak = Estimator(["Y1", "R2"], [["R1", "Y1", "Y2"], ["R3", "Y3", "Y4"], ["Y5", "R1", "Y3"]],
                     RenounceFateSettings()).equity(["R1", "R3", "Y5"])
    assert 0.0 <= weak < strong <= 1.0


def test_heuristic_renounces_toward_its_hand():
    """Holding 🟨4 🟨5, the 🟨3 of set 1 is the card that helps most (a yellow straight
    flush): renouncing it is never the bot's best pick."""
    est = Estimator(["Y4", "Y5"], [["Y3", "R1", "R2"], ["R3", "Y2", "R5"], ["Y1", "R4", "R1"]],
                    RenounceFateSettings())
    values = est.pick_values([["Y3", "R1", "R2"], ["R3", "Y2", "R5"], ["Y1", "R4", "R1"]])
    best = max(values, key=values.get)
    assert best != (1, "Y3")
    assert values[(1, "Y3")] < max(values.values())
