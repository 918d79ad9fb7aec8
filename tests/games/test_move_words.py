"""Moves versus chat: every answer a game offers for a decision in the public room (its
choices) starts with one of the game's move words, and ordinary chat does not."""

from __future__ import annotations

import random

import pytest

from games.core.parsing import MoveWords
from games.registry import all_games

CHAT = ("nice one", "good luck, have fun!", "gg", "lol", "wow", "hello everyone",
        "really?", "well played", "brb", "that was close", "haha", "thanks")


@pytest.mark.parametrize("slug", list(all_games()))
def test_every_public_choice_is_a_move_and_chat_is_not(slug: str) -> None:
    game = all_games()[slug]
    seen = 0
    for seed in range(4):
        rng = random.Random(seed)
        # (Decoder: random players have no host to lock setup; the house option does it.)
        house = {"lock_when_ready": True} if slug == "decoder" else {}
        state = game.setup(game.load_settings(house), f"move-words-{seed}")
        words = game.move_words(state)
        if words is None:
            pytest.skip(f"{slug} sets no move words: every text in its room is a move")
        assert isinstance(words, MoveWords)
        for text in CHAT:
            assert not words.matches(text), (slug, text)
        for _ in range(120):
            prompts = game.prompts(state)
            if not prompts:
                break
            for prompt in prompts:
                if prompt.private:
                    continue
                for choice in prompt.choices:
                    seen += 1
                    assert words.matches(choice), (slug, prompt.kind, choice)
            prompt = rng.choice(prompts)
            game.submit(state, prompt.seat, game.random_command(state, prompt, rng))
    assert seen or slug == "rps-poker"  # RPS Poker has no public decision


def test_a_lead_word_must_end_the_word_it_starts() -> None:
    words = MoveWords(lead=("r", "raise", "🟥"), whole=("no",))
    assert words.matches("r3") and words.matches("R 3") and words.matches("raise 2")
    assert words.matches("🟥7") and words.matches("**raise** 4") and words.matches("No")
    assert not words.matches("really") and not words.matches("no way")
    assert not words.matches("raised eyebrows") and not words.matches("")
