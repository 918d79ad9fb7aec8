"""The built-in players: random is legal, the heuristic beats random clearly."""

from __future__ import annotations

import random

from games.rps_poker import GAME
from games.rps_poker.bots import ArenaSeat
from games.rps_poker.players import PLAYERS
from tests.support.games.rps_poker import play_match


def test_bots_listed_default_first() -> None:
    names = list(GAME.bots())
    assert names[0] == "heuristic" and "random" in names
    assert {"arena:minimal-valid", "arena:simple", "arena:basic-odds", "arena:saver"} <= set(names)


def test_every_bot_finishes_matches_legally() -> None:
    bots = GAME.bots()
    for name, factory in bots.items():
        state = play_match(f"legal-{name}", (factory(), bots["random"]()))
        assert GAME.outcome(state) is not None


def test_heuristic_beats_random_over_300_seeded_matches() -> None:
    bots = GAME.bots()
    points = [0, 0]
    wins = [0, 0]
    for i in range(300):
        seat = i % 2  # the heuristic alternates seats
        pair = [bots["random"](), bots["random"]()]
        pair[seat] = bots["heuristic"]()
        state = play_match(f"strength-{i}", (pair[0], pair[1]), rng_seed=i)
        points[0] += state.score[seat]
        points[1] += state.score[1 - seat]
        outcome = GAME.outcome(state)
        if outcome.winner == seat:
            wins[0] += 1
        elif outcome.winner == 1 - seat:
            wins[1] += 1
    assert points[0] + points[1] == 3000
    assert points[0] > 0.6 * 3000, points
    assert wins[0] > 2 * wins[1], wins


def test_arena_seat_falls_back_to_a_random_legal_card_when_the_player_fails() -> None:
    class Broken:
        def draft_pick(self, cards: list[str]) -> int:
            return 7

    seat = ArenaSeat("broken", Broken)
    state = play_match("broken", (seat, GAME.bots()["random"]()))
    assert GAME.outcome(state) is not None and seat.errors > 0


def test_arena_seat_replays_the_players_own_draft_picks() -> None:
    # Simple keeps the higher number; through the view replay it must have done so each round.
    bots = GAME.bots()
    state = play_match("simple-seat", (bots["arena:simple"](), bots["random"]()))
    for d in state.drafts:
        offer, kept = d.offers[0], d.kept[0]
        assert kept == (offer[1] if offer[0][1] < offer[1][1] else offer[0])
    assert PLAYERS["simple"]().draft_pick(["R1", "S2"]) == 1
    rng = random.Random(1)
    assert rng is not None
