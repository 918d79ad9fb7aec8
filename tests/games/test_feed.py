"""The spectator feed's reveals (`contract.Reveals`, `games.core.feed`), for every game.

Anyone may read a feed, the players included, so what it shows of a running match is what
both players may know. Twin worlds differ only in one seat's secrets (`Game.twin`); both are
played in lock-step through the same moves, as in the information harness
(games.core.information), which compares the feed of every step too. Until the match ends,
the feed's output beyond the room's lines must be nothing, the same in both worlds; in the
step that ends the match the declared reveal appears, and it shows the secret the worlds
differ in (the reveals differ). And the harness itself catches a feed that reveals a round's
or a bout's hands when it ends, as the feed once did.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import games.core.information as information
from games.core.contract import Game, OnTimeout, Timeout
from games.core.feed import end_reveal, feed_reveals
from games.core.information import InformationLeak, _counterpart, _owner_move, observe
from games.registry import all_games, installed_games

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"
#: Matches played per game (Decoder's are long); a game not named: 20.
MATCHES = {"decoder": 6, "rps-poker": 30, "devils-deal": 30}
#: Of those, the first ones played in the pure tier, for the games whose matches are long;
#: the rest are the slow test's (the service tier and the whole suite), each part held to
#: the same checks, so the whole suite plays every seed (issue 44: the pure tier's minute).
QUICK = {"renounce-fate": 5, "double-or-nothing": 5, "rps-poker": 10, "devils-deal": 10}
SLUGS = sorted(installed_games())  # every game (not the test suite's toy game)


@dataclass
class FeedReport:
    compared: int = 0  # steps compared while the match ran (the feed identical in both worlds)
    reveals: int = 0  # matches ended with both worlds compared up to there
    differing: int = 0  # ...whose reveal showed the secret (the two worlds' reveals differ)


def _public(game: Game[Any], state: BaseModel, events: list[Any]) -> Any:
    return observe(game, state, events, None)


def play(game: Game[Any], seed: str, report: FeedReport, *, twin_rate: float = 0.2,
         max_steps: int = 20_000) -> None:
    rng = random.Random(f"feed:{seed}")
    state = game.setup(game.settings_model(), seed)
    twin: BaseModel | None = None
    owner = 0
    for _ in range(max_steps):
        prompts = game.prompts(state)
        if not prompts:
            return
        if twin is None and rng.random() < twin_rate:
            owner = rng.randrange(2)
            twin = game.twin(state, owner, rng)
        index = rng.randrange(len(prompts))
        prompt = prompts[index]
        if prompt.on_timeout != OnTimeout.NOTHING and rng.random() < 0.05:
            command: Any = Timeout(prompt_key=prompt.key)
        else:
            command = game.random_command(state, prompt, rng)
        game.check(state, prompt.seat, command)
        before = state.model_copy(deep=True)
        events = game.apply(state, prompt.seat, command)
        ended = game.outcome(state) is not None
        feed_a = feed_reveals(game, before, state, ended)
        if not ended:
            assert feed_a == [], f"{game.slug} {seed}: a reveal while the match runs: {feed_a}"
        if twin is None:
            continue
        twin_before = twin
        counterpart = _counterpart(game, twin, prompt, index)
        if counterpart is None:
            twin = None
            continue
        if prompt.seat == owner:
            moved = _owner_move(game, state, events, twin, counterpart, command, rng, 24,
                                before)
            if moved is None:  # the owner's move itself showed the secret (a showdown...)
                twin = None
                continue
            twin, events_b = moved
        else:
            twin = twin.model_copy(deep=True)
            mirrored = Timeout(prompt_key=counterpart.key) if isinstance(command, Timeout) \
                else command
            game.check(twin, prompt.seat, mirrored)
            events_b = game.apply(twin, prompt.seat, mirrored)
        ended_b = game.outcome(twin) is not None
        feed_b = feed_reveals(game, twin_before, twin, ended_b)
        if _public(game, state, events) != _public(game, twin, events_b):
            twin = None  # the rules showed the secret in the room (the harness's business)
            continue
        if ended:
            assert len(feed_a) == len(feed_b) == 1, f"{game.slug} {seed}: the end revealed nothing"
            report.reveals += 1
            report.differing += feed_a != feed_b
            twin = None
            continue
        assert feed_a == feed_b == [], f"{game.slug} {seed}: the feed tells the worlds apart"
        report.compared += 1
    raise AssertionError(f"{game.slug} {seed}: the match did not end")


def _feed_matches(slug: str, seeds: range) -> None:
    game = all_games()[slug]
    report = FeedReport()
    for i in seeds:
        play(game, f"feed-{i}", report)
    print(slug, report)
    assert report.compared > 0, "no step was compared while the match ran"
    assert report.reveals > 0, "no match ended while two worlds were compared"
    assert report.differing > 0, "no reveal ever showed the secret the worlds differ in"


@pytest.mark.parametrize("slug", SLUGS)
def test_feed_of_a_running_match_is_the_same_in_two_worlds(slug: str) -> None:
    _feed_matches(slug, range(QUICK.get(slug, MATCHES.get(slug, 20))))


@pytest.mark.slow
@pytest.mark.parametrize("slug", sorted(QUICK))
def test_feed_of_the_other_running_matches_is_the_same_in_two_worlds(slug: str) -> None:
    _feed_matches(slug, range(QUICK[slug], MATCHES.get(slug, 20)))


def test_every_game_reveals_at_its_end() -> None:
    """A match the hosts end midway (before and after the same state, ended) reveals the
    unit in progress; a step that ends nothing reveals nothing."""
    for slug in SLUGS:
        game = all_games()[slug]
        state = game.setup(game.settings_model(), "end")
        rng = random.Random(0)
        for _ in range(8):
            prompt = game.prompts(state)[0]
            game.apply(state, prompt.seat, game.random_command(state, prompt, rng))
        assert game.prompts(state), f"{game.slug}: still running"
        assert feed_reveals(game, state, state, False) == [], game.slug
        shown = feed_reveals(game, state, state, True)
        assert len(shown) == 1 and shown[0].startswith("🔓"), (game.slug, shown)


def test_every_game_declares_its_reveals_and_its_rules_page_says_them() -> None:
    """The declaration is the rules page's: its feed section says what is shown at the end
    (and what never is), in the declaration's own words."""
    for slug in SLUGS:
        game = all_games()[slug]
        declared = type(game).reveals
        assert declared is not None, f"{slug} declares no reveals"
        page = (RULES / f"{slug}.md").read_text(encoding="utf-8")
        section = page[page.index("The spectator feed\n"):]
        end = section.find("\n## ")
        section = " ".join((section if end < 0 else section[:end]).split())
        assert " ".join(declared.at_end.split()) in section, slug
        assert "while the match runs" in section, slug
        if declared.never:
            assert declared.never in section, slug
        assert "text" not in declared.model_dump(), "the reveal's function is no JSON"


