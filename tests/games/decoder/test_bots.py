"""The built-in players: legal from the view only, quick, and the heuristic beats random."""

from __future__ import annotations

import random
import time

from games.decoder import GAME
from games.decoder.bots import HeuristicBot, RandomBot
from games.decoder.inference import estimate_opponent_tanks, opponent_belief
from games.decoder.settings import DecoderSettings, Items
from games.decoder.views import DecoderView
from tests.support.games.decoder import ask, set_hands, started


def play(seed: str, bots: list, s: DecoderSettings | None = None) -> tuple[int, float, int]:
    """One match between two bots; returns (winner, slowest decision in seconds, turns)."""
    # Bots have no host to lock setup: the house option locks it once both are ready.
    state = GAME.setup(s or DecoderSettings(lock_when_ready=True), seed)
    rng = random.Random(seed)
    slowest = 0.0
    step = 0
    while GAME.prompts(state):
        prompts = GAME.prompts(state)
        prompt = prompts[step % len(prompts)]  # both players' setup prompts in turn
        step += 1
        view = GAME.view(state, prompt.seat)
        start = time.perf_counter()
        command = bots[prompt.seat].choose(view, prompt, rng)
        slowest = max(slowest, time.perf_counter() - start)
        GAME.check(state, prompt.seat, command)  # every bot decision is legal
        GAME.apply(state, prompt.seat, command)
    out = GAME.outcome(state)
    assert out is not None and out.winner is not None
    return out.winner, slowest, state.turn


def test_bots_listed_default_first() -> None:
    assert list(GAME.bots()) == ["deducer", "random"]


def test_heuristic_beats_random_clearly() -> None:
    matches = 200
    wins = 0
    slowest = 0.0
    play("warm-up", [HeuristicBot(), RandomBot()])  # loads the word list and letter counts
    for i in range(matches):
        seat = i % 2  # the heuristic plays both seats
        bots = [RandomBot(), RandomBot()]
        bots[seat] = HeuristicBot()
        winner, slow, _ = play(f"duel-{i}", bots)
        wins += winner == seat
        slowest = max(slowest, slow)
    assert wins >= 0.85 * matches, f"heuristic won {wins} of {matches}"
    assert slowest < 3.0  # about 0.5 s at worst on an idle machine


def test_heuristic_mirror_match_with_items_finishes() -> None:
    items = Items(hand_insurance=1, new_evidence=1, power_surge=1, unexpected_sabotage=1)
    for i in range(6):
        play(f"mirror-{i}", [HeuristicBot(), HeuristicBot()],
             DecoderSettings(items=[items, items], lock_when_ready=True))


def test_belief_keeps_only_hands_consistent_with_clues() -> None:
    state = started()
    set_hands(state, "GHIJKL", "ABCDEF")
    ask(state, 0, "Arithmetic Box", "DECODER", "ANY", clue="TWO")  # count 5: TWO is NO
    view = GAME.view(state, 0)
    assert isinstance(view, DecoderView)
    belief = opponent_belief(view, random.Random(1))
    assert all(ch not in belief.candidates for ch in "GHIJKL")
    from games.decoder.inference import count, mask_of, word_masks
    masks = word_masks("DECODER")
    assert all(count(h, masks) != 2 for h, _ in belief.hypotheses)
    assert any(h == mask_of("ABCDEF") for h, _ in belief.hypotheses)


def test_tank_estimates_from_turn_order() -> None:
    """Seat 0 (10-unit tanks) moves at 0, 10, 20; seat 1 at 1 (a 14-unit tank) and then somewhere
    between 10 and 20: the midpoint, 15, makes that tank 14 units."""
    times = [[100] * 7, [140, 100, 100, 100, 100, 100, 100]]
    state = started(DecoderSettings(times=times, lock_when_ready=True))
    ask(state, 0, "Arithmetic Box", "CAT", clue="ODD")  # seat 0 at t=0, 10 units
    ask(state, 1, "Arithmetic Box", "DOG", clue="ODD")  # seat 1 at t=1, 14 units
    ask(state, 0, "Bijective Matrix", "EMU", clue="ODD")  # seat 0 at t=10
    ask(state, 1, "Bijective Matrix", "GNU", clue="ODD")  # seat 1 at t=15
    assert state.active == 0
    ask(state, 0, "Cipher Wheel", "YAK", clue="ODD")  # seat 0 at t=20
    view = GAME.view(state, 0)
    est = estimate_opponent_tanks(view)
    assert est["Arithmetic Box"] == 14.0


# --- Issue: the built-in bots ask common, inoffensive words ------------------------------
def test_bot_clue_words_come_from_common_inoffensive_vocabulary() -> None:
    from games.decoder.commands import TakeTurn
    from games.decoder.vocabulary import bot_words, is_offensive
    from games.decoder.wordlist import load_words

    words = bot_words()
    full = load_words()
    assert 5_000 < len(words) < len(full) // 5  # a common vocabulary, not the whole list
    assert all(w in full for w in words)
    assert not any(is_offensive(w) for w in words)
    for bad in ("PORNOMAG", "PORN", "FUCK", "SHITTY", "CUNT"):
        assert bad not in words
    for common in ("HOUSE", "TABLE", "GARDEN", "LETTER"):
        assert common in words
    asked: set[str] = set()
    for i in range(6):
        state = GAME.setup(DecoderSettings(lock_when_ready=True), f"vocab-{i}")
        rng = random.Random(i)
        bots = [HeuristicBot(), RandomBot()]
        step = 0
        while GAME.prompts(state) and state.turn < 40:
            prompts = GAME.prompts(state)
            prompt = prompts[step % len(prompts)]
            step += 1
            command = bots[prompt.seat].choose(GAME.view(state, prompt.seat), prompt, rng)
            if isinstance(command, TakeTurn) and command.word:
                asked.add(command.word.upper())
            GAME.check(state, prompt.seat, command)
            GAME.apply(state, prompt.seat, command)
    assert len(asked) > 10 and asked <= set(words)
    # Players may still ask any word of the configured list.
    state = started()
    assert "PORNOMAG" in full
    GAME.check(state, 0, TakeTurn(tank="Arithmetic Box", action="ask", word="PORNOMAG",
                                  exclude="ANY"))
