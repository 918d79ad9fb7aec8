"""The bot tournament's table, as ruled: "totals are raw game points summed over all cycles".

The table ranks by total points, then games won per match played (a column), then name. The
two orders differ only when bots played different numbers of matches (a run stopped midway),
and then the totals decide."""

from __future__ import annotations

from bot.arena.leaderboard import build


def test_total_points_rank_before_games_won_per_match() -> None:
    # A beat D 6-4 twice (A: 12 points in 2 matches, 6.0 a match; D: 8, 4.0); C beat B 7-3
    # once (C: 7 points in 1 match, 7.0 a match). Bots played different numbers of matches,
    # as in a stopped run: the totals decide.
    names = ["A", "B", "C", "D"]
    board = build(names, tallies=[(0, 3, 6, 2), (2, 1, 7, 1)], rated=[], departed=[])
    assert [s.name for s in board.table] == ["A", "D", "C", "B"]
    by_name = {s.name: s for s in board.table}
    assert (by_name["A"].points, by_name["A"].games_per_match) == (12, 6.0)
    assert (by_name["C"].points, by_name["C"].games_per_match) == (7, 7.0)


def test_equal_points_are_split_by_games_won_per_match_then_name() -> None:
    names = ["Bea", "Ada", "Cal", "Dot"]
    # Bea 10 in 2 matches (5.0); Ada 10 in 1 match (10.0): Ada first on the second key.
    board = build(names, tallies=[(0, 2, 5, 2), (1, 3, 10, 1)], rated=[], departed=[])
    order = [s.name for s in board.table]
    assert order[:2] == ["Ada", "Bea"]