def test_the_export_s_reveal_is_the_feed_s_last_one() -> None:
    for slug in SLUGS:
        game = all_games()[slug]
        state = game.setup(game.settings_model(), "export")
        assert end_reveal(game, state, False) is None, slug
        assert end_reveal(game, state, True) == feed_reveals(game, state, state, True)[0], slug


#: Matches the harness plays with the old feed, each also with the feed as it is.
LEAK_SEEDS = 10


def _per_unit(slug: str, field: str, hands: str):
    """The feed as it once was: a round's (a bout's) hands revealed in the step that ends
    it, while the match goes on."""
    def reveals(game: Game[Any], before: Any, after: Any, ended: bool) -> list[str]:
        if game.slug == slug and getattr(before, field) > 0 and (
                ended or getattr(after, field) != getattr(before, field)):
            return [f"🔓 {getattr(before, hands)}"]
        return feed_reveals(game, before, after, ended)
    return reveals


@pytest.mark.parametrize(("slug", "field"), [("renounce-fate", "round"),
                                             ("double-or-nothing", "bout")])
def test_the_two_world_harness_catches_a_feed_revealing_what_a_fold_or_a_bout_hid(
        slug: str, field: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Renounce Fate's feed showed both hands after a fold, Double or Nothing's the loser's
    hand once a bout was decided: the harness tells the twin worlds apart by their feed.
    Seed by seed, each passing with the feed as it is, up to the first the old feed fails
    (the slow test below plays the rest with the feed as it is)."""
    game = all_games()[slug]
    as_it_is, leaking = information.feed_reveals, _per_unit(slug, field, "hands")
    for i in range(LEAK_SEEDS):
        monkeypatch.setattr(information, "feed_reveals", as_it_is)
        information.check_two_worlds(game, f"feed-leak-{i}")
        monkeypatch.setattr(information, "feed_reveals", leaking)
        try:
            information.check_two_worlds(game, f"feed-leak-{i}")
        except InformationLeak as leak:
            assert re.search(re.escape(".feed"), str(leak)), leak
            return
    pytest.fail(f"no match of {LEAK_SEEDS} told the worlds apart by the old feed")


@pytest.mark.slow
@pytest.mark.parametrize("slug", ["renounce-fate", "double-or-nothing"])
def test_the_feed_leak_seeds_pass_with_the_feed_as_it_is(slug: str) -> None:
    """The matches the test above played with the feed as it is, all of them (it stops at
    the first the old feed fails, to keep the pure tier quick)."""
    for i in range(LEAK_SEEDS):
        information.check_two_worlds(all_games()[slug], f"feed-leak-{i}")
