"""The documentation stands alone: every page says in its own words what the bot applies.

- No page (docs/**/*.md, README.md) points at files outside the repository (the project's
  working notes `../shared/...`: seeds, rulings, design).
- Every game's rules page carries the "All games" rulings: salted seed commitment and reveal
  (a host-chosen seed makes the match unrated), hosts
  may pause any timer, downtime never charged, first valid submission final unless the game
  says otherwise, private choices typed in public deleted and not applied, and how typed
  moves are read (with the engine's own limits).
- The rulings of rules round 3 (issue 29) are on their game's page as the engine applies
  them: Renounce Fate's check and call (the engine's own refusal), Double or Nothing's
  identical sets and automatic pass, Decoder's setup (what the room learns, `ready`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([*ROOT.glob("docs/**/*.md"), ROOT / "README.md"])
RULES_PAGES = sorted(ROOT.glob("docs/rules/*.md"))
OUTSIDE = re.compile(r"shared/|RULINGS\.md|DESIGN\.md|seeds/[0-9]")

#: One phrase per "All games" ruling; each must be in the section of every rules page.
ALL_GAMES_RULINGS = {
    "advantage named by the host": "the host names the player who holds the advantage",
    "seeded chance": "match's own seeded generator",
    "seed commitment": "SHA-256 commitment of a secret random salt (128 bits) together with "
                       "the seed",
    "seed revealed": "it reveals the seed and the salt",
    "host-chosen seed": "A seed chosen by a host makes the match unrated",
    "hosts pause any timer": "Hosts may pause any timer at any time",
    "downtime never charged": "never charged to a",
    "last valid submission only where the game says": "last valid submission counts",
    "first valid submission final": "the first valid submission is final",
    "private choice in own table": "accepted only in the submitter's",
    "private choice in public": "typed in the public game room is not applied",
    "deleted": "deletes the message",
    "a move is a word of the pending decision": "read only as one of the words of the decision "
                                                "pending now",
    "another decision's word refused": "refused with what is expected now, never reinterpreted",
    "a typed number never changed": "A typed number is never silently changed",
    "digits 0 to 9 in every game": "digits 0 to 9",
}


def _section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return re.sub(r"\s+", " ", match.group(1)) if match else ""


def test_the_pages_exist() -> None:
    assert ROOT / "README.md" in PAGES and len(RULES_PAGES) >= 3


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_points_outside_the_repository(page: Path) -> None:
    found = [line.strip() for line in page.read_text(encoding="utf-8").splitlines()
             if OUTSIDE.search(line)]
    assert not found, f"{page.name} refers to files outside the repository: {found}"


@pytest.mark.parametrize("page", RULES_PAGES, ids=lambda p: p.name)
def test_every_rules_page_states_the_all_games_rulings(page: Path) -> None:
    section = _section(page.read_text(encoding="utf-8"), "All games")
    assert section, f"{page.name} has no '## All games' section"
    missing = [name for name, phrase in ALL_GAMES_RULINGS.items() if phrase not in section]
    assert not missing, f"{page.name}'s All games section lacks: {missing}"


@pytest.mark.parametrize("page", RULES_PAGES, ids=lambda p: p.name)
def test_every_rules_page_states_the_engines_input_limits(page: Path) -> None:
    from games.core.parsing import MAX_DIGITS, MAX_MOVE_CHARS

    section = _section(page.read_text(encoding="utf-8"), "All games")
    assert f"more than {MAX_DIGITS} digits" in section
    assert f"more than {MAX_MOVE_CHARS:,} characters is refused" in section


def _page(name: str) -> str:
    return re.sub(r"\s+", " ", (ROOT / "docs" / "rules" / name).read_text(encoding="utf-8"))


def test_renounce_fate_page_gives_the_engines_refusal_of_check_facing_a_raise() -> None:
    from games.core.contract import ParseError
    from games.renounce_fate import GAME
    from games.renounce_fate.commands import Bet, ChooseStarter

    state = GAME.setup(GAME.settings_model(), "docs")
    GAME.submit(state, 0, ChooseStarter(starter=0))
    GAME.submit(state, 0, Bet(action="raise", amount=5))
    with pytest.raises(ParseError) as refused:
        GAME.parse(state, 1, "check")
    said = str(refused.value).split(" (")[0]  # "5 to call: type call, raise N or fold"
    page = _page("renounce-fate.md")
    assert f"({said})" in page.replace('("', "(").replace('")', ")")
    assert "`call 2` or `call 9` is refused with the amount owed" in page


def test_double_or_nothing_page_has_no_pass_command_and_the_rulings() -> None:
    page = _page("double-or-nothing.md")
    typed = _section((ROOT / "docs/rules/double-or-nothing.md").read_text(encoding="utf-8"),
                     "What players type")
    assert "`pass`" not in typed.split("In your table channel")[0]
    assert "passes automatically" in page and "Passing is never a choice" in page
    assert "The room learns only the set that was played" in page
    assert "never announced anywhere else" in page
    assert "*that* you were asked which identical set" not in page  # the old, leaking ruling


def test_decoder_page_matches_the_engines_setup() -> None:
    from games.decoder.settings import DecoderSettings

    page = _page("decoder.md")
    default = str(DecoderSettings().lock_when_ready).lower()
    assert f"| `lock_when_ready` | {default} | house option:" in page
    assert "`ready` is a signal to the hosts and locks nothing" in page
    assert "Nothing of a player's setup steps is announced" in page
    assert "Setup is over: the match begins" in page
    assert "has made their rarity choice" not in page


def test_decoder_page_states_the_prompt_fix_and_every_setting_with_its_default() -> None:
    from games.decoder.settings import DecoderSettings

    page = _page("decoder.md")
    fix = DecoderSettings().fix_seconds
    assert f"| `fix_seconds` | {fix:g} |" in page
    assert "taken when its fix window closes" in page and "`/fix TEXT`" in page
    assert "before the guess is taken" in page  # the hopeless guess's private warning
    for name in DecoderSettings.model_fields:
        assert f"| `{name}` |" in page, f"the settings table lacks {name}"


def test_double_or_nothing_page_gives_the_joker_pair_example() -> None:
    page = _page("double-or-nothing.md")
    assert "`J-5-J` played as 5-5-5" in page and "pair of 5s" in page


def test_rps_poker_tournament_ranks_by_total_points() -> None:
    """(the order itself: tests/arena/test_ranking.py)"""
    for text in (_page("rps-poker.md"), (ROOT / "docs/arena.md").read_text(encoding="utf-8")):
        assert "ranks by total points" in text or "ranks the bots by **total points**" in text


ARCHITECTURE = ROOT / "docs" / "architecture.md"
BENCH = ROOT / "docs" / "bench.md"
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def test_architecture_names_every_game_package_and_every_bot_package() -> None:
    from games.registry import all_games

    text = ARCHITECTURE.read_text(encoding="utf-8")
    packages = {type(game).__module__.split(".")[1] for game in all_games().values()
                if type(game).__module__.startswith("games.")}
    assert len(packages) >= 5
    layers = _section(text, "Layers")
    missing = [f"games/{p}/" for p in sorted(packages) if f"{p}/" not in layers]
    missing += [f"bot/{d.name}/" for d in sorted((ROOT / "bot").iterdir())
                if (d / "__init__.py").exists() and f"{d.name}/" not in layers]
    assert not missing, f"docs/architecture.md's layers do not name: {missing}"


def test_architecture_maps_every_module_of_bot() -> None:
    """Each module of bot/ is named, as a word, in the layers or the module map."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    mapped = set(re.findall(r"[a-z_]+", _section(text, "Layers") + _section(text, "Module map")))
    modules = sorted({p.stem for p in (ROOT / "bot").rglob("*.py") if p.stem != "__init__"})
    assert len(modules) > 100
    missing = [m for m in modules if m not in mapped]
    assert not missing, f"docs/architecture.md's module map does not name: {missing}"


