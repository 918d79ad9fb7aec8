"""No internal name reaches a reader (issue 42, item 8): over seeded random matches of every
game, every message the umpire composes (events, prompts, waiting lines, reminders) and
every player's description, as the console and Discord render them, has no `{P0}`-style
placeholder or `{until:...}` left and names no decision key (`draft_pick`); every prompt,
and what its timeout does, is a sentence."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta

import pytest

from bot.console.demo import bot_settings
from bot.discord.render import render, render_plain
from bot.messages import as_sentence, compose, decision_label, prompt_line, reminder_times
from bot.store.repository import ClockData
from bot.transport import PlayerRef, render_text
from games.registry import all_games, installed_games

GAMES = installed_games()  # (not the test suite's toy games)
PLAYERS = (PlayerRef(id="a", name="Ann"), PlayerRef(id="b", name="Bob"))
LEFT = re.compile(r"\{P\d+\}|\{until:")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _keys() -> set[str]:
    """Every decision key of every game that is not an ordinary word (draft_pick, give_up)."""
    keys: set[str] = set()
    for slug in GAMES:
        game = all_games()[slug]
        for _, _, prompts, _, _ in _steps(slug, seeds=2):
            keys |= {p.kind for p in prompts if "_" in p.kind}
        keys |= {k for k in (game.decision_words().kinds if game.decision_words() else {})
                 if "_" in k}
    return keys


def _steps(slug: str, seeds: int = 3, max_steps: int = 400):
    """(events, new prompts, every prompt) of each step of seeded random matches."""
    game = all_games()[slug]
    for i in range(seeds):
        rng = random.Random(f"words:{i}")
        # a setup that locks once both are ready (as with no host): Decoder gets past it
        state = game.setup(game.load_settings(bot_settings(game) or {}), f"words-{i}")
        before: set[str] = set()
        events = list(game.opening_events(state))
        for _ in range(max_steps):
            prompts = game.prompts(state)
            yield events, [p for p in prompts if p.key not in before], prompts, state, game
            before = {p.key for p in prompts}
            if not prompts:
                break
            prompt = rng.choice(prompts)
            events = list(game.apply(state, prompt.seat,
                                     game.random_command(state, prompt, rng)))


def _rendered(text: str) -> list[str]:
    """The text as every surface shows it: the console (names, deadlines as time left) and
    Discord (mentions and relative times; plain names and UTC in files and answers)."""
    names = [p.name for p in PLAYERS]
    return [render_text(text, lambda s: names[s] if s < 2 else None, lambda _: "in 30 s"),
            render(text, PLAYERS), render_plain(text, PLAYERS)]


@pytest.fixture(scope="module")
def keys() -> set[str]:
    found = _keys()
    assert {"draft_pick", "give_up", "choose_starter"} <= found  # the test sees the keys
    return found


@pytest.mark.parametrize("slug", GAMES)
def test_no_placeholder_or_decision_key_reaches_a_reader(slug: str, keys: set[str]) -> None:
    key_words = re.compile(r"\b(" + "|".join(sorted(keys)) + r")\b")
    checked = 0
    for events, new, prompts, state, game in _steps(slug):
        clocks = {p.key: ClockData(key=p.key, seat=p.seat, started_at=NOW,
                                   limit_at=NOW + timedelta(seconds=p.time_limit or 60),
                                   deadline_at=None) for p in prompts}
        texts = [o.text for o in compose(events, new, clocks, status=game.status(state))]
        for p in new:  # its reminders; how the host log names it (late, over its limit)
            texts += [text for _, text in reminder_times(p, clocks[p.key])]
            texts.append(decision_label(p))
        texts += [game.describe(state, seat) for seat in (0, 1, None)]
        for text in texts:
            for shown in _rendered(text):
                assert not LEFT.search(shown), (slug, shown)
                assert not key_words.search(shown), (slug, key_words.search(shown), shown)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("slug", GAMES)
def test_every_prompt_and_what_its_timeout_does_is_a_sentence(slug: str) -> None:
    seen: set[str] = set()
    for _, new, _, _, _ in _steps(slug):
        for p in new:
            seen.add(p.kind)
            text = p.text.splitlines()[0].rstrip()  # (lines after it may list: sets, tanks)
            assert text[:1].isupper() or not text[:1].isalpha(), (p.kind, text)
            assert text.endswith((".", "?", "!", ")", ":")), (p.kind, text[-80:])
            line = prompt_line(p, None)
            if p.timeout_text:
                assert line.endswith(as_sentence(p.timeout_text))
                assert as_sentence(p.timeout_text)[0].isupper()
                assert line.endswith((".", "?", "!")), line[-80:]
    assert seen
