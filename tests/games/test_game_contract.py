"""The game contract is complete: everything a game provides is declared on its `Game`.

Every game of the games/ packages has its conformance and two-world tests, a rules page that
the build ships in its package, its reveals, its controls (what the Discord layer shows) and
its quick settings; nothing outside the game's package finds it by name. The toy game kit
(tests/support/toy_game: `DUEL_KIT`) shows a sixth game added by its package, its tests and
its page alone.
"""

from __future__ import annotations

import random
import re
import runpy
import subprocess
from pathlib import Path

import pytest

from games.core.contract import Controls, Game, Prompt, Quick
from games.core.controls import Asked, Button, Menu, Private
from games.core.pages import game_package
from games.registry import all_games, installed_games
from tests.support.import_graph import modules, runtime_graph
from tests.support.toy_game import DUEL_KIT

ROOT = Path(__file__).resolve().parents[2]
SLUGS = installed_games()
THIS = str(Path(__file__).resolve().relative_to(ROOT))


def _package(game: Game) -> str:
    return game_package(type(game).__module__)


def test_the_registry_finds_the_five_games_and_the_test_suites_toy_games() -> None:
    assert len(SLUGS) >= 5
    assert all(_package(all_games()[s]).startswith("games.") for s in SLUGS)
    assert DUEL_KIT.slug in all_games() and DUEL_KIT.slug not in SLUGS


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_has_its_conformance_and_two_world_tests(slug: str) -> None:
    package = _package(all_games()[slug])
    folder = ROOT / "tests" / Path(*package.split("."))
    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.glob("test_*.py"))]
    assert any("run_conformance(" in t for t in texts), f"{folder} runs no conformance"
    assert any("run_information(" in t for t in texts), f"{folder} runs no two-world check"
    assert any(f"from {package} import" in t or f"import {package}" in t for t in texts)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_ships_its_rules_page_in_its_package(slug: str, tmp_path: Path) -> None:
    """The page is docs/rules/<slug>.md, and the build copies it where an installed game
    reads it (`Game.rules_page` without docs/: its package's rules.md)."""
    game = all_games()[slug]
    page = (ROOT / "docs" / "rules" / f"{slug}.md").read_text(encoding="utf-8")
    assert game.rules_page() == page
    built = tmp_path.joinpath(*_package(game).split("."))
    built.mkdir(parents=True)
    copy = runpy.run_path(str(ROOT / "setup.py"), run_name="umpire_setup")["rules_pages"]
    assert built / "rules.md" in copy(tmp_path)
    assert (built / "rules.md").read_text(encoding="utf-8") == page


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_declares_its_reveals_controls_and_quick_settings(slug: str) -> None:
    game = all_games()[slug]
    declared = type(game)
    assert declared.reveals is not None
    assert declared.controls is not Game.controls and isinstance(declared.controls, Controls)
    assert declared.controls.summary.startswith(f"**{game.title}**")
    assert isinstance(declared.quick, Quick)
    timed = game.quick_settings(42, short=False)  # (validated against the settings model)
    clocks = {k: v for k, v in timed.items() if v == 42}
    assert clocks, f"{slug} declares no decision clock to set"
    settings = game.load_settings(timed)
    assert all(getattr(settings, k) == 42 for k in clocks)
    assert game.quick_settings(short=True).items() >= dict(declared.quick.short).items()


def test_only_its_own_package_imports_a_game() -> None:
    """The runtime, the benches and the shared core find games through the registry: no
    module outside a game's package imports it (the RPS Poker arena aside, whose bots play
    that one game)."""
    known = {**modules(ROOT / "games"), **modules(ROOT / "bot"), **modules(ROOT / "bench")}
    packages = {_package(all_games()[s]) for s in SLUGS}
    graph = runtime_graph(known)
    found = sorted(f"{name} imports {target}" for name, targets in graph.items()
                   for target in targets
                   for package in packages
                   if (target == package or target.startswith(package + "."))
                   and not (name == package or name.startswith(package + "."))
                   and not name.startswith("bot.arena")
                   and name != "games.registry")
    assert not found, found


def test_the_toy_game_kit_declares_everything_a_shipped_game_does() -> None:
    declared = type(DUEL_KIT)
    assert declared.reveals is not None and declared.controls.note is not None
    assert DUEL_KIT.rules_page() == (ROOT / "tests/support/toy_game/rules.md").read_text()
    assert DUEL_KIT.quick_settings(5) == {"rounds": 1, "pick_seconds": 5}


def test_nothing_outside_the_toy_game_kits_package_its_tests_and_its_page_names_it() -> None:
    """A sixth game touches its package, its tests and its rules page only: every tracked
    file that names the kit is one of those."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    name = re.compile(r"duel[-_ ]?kit", re.I)
    allowed = {"tests/support/toy_game/__init__.py", "tests/support/toy_game/rules.md",
               "tests/support/register.py"}
    naming = []
    for file in files:
        path = ROOT / file
        if file in allowed or "toy_game" in file or file == THIS or not path.is_file():
            continue  # (the kit's package and page, its registration, its tests)
        try:
            if name.search(path.read_text(encoding="utf-8")):
                naming.append(file)
        except (UnicodeDecodeError, OSError):
            continue  # (not text)
    assert not naming, f"files outside the kit's package and tests name it: {naming}"


def _asked(game: Game, state: object, prompt: Prompt, viewer: int | None) -> Asked:
    return Asked(key=prompt.key, seat=prompt.seat, kind=prompt.kind, choices=prompt.choices,
                 view=game.view(state, viewer))  # type: ignore[arg-type]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_games_controls_submit_what_its_decisions_accept(slug: str) -> None:
    """Through random matches, each decision's declared controls, built from its audience's
    view: buttons submit one of its choices, a menu labels every choice, and a private
    menu's options, as the clicker's text, are legal moves of the clicker."""
    game = all_games()[slug]
    controls = type(game).controls
    kinds: set[type] = set()
    offered = 0  # private options checked
    for seed in range(3):
        rng = random.Random(seed)
        state = game.setup(game.load_settings(game.quick_settings()), f"controls-{seed}")
        for _ in range(300):
            prompts = game.prompts(state)
            if not prompts:
                break
            for prompt in prompts:
                asked = _asked(game, state, prompt, prompt.seat if prompt.private else None)
                rows = controls.rows(asked) if controls.rows is not None else None
                assert all(len(row) <= 5 for row in rows or [])
                for control in (c for row in rows or [] for c in row):
                    kinds.add(type(control))
                    if isinstance(control, Button):
                        assert control.choice in prompt.choices, (prompt.kind, control)
                    elif isinstance(control, Menu):
                        assert len(control.labels) == len(prompt.choices), prompt.kind
                    elif isinstance(control, Private) and controls.private_options:
                        mine = _asked(game, state, prompt, prompt.seat)
                        for _, value in controls.private_options(mine):
                            command = game.parse(state, prompt.seat, f"{control.verb} {value}")
                            game.check(state, prompt.seat, command)
                            offered += 1
                if controls.note is not None:
                    note = controls.note(asked)
                    assert note is None or note.strip()
            prompt = rng.choice(prompts)
            game.submit(state, prompt.seat, game.random_command(state, prompt, rng))
    assert controls.rows is None or kinds, f"{slug}'s rows were never used"
    assert controls.private_options is None or offered, f"{slug} never offered privately"