def test_architecture_keeps_its_figures_in_the_bench_page() -> None:
    """Dated runs live in docs/bench.md; architecture.md may name a date only to point there."""
    dated = [line.strip() for line in ARCHITECTURE.read_text(encoding="utf-8").splitlines()
             if DATE.search(line) and "bench.md" not in line]
    assert not dated, f"dated measurements in docs/architecture.md (move them to bench.md): {dated}"
    assert "](bench.md)" in ARCHITECTURE.read_text(encoding="utf-8")
    assert "(docs/bench.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_bench_page_puts_the_newest_run_first_under_each_subject() -> None:
    """Each run's heading starts with its date (and time, where the log gave one); a run of
    the same day without a time may stand anywhere among that day's runs."""
    subjects = re.split(r"^## ", BENCH.read_text(encoding="utf-8"), flags=re.M)[1:]
    checked = 0
    for subject in subjects:
        runs = [found.group(0) for heading in re.findall(r"^### (.*)$", subject, re.M)
                if (found := re.search(rf"{DATE.pattern}(?: \d\d:\d\d)?", heading))]
        for newer, older in zip(runs, runs[1:], strict=False):
            both_timed = len(newer) > 10 and len(older) > 10
            assert (newer >= older if both_timed else newer[:10] >= older[:10]), \
                (subject.splitlines()[0], newer, older)
            checked += 1
    assert checked >= 10
