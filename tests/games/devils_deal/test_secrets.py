"""What the opponent may know of a pool (seed, Information: "Explicitly only known to you:
... What your current pool is"; "cards that are discarded unrevealed").

Once a fold left private cards unrevealed, the public record of a pool no longer says which
cards it holds. Nothing the opponent can read (the public division prompt, the replies to a
division or a take, events) may then depend on the pool's contents: each test builds two
worlds that differ only there and compares what the opponent would read.
"""

from __future__ import annotations

import random

import pytest

from games.core.contract import IllegalMove
from games.devils_deal import GAME
from games.devils_deal.cards import sort_cards
from games.devils_deal.state import DevilsDealState
from games.devils_deal.twin import gone_unseen, pool_is_secret
from tests.support.games.devils_deal import arrange, new, say, to_refill_offer

EXAMPLE = ["G5", "B3", "R3", "R7", "B6", "G1", "G2", "G8", "B5", "R2", "B9", "G6"]
EXAMPLE_DIVISION = "R2, B3, R3, G6\nG5, B9\nB6, G8\nG2, B5, R7 (set aside)\nUnused: G1"


def folded_record(state: DevilsDealState, seat: int, pool: list[str], gone: list[str]) -> None:
    """`seat`'s pool is `pool`, and `gone` left it unrevealed in a fold: the public record
    holds both."""
    state.pools[seat] = list(pool)
    state.known_pools[seat] = sort_cards([*pool, *gone])
    state.used[seat] += len(gone)
    state.received[seat] = len(pool) + state.used[seat] + state.discarded[seat]
    GAME.invariants(state)


def two_worlds(refiller_pool: tuple[list[str], list[str]], gone: tuple[list[str], list[str]],
               other_pool: list[str] | None = None, refiller: int = 0):
    """Two refill states of `refiller` that differ only in which cards a fold took away."""
    worlds = []
    for pool, away in zip(refiller_pool, gone, strict=True):
        state = new("secrets")
        if other_pool is not None:
            arrange(state, pools=[["R1"], other_pool] if refiller == 0 else [other_pool, ["R1"]])
        folded_record(state, refiller, pool, away)
        to_refill_offer(state, starter=refiller)
        say(state, refiller, "yes")
        assert state.refill is not None
        state.refill.offered = list(EXAMPLE)
        worlds.append(state)
    assert worlds[0].known_pools == worlds[1].known_pools
    assert all(pool_is_secret(w, refiller) for w in worlds)
    return worlds


POOLS = (["R2", "R3", "R5", "R6", "R8", "R9", "G3", "G4"], ["R4", "R5", "R6", "R7", "R8", "R9", "G3", "G4"])
GONE = (["R4", "R7"], ["R2", "R3"])


def test_public_division_prompt_does_not_list_the_pool():
    a, b = two_worlds(POOLS, GONE)
    [pa], [pb] = GAME.prompts(a), GAME.prompts(b)
    assert not pa.private and pa.text == pb.text
    assert "8 cards" in pa.text


def test_refiller_is_told_their_pool_privately():
    state = new("secrets")
    folded_record(state, 0, POOLS[0], GONE[0])
    to_refill_offer(state, starter=0)
    events = say(state, 0, "yes")
    [own] = [e for e in events if e.kind == "refill.pool"]
    assert own.audience.kind == "seat" and own.audience.seat == 0
    assert own.data["pool"] == state.pools[0]


def _refusal(state: DevilsDealState, seat: int, text: str) -> str:
    with pytest.raises(IllegalMove) as caught:
        say(state, seat, text)
    return str(caught.value)


def test_reply_to_a_lock_with_too_few_discards_suggests_no_pool_card():
    a, b = two_worlds(POOLS, GONE)
    replies = [_refusal(w, 0, EXAMPLE_DIVISION + "\ndone") for w in (a, b)]
    assert replies[0] == replies[1]
    assert "discard 6 more" in replies[0]
    for card in [*POOLS[0], *POOLS[1]]:
        assert card not in replies[0].replace("R1 G2", "")  # the generic example only


def test_reply_to_a_take_that_needs_a_discard_suggests_no_pool_card():
    full = (["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "G1"],
            ["R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "G1", "B1"])
    replies = []
    for pool, away in zip(full, (["B1", "B9"], ["R1", "B9"]), strict=True):
        state = new("secrets")
        arrange(state, pools=[["R1", "G9"], ["B2"]])
        folded_record(state, 1, pool, away)
        to_refill_offer(state, starter=0)
        say(state, 0, "yes")
        assert state.refill is not None
        state.refill.offered = list(EXAMPLE)
        say(state, 0, EXAMPLE_DIVISION + "\ndone")
        replies.append(_refusal(state, 1, "take G2"))
    assert replies[0] == replies[1]
    assert "also discard one" in replies[0]


def test_twin_varies_only_what_the_opponent_cannot_know():
    a, _ = two_worlds(POOLS, GONE)
    twin = GAME.twin(a, 0, random.Random(1))
    assert twin is not None and twin.pools[0] != a.pools[0]
    assert twin.known_pools == a.known_pools and len(twin.pools[0]) == len(a.pools[0])
    assert gone_unseen(twin, 0) != gone_unseen(a, 0)
    assert twin.chance == a.chance
    for viewer in (1, None):
        assert GAME.view(twin, viewer) == GAME.view(a, viewer)
    assert GAME.twin(a, 1, random.Random(1)) is None  # seat 1 has no secret here
